"""Take-over: a human pauses the agent, acts in its browser as recorded steps, and hands back.

:class:`TakeOver` is the part of an :class:`cockpit.core.agent.loop.Agent` a
person drives (``agent.takeover``); its public methods are called from other
threads (the window's) and run their work on the loop's thread through the run
control. What the human did and said goes into the agent's next prompt
(:meth:`TakeOver.with_notes`).
"""
from __future__ import annotations

import time
from concurrent.futures import Future

from cockpit.core.actions.grammar import Action
from cockpit.core.agent import events as ev
from cockpit.core.agent.acting import Acting
from cockpit.core.agent.hooks.base import RunScope
from cockpit.core.agent.observing import Observer
from cockpit.core.agent.pixelstep import Points
from cockpit.core.agent.record import RunRecord
from cockpit.core.agent.step import Numbering, Step
from cockpit.core.errors import CockpitError
from cockpit.core.page.observation import Observation


class TakeOver:
    """A person's hands on one agent's browser: its run's scope, its observer, acting, points, record and
    step numbers."""

    def __init__(self, scope: RunScope, observer: Observer, acting: Acting, points: Points, record: RunRecord,
                 numbering: Numbering):
        self.scope = scope
        self.observer = observer
        self.acting = acting
        self.points = points
        self.record = record
        self.numbering = numbering
        self.notes: list[str] = []  # what the human did or said, for the agent's next prompt

    # ---------- called from other threads, run on the loop's thread ----------
    def take_over(self, by: str = "human") -> Future:
        """`by` (e.g. "human:ada") takes the browser: the agent pauses; a question waiting at the gate ends at
        once, its action dropped (cockpit.core.agent.gate.TOOK_OVER), and nothing the agent proposes runs until
        :meth:`hand_back`. Resolves to a fresh look at the page, taken as soon as the loop is off the gate and
        the model (then the human's actions run at once)."""
        self.scope.control.take_over(by)
        return self.scope.control.submit(self.refresh)

    def look_now(self) -> Future:
        """Look at the page as it is now (an observation not stored as a step); resolves to the Observation.
        While paused at a step boundary this runs at once: a window shows the page the last action left."""
        return self.scope.control.submit(self.refresh)

    def human_act(self, action: Action) -> Future:
        """Run a human's action (during a take-over) as a recorded step; resolves to the step row."""
        if action.kind == "answer":
            raise CockpitError("a human step cannot answer for the agent; stop the run instead")
        return self.scope.control.submit(lambda: self.human_step(action))

    def hand_back(self, note: str = "") -> None:
        """Resume the agent; `note` goes into its next prompt with what the human did."""
        if note.strip():
            self.notes.append(f"Note from the human supervisor: {note.strip()}")
            # kept with the step that reads it: the run was assisted (cockpit.core.review.interventions)
            self.scope.flag(self.numbering.next_n, f"note: {' '.join(note.split())}")
        self.scope.control.resume()

    # ---------- on the loop's thread ----------
    def refresh(self) -> Observation:
        """A look at the page as it is now (not a step)."""
        return self.observer.refresh(self.numbering.next_n)

    def open_step(self) -> Step:
        """A person's step begun on the page as it is now: numbered, announced, its screenshot and marks stored
        (Enter only when asked: Press [Enter])."""
        run = self.scope
        obs = self.observer.last_obs or self.refresh()
        st = Step(self.numbering.take(), time.time(), obs=obs, press_enter=False)
        run.emit(ev.StepStarted(run.run_id, st.n, actor="human"))
        st.files = run.store.write_step_files(run.run_id, st.n, screenshot=obs.screenshot,
                                              marked=obs.render(), marks=[m.to_dict() for m in obs.marks])
        return st

    def human_step(self, action: Action) -> dict:
        """Run a person's `action` as a recorded step on the page as it is now; returns the step's row."""
        run = self.scope
        st = self.open_step()
        obs = st.obs
        st.write(pointer={"mode": "pixels", "dialect": "human"})  # a fresh step: nothing there before
        if secret := self.points.aim(st, action, st.record.pointer):
            run.executor.secrets.add(secret)
        if not st.target.pointed:
            st.write(pointer=None)
        risk = st.target.rated(action, obs.marks, obs.url, run.config.risk_rules)
        shown = st.target.shown(action, obs.marks, run.executor.secrets)
        st.write(actor="human", action=shown, action_text=shown, target=action.target,
                 risk=risk.level, evidence=list(risk.evidence))
        self.acting.execute(st, action, actor="human")
        st.request = []
        self.record.commit(st)
        self.notes.append(self.points.human_note(st, shown))  # in a pixel model's own coordinates
        run.emit(ev.StepFinished(run.run_id, st.n, st.record.status, time.time() - st.started, actor="human"))
        self.refresh()
        return st.live_row()

    def with_notes(self, lead: str) -> str:
        """`lead` with what the human did and said since the agent's last step (said once)."""
        if not self.notes:
            return lead
        acts = [x for x in self.notes if x.startswith("- ")]
        notes = [x for x in self.notes if not x.startswith("- ")]
        self.notes = []
        text = ""
        if acts:
            text = "While you were paused, the human supervisor took over and did:\n" + "\n".join(acts)
        if notes:
            text = (text + "\n" if text else "") + "\n".join(notes)
        return f"{lead}\n{text}" if lead else text
