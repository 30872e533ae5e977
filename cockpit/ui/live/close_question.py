"""Closing the window while a run goes on: the person is asked first (#38: it closed and stopped the run without a
word). "Stop and close" stops the run and closes its browser (the window's closing does that); Cancel keeps both.

Asked when the person closes the window (its title bar's close button, Ctrl+Q); a window closed by the program
(a desktop session ending, the tests) closes as before.
"""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

STOP_AND_CLOSE = "Stop and close"


def question(step: int) -> str:
    return f"A run is going on (step {step}). Stop it and close?"


def may_close(window: QWidget, busy: bool, step: int) -> bool:
    """True when nothing runs, or the person chose Stop and close."""
    if not busy:
        return True
    box = QMessageBox(QMessageBox.Question, "Close Cockpit", question(step), parent=window)
    box.setObjectName("closeQuestion")
    box.setInformativeText("The run is stopped where it is (its steps so far are kept) and its browser is closed.")
    stop = box.addButton(STOP_AND_CLOSE, QMessageBox.DestructiveRole)
    cancel = box.addButton(QMessageBox.Cancel)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)
    box.exec()
    return box.clickedButton() is stop
