"""The window's layout memory: geometry, toolbars and splitters, kept in window.ini in Cockpit's home.

A mixin of :class:`cockpit.ui.main_window.MainWindow`: restored when the
window opens, saved when it closes. The window opens at 1280x800, or at the
screen's available area when that is smaller (no window manager may clamp it:
issue #20); a remembered size is used only when it fits the screen it opens on.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect, QSettings, QSize
from PySide6.QtGui import QGuiApplication

from cockpit.core import paths


DEFAULT = QSize(1280, 800)


class LayoutMemory:
    def _qsettings(self) -> QSettings:
        return QSettings(str(Path(paths.home()) / "window.ini"), QSettings.IniFormat)

    def _restore_layout(self) -> None:
        qs = self._qsettings()
        screen = self._available()
        saved = qs.value("geometry")
        if not (saved and self.restoreGeometry(saved) and self.width() <= screen.width()
                and self.height() <= screen.height()):
            if DEFAULT.width() <= screen.width() and DEFAULT.height() <= screen.height():
                self.resize(DEFAULT)
            else:  # a small screen: all of it, from its corner (else Reject would be off it at the gate)
                self.setGeometry(QRect(screen.topLeft(), DEFAULT.boundedTo(screen.size())))
        if qs.value("state"):
            self.restoreState(qs.value("state"))
        for name, widget in (("split", self.split), ("right", self.right), ("review", self.review.split)):
            if qs.value(name):
                widget.restoreState(qs.value(name))

    def _available(self) -> QRect:
        """The area of the screen the window opens on that windows may use (no panels, no docks)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry()

    def save_layout(self) -> None:
        qs = self._qsettings()
        qs.setValue("geometry", self.saveGeometry())
        qs.setValue("state", self.saveState())
        qs.setValue("split", self.split.saveState())
        qs.setValue("right", self.right.saveState())
        qs.setValue("review", self.review.split.saveState())
        qs.sync()
