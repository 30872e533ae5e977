"""The window's status bar, built from small items that each show one thing (as qutebrowser's is).

- the message: the latest news ("Run finished (answered): …", "Enter a task first."), on one line, cut with
  "…" and whole in its tooltip. It expires, and a new run clears it: it never describes an older state.
- the state (idle, running, waiting for you…), the run's row and budget, its tokens and cost, planning's
  cost (the look-ahead's label), the time it has run, and the browser's state: each a label of its own to the
  right, which the message never overlaps (it takes only the room they leave).
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from cockpit.ui.elide import ElidedLabel

MESSAGE_MS = 15000  # how long news stays, unless said otherwise


class RunStatus(QObject):
    def __init__(self, bar: QStatusBar, extra: tuple[QWidget, ...] = ()):
        super().__init__(bar)
        self.message = ElidedLabel()
        self.message.setObjectName("statusMessage")
        bar.addWidget(self.message, 1)
        self.state = QLabel("idle")
        self.steps = QLabel("")
        self.tokens = QLabel("")
        self.time = QLabel("")
        self.browser = QLabel("browser: not started")
        for w in (self.state, self.steps, self.tokens, *extra, self.time, self.browser):
            bar.addPermanentWidget(w)
        self._expiry = QTimer(self, singleShot=True)
        self._expiry.timeout.connect(self.clear)

    def say(self, text: str, ms: int = MESSAGE_MS) -> None:
        """Show `text` (its first line) for `ms` milliseconds."""
        self.message.setText(text.splitlines()[0] if text else "")
        self._expiry.start(ms)

    def current(self) -> str:
        return self.message.fullText() if self._expiry.isActive() else ""

    def clear(self) -> None:
        self._expiry.stop()
        self.message.setText("")

    def set_elapsed(self, seconds: int | None) -> None:
        self.time.setText("" if seconds is None else f"{seconds // 60}:{seconds % 60:02d}")
