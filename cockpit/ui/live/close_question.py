"""Closing the window while a run goes on: the person is asked first (#38: it closed and stopped the run without a
word). "Stop and close" stops the run and closes its browser (the window's closing does that); Cancel keeps both.

Asked when the person closes the window (its title bar's close button, Ctrl+Q); a window closed by the program
(a desktop session ending, the tests) closes as before.
"""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from cockpit.ui.live.bridge import RUNNING, WAITING_MODEL

STOP_AND_CLOSE = "Stop and close"
#: Who paused the run, as the gate says it of an action held meanwhile (walkthrough 9: "you pressed Pause")
CLOSE_ASKED = "the window asked whether to close"


def question(step: int, held: bool = False) -> str:
    if held:
        return f"A run is going on (step {step}); it is paused while you decide. Stop it and close?"
    return f"A run is going on (step {step}). Stop it and close?"


def may_close(window: QWidget, busy: bool, step: int, held: bool = False) -> bool:
    """True when nothing runs, or the person chose Stop and close. `held`: the window paused the run for the
    question (walkthrough 4: it went on to a new gate behind it), so the step named stays true."""
    if not busy:
        return True
    box = QMessageBox(QMessageBox.Question, "Close Cockpit", question(step, held), parent=window)
    box.setObjectName("closeQuestion")
    box.setInformativeText("Stop and close: the run is stopped where it is (its steps so far are kept) and its "
                           "browser is closed. Cancel: " + ("it goes on." if held else "it goes on as it was."))
    stop = box.addButton(STOP_AND_CLOSE, QMessageBox.DestructiveRole)
    cancel = box.addButton(QMessageBox.Cancel)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)
    box.exec()
    return box.clickedButton() is stop


def ask_to_close(window: QWidget, bridge, runs) -> bool:
    """The window may close: nothing runs, or the person chose Stop and close. A run taking steps is paused while
    the question is open (an action must not run while its person is being asked whether to stop it) and goes on
    after Cancel. `bridge`: the window's AgentBridge; `runs`: its RunController."""
    busy = bridge.busy and not runs.closed
    held = busy and bridge.state in (RUNNING, WAITING_MODEL)
    if held:
        bridge.pause(CLOSE_ASKED)
    if may_close(window, busy, runs.latest_step, held):
        return True
    if held:
        bridge.resume()
    return False
