"""The current run as the window knows it: the agent bridge, and the run's id, rows, budget, tokens and time.

It starts runs (the window builds their :class:`~cockpit.ui.live.bridge.RunSpec`) and counts what the bridge
reports; the panes read its numbers and draw. Connected to the bridge before any pane, so a pane handling an
event already sees the counts that event changed.
"""
from __future__ import annotations

import time

from PySide6.QtCore import QObject, Signal

from cockpit.core.agent import events as ev
from cockpit.core.demo.simulator import is_simulator
from cockpit.core.errors import CockpitError
from cockpit.core.store import Store
from cockpit.core.words import plural
from cockpit.ui.live.bridge import AgentBridge, RunSpec
from cockpit.ui.live.run_kinds import ResumeOf


class RunController(QObject):
    countsChanged = Signal()  # the run's id, rows, tokens or cost changed

    def __init__(self, bridge: AgentBridge, parent=None):
        super().__init__(parent)
        self.bridge = bridge
        self.run_id = ""
        self.latest_step = 0  # the step log's last row (the agent's or a human's)
        self.agent_steps = 0  # of the budget: the model's replies
        self.max_steps = 0
        self.demo = False  # the run uses the rule-based demo policy, not a model
        self.human = ""  # a person's own attempt at the task (RunSpec.human): no agent steps
        self.simulated = False  # the run uses the simulator (cockpit.core.demo.simulator), not a model
        self.tokens, self.cost, self._replied = 0, 0.0, 0
        self.resumed_at = 0  # a resumed run's first new step (its earlier steps are recorded); 0: not a resume
        self.started_at: float | None = None
        self.running = False  # from launch until the bridge's runEnded has been handled
        self.began = False  # the current attempt got under way (an event, a replayed step)
        self.closed = False
        bridge.event.connect(self._on_event)
        bridge.replayed.connect(self._on_replayed)
        bridge.runEnded.connect(self._on_ended)

    def launch(self, spec: RunSpec, *, paused: bool = False) -> bool:
        """Start `spec` with fresh counts; False when the bridge would not (a run is going)."""
        self.tokens, self.cost, self.agent_steps, self.latest_step = 0, 0.0, 0, 0
        self._replied = 0  # the last step whose reply was counted
        self.max_steps, self.demo, self.human = spec.agent.max_steps, spec.demo, spec.human
        self.resumed_at = 0
        if isinstance(spec.kind, ResumeOf):
            self._resumed(spec.kind.run_id)
        self.simulated = not spec.demo and is_simulator(spec.model.model)
        self.run_id = ""  # until the bridge says the run started
        self.began = False
        self.started_at = time.monotonic()
        self.countsChanged.emit()
        self.running = self.bridge.start(spec, paused=paused)
        return self.running

    def _resumed(self, run_id: str) -> None:
        """A resume goes on where the run stopped: its rows and agent steps counted on from there, of the run's
        budget (#38: "row 2 · agent step 1/15" after step 3 of a run of 6 steps)."""
        from cockpit.core.replay.resume import plan
        try:
            with Store(self.bridge.store_root) as store:
                p = plan(store, run_id)
        except CockpitError:  # it cannot be resumed: the run fails and says why
            return
        self.latest_step, self.agent_steps, self.max_steps = p.last_step, p.taken, p.taken + p.budget
        self._replied = p.last_step  # (its earlier steps are not counted here)
        self.resumed_at = p.first_step

    def step_label(self, row: int) -> str:
        """One numbering everywhere: the step log's row, and the agent's steps of its budget (a person's own
        attempt has no agent and no budget: its steps)."""
        if self.human:
            return f"row {row} · your attempt, {plural(self.latest_step, 'step')}"
        return f"row {row} · agent step {self.agent_steps}/{self.max_steps}"

    def elapsed(self) -> int | None:
        """Whole seconds since the run started, while it runs."""
        if self.started_at is None or not self.bridge.busy:
            return None
        return int(time.monotonic() - self.started_at)

    def _on_event(self, e: ev.Event) -> None:
        if self.closed:
            return
        self.began = True
        if isinstance(e, ev.RunStarted):
            self.run_id = e.run_id
        elif isinstance(e, ev.ObservationReady) and e.stored:
            self.latest_step = e.step
        elif isinstance(e, ev.StepFinished):  # a human's row during take-over moves the count on too
            self.latest_step = max(self.latest_step, e.step)
        elif isinstance(e, ev.ModelReplied):
            self.tokens += e.prompt_tokens + e.completion_tokens
            self.cost += e.cost or 0.0
            self.agent_steps += 1
            self._replied = e.step
        elif isinstance(e, ev.RunFinished) and e.status == "stopped":
            self.tokens += self._cut_off_tokens()
        else:
            return
        self.countsChanged.emit()

    def _cut_off_tokens(self) -> int:
        """The tokens of a reply Stop cut off, as its step records them (walkthrough 8: the status bar said "0
        tokens" while the step kept 4); 0 when Stop came after the last reply."""
        try:
            with Store(self.bridge.store_root, read_only=True) as store:
                steps = store.steps(self.run_id, with_request=False, after=self._replied)
        except CockpitError:
            return 0
        return sum((s.get("prompt_tokens") or 0) + (s.get("completion_tokens") or 0) for s in steps)

    def _on_replayed(self, *_) -> None:
        self.began = True

    def _on_ended(self, _result) -> None:
        self.running = False

    def close(self) -> None:
        """The window closed: the stopped run's queued events change nothing."""
        self.closed = True
