"""Live's red banner: why the last thing went wrong, until it is no longer true.

It holds one message per subject ("run": why a run could not start or stopped; "tasks": a task file's problems)
and shows the newest. A subject's message goes when it is no longer true (a good task file loaded), and the
other's comes back: a bad task file must not hide, and then leave unsaid, why the run stopped.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from cockpit.ui.elide import wrap_within


class ErrorBanner(QLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        wrap_within(self)  # a long path or address in it wraps, never widens the window
        self.setTextFormat(Qt.PlainText)
        self.setStyleSheet("background:#fdecea; color:#611a15; padding:6px; border:1px solid #f5c2c0")
        self.setVisible(False)
        self.errors: dict[str, str] = {}

    def say(self, message: str, about: str = "run") -> None:
        self.errors.pop(about, None)
        self.errors[about] = message
        self._show(message)

    def clear(self, about: str | None = None) -> bool:
        """Take `about`'s message away (None: all); the other's shows again. True when the banner changed."""
        if about is None:
            self.errors = {}
        elif self.errors.pop(about, None) is None:
            return False
        if self.errors:
            self._show(next(reversed(self.errors.values())))
        else:
            self.setVisible(False)
        return True

    def _show(self, message: str) -> None:
        self.setText(message)
        self.setToolTip(message)
        self.setVisible(True)
