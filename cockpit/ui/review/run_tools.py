"""Review's tools on the open run: compare, your own attempt at its task, re-ask, branch, replay (live or as
recorded), open a step's recorded page, and resume / close an interrupted run.

A row of buttons that wraps on a narrow window (no button has its text cut). It only says what was asked
(signals); cockpit.ui.review.panel acts on the open run. Whether the run can be served from its web recording is
worked out once, when the run is shown (show_run: it reads the recording's log); whether a step can be re-asked
is decided from the step's row as it steps (a person's step, an imported run, no request stored), so ←/→ reads
nothing. The re-ask dialog still says anything else that stops it.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from cockpit.core.replay import resume
from cockpit.core.replay.recorded import why_not_recorded
from cockpit.ui.flow_layout import flow_row

#: Replay's speeds: (what the box says, the factor on the recorded pace; None: as fast as pages load)
SPEEDS = (("0.5×", 0.5), ("1× (recorded pace)", 1.0), ("2×", 2.0), ("4×", 4.0), ("as fast as pages load", None))


#: Compare with…'s tooltip where there is a run to compare with (walkthrough 9: the start page's and site's too).
COMPARE_TIP = "Another run of the same task (or one that started on the same page or site), side by side, steps aligned"


class RunTools(QWidget):
    compareClicked = Signal()
    reaskClicked = Signal()
    branchClicked = Signal()
    replayClicked = Signal()
    resumeClicked = Signal(bool)  # by replaying its steps
    attemptClicked = Signal()
    stepPageClicked = Signal()
    closeRunClicked = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.compare_btn = QPushButton("Compare with…")
        self.compare_btn.setToolTip(COMPARE_TIP)
        self.reask_btn = QPushButton("Re-ask this step…")
        self.reask_btn.setToolTip("Send the exact request of this step again, edited if you like, "
                                  "and compare the replies (no browser involved)")
        self.branch_btn = QPushButton("Branch from this step")
        self.branch_btn.setToolTip("Replay the steps before this one in the browser (checking the page still "
                                   "matches), then let the agent continue from here as a new run")
        self.replay_btn = QPushButton("Replay in browser")
        self.replay_btn.setToolTip("Watch this run again on today's site, at the recorded pace")
        self.replay_speed = QComboBox()
        for label, speed in SPEEDS:
            self.replay_speed.addItem(label, speed)
        self.replay_speed.setCurrentIndex(1)
        self.recorded_box = QCheckBox("as recorded")
        self.recorded_box.setToolTip("Branch and Replay from the run's web recording: the site as it was (even "
                                     "changed or gone since), nothing sent to it, irreversible steps not asked "
                                     "again, typed secrets answered from the recording")
        self.step_page_btn = QPushButton("Open this step's page")
        self.step_page_btn.setToolTip("A browser on this step's page as recorded (DevTools work there), served "
                                      "from the run's web recording")
        self.resume_btn = QPushButton("Resume")
        self.resume_btn.setToolTip("Continue this run, as the same run, in a new browser and with its model: "
                                   "new steps follow the last one and the agent sees the conversation so far")
        self.resume_replay = QCheckBox("by replaying its steps")
        self.resume_replay.setToolTip("Restore the page by replaying the recorded actions (irreversible ones are "
                                      "asked about again) instead of opening the address the last step ended on")
        self.attempt_btn = QPushButton("Attempt this task yourself")
        self.attempt_btn.setToolTip("Do this run's task yourself from its start URL in the Live tab's browser, "
                                    "as a human run (no model), to set your steps beside the agent's")
        self.close_run_btn = QPushButton("Close run")
        self.close_run_btn.setToolTip("Give this interrupted run up: it is marked closed and its steps are kept")
        for btn, signal in ((self.compare_btn, self.compareClicked), (self.reask_btn, self.reaskClicked),
                            (self.branch_btn, self.branchClicked), (self.replay_btn, self.replayClicked),
                            (self.attempt_btn, self.attemptClicked)):
            btn.clicked.connect(signal)
        self.resume_btn.clicked.connect(lambda: self.resumeClicked.emit(self.resume_replay.isChecked()))
        self.close_run_btn.clicked.connect(self.closeRunClicked)
        self.step_page_btn.clicked.connect(self.stepPageClicked)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        # the two that bring in another run of the task, side by side: one line at the narrowest (no taller Review)
        task_runs = QWidget()
        pair = QHBoxLayout(task_runs)
        pair.setContentsMargins(0, 0, 0, 0)
        pair.addWidget(self.compare_btn)
        pair.addWidget(self.attempt_btn)
        lay.addWidget(flow_row((task_runs, self.reask_btn, self.branch_btn, self.replay_btn,
                                self.replay_speed, self.recorded_box, self.step_page_btn, self.resume_btn,
                                self.resume_replay, self.close_run_btn)))
        self._tips = {w: w.toolTip() for w in (self.reask_btn, self.recorded_box, self.step_page_btn, self.branch_btn,
                                               self.replay_btn, self.compare_btn)}
        self.run, self._recorded, self._asked, self._others, self._step = None, "no run is open", set(), 0, None
        self.set_run_status("")
        for w in (self.compare_btn, self.attempt_btn, self.reask_btn, self.branch_btn, self.replay_btn,
                  self.replay_speed, self.recorded_box, self.step_page_btn):
            w.setEnabled(False)  # until a run is shown (check_step)

    def show_run(self, store, run: dict | None) -> None:
        """The run shown (None: no run): why its web recording cannot serve it ("" when it can: its log read once,
        here) and which of its steps have a request stored; then no step is shown yet."""
        self.run = run
        recorded = why_not_recorded(store, run["id"]) if run else "no run is open"
        self._recorded = recorded[:1].lower() + recorded[1:]
        self.steps_added(store)
        self._step = None  # no step is shown yet
        self.count_others(store)

    def count_others(self, store) -> None:
        """How many other runs the shown run's task has (Compare with… needs one: walkthrough 8), again."""
        run = self.run
        self._others = len(store.runs_to_compare(run)) if run else 0  # its task's, or its start page's or site's
        self.check_step(self._step)

    def steps_added(self, store) -> None:
        """The run shown has new steps (a run going on elsewhere): which have a request stored, again."""
        self._asked = store.steps_with_request(self.run["id"]) if self.run else set()

    def check_step(self, step: dict | None) -> None:
        """Re-ask, "as recorded" and the step's page enabled only where they can work on the step shown (its row);
        where not, their tooltip says why (an imported run: no request to re-ask, no web recording; walk3 A16)."""
        run, recorded, self._step = self.run, self._recorded, step
        reask = why_not_reask(run, step, self._asked) if run else "no step is shown"
        for w, what, why in ((self.reask_btn, "Cannot re-ask", reask),
                             (self.recorded_box, "Cannot replay or branch as recorded", recorded),
                             (self.step_page_btn, "Cannot open this step's page",
                              recorded or ("" if step is not None else "no step is shown"))):
            w.setEnabled(not why)
            w.setToolTip(self._tips[w] if not why else f"{what}: {why}")
        if recorded:
            self.recorded_box.setChecked(False)
        for w in (self.compare_btn, self.attempt_btn, self.branch_btn, self.replay_btn, self.replay_speed):
            w.setEnabled(run is not None)  # no run open (a search took it away): nothing to do it on (walk4)
        alone = run is not None and not self._others  # walkthrough 8: it only said so at the bottom, once clicked
        self.compare_btn.setEnabled(run is not None and not alone)
        self.compare_btn.setToolTip("Cannot compare: no other run of this task, nor one that started on its start "
                                    "page or site" if alone else self._tips[self.compare_btn])
        nowhere = run is not None and not (run.get("url") or "").strip()  # an import that kept no start address
        empty = "the run has no steps" if run is not None and not run.get("steps") else ""  # walkthrough 10
        for w, what, why in ((self.branch_btn, "Cannot branch", empty or ("" if step else "no step is shown")),
                             (self.replay_btn, "Cannot replay", empty)):
            why = "this run recorded no start address" if nowhere else why  # walkthrough 7: "the start page  could
            w.setEnabled(run is not None and not why)  # not be opened"
            w.setToolTip(f"{what}: {why}" if run is not None and why else self._tips[w])

    def set_run_status(self, status: str) -> None:
        """Resume for a run whose process died (cockpit.core.replay.resume), Close run for an interrupted one."""
        for w in (self.resume_btn, self.resume_replay):
            w.setVisible(status in resume.RESUMABLE)
        self.close_run_btn.setVisible(status == "interrupted")


def why_not_reask(run: dict, step: dict | None, asked: set[int]) -> str:
    """Why `step` (a row of `run`) cannot be re-asked, from the row alone ("" when it seems it can): a person's
    step, an imported run's (its log keeps no request as sent), or one with no request stored (`asked`: the steps
    with one). The re-ask dialog checks the request itself when asked."""
    if step is None:
        return "no step is shown"
    where = f"step {step['step']} of run {run['id']}"
    source = run.get("source") or "cockpit"
    if step.get("actor") == "human":
        return f"{where} was taken by the human supervisor: no model request was sent, so there is nothing to re-ask"
    if source != "cockpit":
        return (f"{where} cannot be re-asked as it was sent: the run was imported ({source}) and its log holds no "
                "exact request for this step")
    if step["step"] not in asked:
        return f"{where} has no recorded request (the model was not asked at this step)"
    return ""
