"""An error nobody foresaw, raised in one of the window's slots: said in the window, not only on the terminal (#38:
every error a user can cause in the window is shown in the window; walkthrough 6: Branch on an imported run did
nothing, its traceback on a terminal a desktop user never sees)."""
from __future__ import annotations

import logging
import sys

from PySide6.QtWidgets import QMessageBox, QWidget

log = logging.getLogger(__name__)

TITLE = "Something went wrong"
WHAT_NOW = ("Cockpit met an error it did not expect, and what you asked for did not finish. Nothing already stored "
            "was lost. The details are on the terminal Cockpit was started from (or run it from one to see "
            "them); please report them.")


def install(window: QWidget):
    """Uncaught errors from now on are logged (with their traceback, as before) and shown over `window`; returns the
    hook installed."""
    previous = sys.excepthook

    def hook(kind, exc, tb):
        if issubclass(kind, KeyboardInterrupt):
            return previous(kind, exc, tb)
        log.error("unexpected error: %s: %s", kind.__name__, exc, exc_info=(kind, exc, tb))
        show(window, kind, exc)
    sys.excepthook = hook
    return hook


def show(window: QWidget, kind: type, exc: BaseException) -> QMessageBox:
    """The box over `window` naming the error (one box: a second error while it is open replaces its text)."""
    box = window.findChild(QMessageBox, "unexpectedError")
    if box is None:
        box = QMessageBox(QMessageBox.Icon.Warning, TITLE, "", QMessageBox.StandardButton.Close, window)
        box.setObjectName("unexpectedError")
        box.setInformativeText(WHAT_NOW)
    box.setText(f"{kind.__name__}: {str(exc)[:500]}")
    box.open()
    return box
