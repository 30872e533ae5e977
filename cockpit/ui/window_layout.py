"""The window's layout memory: geometry, toolbars and splitters, kept in window.ini in the data folder.

window_settings(root) is that file: the remembered fields (cockpit.ui.field_memory: the last task, Reports'
judge) are kept in it too, so with another data folder the layout and the fields go to the same file.

Restored when the window opens, saved when it closes; it owns no widget, it is given the
window and the splitters to remember. The window opens at 1280x800, or at the
screen's available area less a window frame when that is smaller (no window manager may clamp it:
issue #20; its title bar on the screen: issue #38); a remembered size is used only when it fits the
screen it opens on, and its place is moved so that the window and its frame are on that screen.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect, QSettings, QSize
from PySide6.QtWidgets import QMainWindow, QSplitter

from cockpit.ui.placement import frame_margins, free_area, within

DEFAULT = QSize(1280, 800)


def window_settings(root: Path | str) -> QSettings:
    """window.ini in the data folder `root` (the store's): the layout and the remembered fields."""
    return QSettings(str(Path(root) / "window.ini"), QSettings.IniFormat)


class LayoutMemory:
    def __init__(self, window: QMainWindow, splitters: dict[str, QSplitter], root: Path | str):
        """`root`: the data folder (the store's root) whose window.ini keeps the layout."""
        self.window, self.splitters, self.root = window, splitters, root

    def _qsettings(self) -> QSettings:
        return window_settings(self.root)

    def restore(self) -> None:
        w, qs = self.window, self._qsettings()
        free = self._available()
        saved = qs.value("geometry")
        frame = frame_margins(w)
        room = free.marginsRemoved(frame)
        if saved and w.restoreGeometry(saved) and w.width() <= room.width() and w.height() <= room.height():
            if not w.isMaximized():
                    w.setGeometry(within(w.geometry(), free, frame, w.minimumSizeHint()))  # all of it and its frame
        elif DEFAULT.width() <= room.width() and DEFAULT.height() <= room.height():
            w.resize(DEFAULT)
        else:  # a small screen: all of it, its frame too, from its corner (else Reject would be off it at the gate)
            w.setGeometry(within(QRect(room.topLeft(), DEFAULT), free, frame, w.minimumSizeHint()))
        if qs.value("state"):
            w.restoreState(qs.value("state"))
        for name, splitter in self.splitters.items():
            if qs.value(name):
                splitter.restoreState(qs.value(name))

    def _available(self) -> QRect:
        """The area of the screen the window opens on that windows may use (no panels, no docks)."""
        return free_area(self.window)

    def save(self) -> None:
        qs = self._qsettings()
        qs.setValue("geometry", self.window.saveGeometry())
        qs.setValue("state", self.window.saveState())
        for name, splitter in self.splitters.items():
            qs.setValue(name, splitter.saveState())
        qs.sync()
