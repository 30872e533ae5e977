"""Take-over: a human pauses the agent, acts in its browser as recorded steps, and hands back.

:class:`TakeOver` is mixed into :class:`cockpit.core.agent.loop.Agent`; its
public methods are called from other threads (the window's) and run their work
on the loop's thread through the run control. What the human did and said goes
into the agent's next prompt (:meth:`TakeOver._with_human_notes`).
"""
from __future__ import annotations

import time
from concurrent.futures import Future

from cockpit.core.actions.grammar import Action
from cockpit.core.agent import events as ev
from cockpit.core.agent import observing, pixelstep
from cockpit.core.agent.step import Step
from cockpit.core.errors import CockpitError
from cockpit.core.page.observation import Observation, observe
from cockpit.core.safety.risk import classify


class TakeOver:
    """The Agent's take-over methods; they use the agent's session, store, control, executor and steps."""

    # ---------- take-over: called from other threads, run on the loop's thread ----------
    def take_over(self, by: str = "human") -> Future:
        """`by` (e.g. "human:ada") takes the browser: the agent pauses; a question waiting at the gate ends at
        once, its action dropped (cockpit.core.agent.gate.TOOK_OVER), and nothing the agent proposes runs until
        :meth:`hand_back`. Resolves to a fresh look at the page, taken as soon as the loop is off the gate and
        the model (then the human's actions run at once)."""
        self.control.take_over(by)
        return self.control.submit(self._refresh)

    def look_now(self) -> Future:
        """Look at the page as it is now (an observation not stored as a step); resolves to the Observation.
        While paused at a step boundary this runs at once: a window shows the page the last action left."""
        return self.control.submit(self._refresh)

    def human_act(self, action: Action) -> Future:
        """Run a human's action (during a take-over) as a recorded step; resolves to the step row."""
        if action.kind == "answer":
            raise CockpitError("a human step cannot answer for the agent; stop the run instead")
        return self.control.submit(lambda: self._human_step(action))

    def hand_back(self, note: str = "") -> None:
        """Resume the agent; `note` goes into its next prompt with what the human did."""
        if note.strip():
            self._human_notes.append(f"Note from the human supervisor: {note.strip()}")
            # kept with the step that reads it: the run was assisted (cockpit.core.review.interventions)
            self._flag(self._next_n, f"note: {' '.join(note.split())}")
        self.control.resume()

    def _refresh(self) -> Observation:
        obs = observing.hidden(observe(self.session), self.executor.secrets)
        self.last_obs = obs
        self.measure(obs)
        self._emit(ev.ObservationReady(self.run_id, self._next_n, obs.url, obs.title, "", tuple(obs.marks),
                                       dict(obs.timings), obs.screenshot, stored=False, masked=obs.masked))
        return obs

    def _open_human_step(self) -> Step:
        """A person's step begun on the page as it is now: numbered, announced, its screenshot and marks stored
        (Enter only when asked: Press [Enter])."""
        obs = self.last_obs or self._refresh()
        st = Step(self._take_n(), time.time(), obs=obs, press_enter=False)
        self._emit(ev.StepStarted(self.run_id, st.n, actor="human"))
        st.files = self.store.write_step_files(self.run_id, st.n, screenshot=obs.screenshot,
                                               marked=obs.render(), marks=[m.to_dict() for m in obs.marks])
        return st

    def _human_step(self, action: Action) -> dict:
        st = self._open_human_step()
        obs = st.obs
        mark = obs.marks[action.target - 1] if action.target and 0 < action.target <= len(obs.marks) else None
        if action.point is not None:  # a click at a point: what is under it, as for a pixel model's click
            st.row["pointer"] = {"mode": "pixels", "dialect": "human"}
            if secret := pixelstep.locate(self, st, action, st.row["pointer"]):
                self.executor.secrets.add(secret)
        risk = (pixelstep.rate(self, st, action)
                or classify(action, mark, obs.marks, obs.url, self.config.risk_rules))
        shown = pixelstep.shown(self, st, action)
        st.row.update(actor="human", action=shown, action_text=shown, target=action.target,
                      risk=risk.level, evidence=list(risk.evidence))
        _, _, _ = self._execute(st, action, actor="human")
        st.request = []
        self.record.commit(st)
        self._human_notes.append(pixelstep.human_note(self, st, shown))  # in a pixel model's own coordinates
        self._emit(ev.StepFinished(self.run_id, st.n, st.row["status"], time.time() - st.started,
                                   actor="human"))
        self._refresh()
        return dict(st.row, step=st.n)

    def _with_human_notes(self, lead: str) -> str:
        if not self._human_notes:
            return lead
        acts = [x for x in self._human_notes if x.startswith("- ")]
        notes = [x for x in self._human_notes if not x.startswith("- ")]
        self._human_notes = []
        text = ""
        if acts:
            text = "While you were paused, the human supervisor took over and did:\n" + "\n".join(acts)
        if notes:
            text = (text + "\n" if text else "") + "\n".join(notes)
        return f"{lead}\n{text}" if lead else text
