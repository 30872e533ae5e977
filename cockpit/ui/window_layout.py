"""The window's layout memory: geometry, toolbars and splitters, kept in window.ini in Cockpit's home.

A mixin of :class:`cockpit.ui.main_window.MainWindow`: restored when the
window opens, saved when it closes.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from cockpit.core import paths


class LayoutMemory:
    def _qsettings(self) -> QSettings:
        return QSettings(str(Path(paths.home()) / "window.ini"), QSettings.IniFormat)

    def _restore_layout(self) -> None:
        qs = self._qsettings()
        if qs.value("geometry"):
            self.restoreGeometry(qs.value("geometry"))
        else:
            self.resize(1280, 800)
        if qs.value("state"):
            self.restoreState(qs.value("state"))
        for name, widget in (("split", self.split), ("right", self.right), ("review", self.review.split)):
            if qs.value(name):
                widget.restoreState(qs.value(name))

    def save_layout(self) -> None:
        qs = self._qsettings()
        qs.setValue("geometry", self.saveGeometry())
        qs.setValue("state", self.saveState())
        qs.setValue("split", self.split.saveState())
        qs.setValue("right", self.right.saveState())
        qs.setValue("review", self.review.split.saveState())
        qs.sync()
