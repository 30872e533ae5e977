"""Your own attempt at a task (Online-Mind2Web's human evaluation): Run ▸ Attempt it yourself… (Ctrl+Shift+H)
on the task bar's task, or Review's "Attempt this task yourself" on the open run's task and start URL.

The run starts taken over (cockpit.core.agent.human_run): the take-over panel's controls act, each action a
recorded step; :class:`AttemptBar` ends it with the answer, or gives up. Nothing hands the browser back to an
agent meanwhile (Run, Step, Take over and Hand back are off).
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QLineEdit, QPushButton

from cockpit.core.agent.human_run import GAVE_UP, HUMAN, HumanRun
from cockpit.core.errors import CockpitError, short_message
from cockpit.core.words import plural
from cockpit.ui.background import run_in_background
from cockpit.ui.live.bridge import TAKEN_OVER
from cockpit.ui.live.run_kinds import FromTask

SHORTCUT = "Ctrl+Shift+H"


class AttemptBar(QFrame):
    """The end of your own attempt: the answer you found, or giving up (the field then says why)."""
    answered = Signal(str)
    gaveUp = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("attemptBar")
        self.setFrameShape(QFrame.StyledPanel)
        self.info = QLabel("<b>Your own attempt at the task.</b> Act with the controls below; each action is "
                           "a step of your run. End it with your answer, or give up.")
        self.info.setWordWrap(True)
        self.text = QLineEdit(placeholderText="your answer (or, to give up, why)")
        self.answer_btn = QPushButton("Finish with this answer")
        self.give_up_btn = QPushButton("Give up")
        self.give_up_btn.setToolTip("End your attempt without an answer (recorded as given up, with the "
                                    "field's text as the reason)")
        g = QGridLayout(self)
        g.addWidget(self.info, 0, 0, 1, 3)
        g.addWidget(self.text, 1, 0, 1, 3)
        g.addWidget(self.answer_btn, 2, 0)
        g.addWidget(self.give_up_btn, 2, 1)
        g.setColumnStretch(2, 1)
        self.answer_btn.clicked.connect(self._answer)
        self.text.returnPressed.connect(self._answer)
        self.give_up_btn.clicked.connect(lambda: self.gaveUp.emit(self.text.text()))
        self.setVisible(False)

    def _answer(self) -> None:
        if self.text.text().strip():
            self.answered.emit(self.text.text())
        else:
            self.info.setText("<b>Type your answer first</b> (or give up).")

    def set_busy(self, busy: bool) -> None:
        for w in (self.text, self.answer_btn, self.give_up_btn):
            w.setEnabled(not busy)


class HumanAttempt(QObject):
    """Starts your attempt from the window (`w`, the MainWindow) and ends it from the bar."""

    def __init__(self, w):
        super().__init__(w)
        self.w = w
        self.bar: AttemptBar = w.live.attempt_bar
        self.action = QAction("Attempt it &yourself…", w)
        self.action.setShortcut(QKeySequence(SHORTCUT))
        self.action.setToolTip("Do the task yourself in the window's browser, as a human run: no model; each "
                               f"action a step, ended with your answer ({SHORTCUT})")
        self.action.triggered.connect(self.start)
        w.addAction(self.action)
        self.bar.answered.connect(lambda text: self._end(lambda run: run.answer(text)))
        self.bar.gaveUp.connect(lambda why: self._end(lambda run: run.give_up(why)))
        w.bridge.runEnded.connect(self._ended)

    def start(self) -> bool:
        """The task bar's task and start URL (the demo shop when Demo policy is ticked and no URL is given)."""
        return self.w.start_run(human=self.w.settings.decided_by())

    def start_task(self, run_id: str) -> bool:
        """The task and start URL of `run_id` (Review's open run)."""
        return self.w.start_special(run_id, FromTask(self.w.settings.decided_by()))

    def _end(self, how) -> None:
        run = self.w.bridge.agent
        if not (self.w.bridge.human and self.w.bridge.taken_over and isinstance(run, HumanRun)):
            self.w.live.show_error("Your attempt has not started yet: wait for its first page.")
            return
        try:
            fut = how(run)
        except CockpitError as e:
            self.w.live.show_error(str(e))
            return
        self.bar.set_busy(True)
        run_in_background(fut.result, self._done, name="human-answer")

    def _done(self, done) -> None:
        self.bar.set_busy(False)
        if done.exception() is not None:
            self.w.live.show_error(f"Your attempt could not end: {short_message(done.exception())}")

    def follow(self) -> None:
        """The bar shows while an attempt goes, from its first page on; one run at a time. The window calls it with
        its controls (MainWindow._update_controls), which keep the agent's commands off meanwhile."""
        on = bool(self.w.bridge.human) and self.w.bridge.busy
        self.bar.setVisible(on and self.w.bridge.state == TAKEN_OVER)
        self.action.setEnabled(not self.w.bridge.busy)

    def _ended(self, result) -> None:
        self.bar.setVisible(False)
        self.bar.set_busy(False)
        self.bar.text.clear()
        if result is not None and result.status in ("answered", GAVE_UP) and \
                self.w.store.run(result.run_id).get("model") == HUMAN:
            self.w.status.say(f"Your attempt is run {result.run_id}: {result.status.replace('_', ' ')}, "
                              f"{plural(result.steps, 'step')}", 15000, live=True)
