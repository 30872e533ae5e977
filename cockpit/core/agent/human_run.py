"""A person's own attempt at a task, as Online-Mind2Web's human evaluation has the annotator make one.

:class:`HumanRun` is an :class:`~cockpit.core.agent.loop.Agent` that never asks a model: the run opens on
the task's start page already taken over (:mod:`cockpit.core.agent.takeover`), each action the person
takes through the window is a recorded step (screenshot, marks, the action in the grammar, actor
"human"), and the person ends it with an answer (:meth:`HumanRun.answer`, a last step ``ANSWER; …`` as an
agent's run ends) or gives up (:meth:`HumanRun.give_up`: status ``gave_up``, the reason kept as the run's
error). The run's model is :data:`HUMAN`, so Review lists and filters it as any model; its settings say
who made it (``config["human"]["by"]``).
"""
from __future__ import annotations

import time
from concurrent.futures import Future

from cockpit.core.actions.grammar import Action
from cockpit.core.agent import events as ev
from cockpit.core.agent.config import AgentConfig, RunResult
from cockpit.core.agent.control import RunControl, Stopped
from cockpit.core.agent.loop import Agent
from cockpit.core.agent.start import Fresh, open_start
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import BrowserDied, CockpitError
from cockpit.core.llm.client import ModelClient
from cockpit.core.llm.modelconfig import ModelConfig
from cockpit.core.safety import redaction
from cockpit.core.store import Store
from cockpit.core.store.newrun import HUMAN  # Review's Model column and filter, `--model human`

#: The status of an attempt the person gave up.
GAVE_UP = "gave_up"


class _Maker:
    """Records who made the attempt in the run's settings (the one hook-like thing a human run has)."""

    def __init__(self, by: str):
        self.by = by

    def opening(self, start, settings: dict) -> None:
        settings["human"] = {"by": self.by}
        settings["model"] = {"model": HUMAN}  # no model was asked: none of the window's model settings


class HumanRun(Agent):
    """The task's start page, taken over from step 0 by `by` ("human:ada"); no model is called."""

    def __init__(self, session: BrowserSession, client: ModelClient | None, store: Store, *, by: str = HUMAN,
                 config: AgentConfig | None = None, control: RunControl | None = None, listener=None, **_):
        # the loop's machinery wants a client; this one is never called (no address, no key)
        client = ModelClient(ModelConfig(base_url="http://127.0.0.1:9/v1", model=HUMAN), api_key="none")
        super().__init__(session, client, store, config=config, control=control or RunControl(paused=True),
                         listener=listener)
        self.by = by or HUMAN
        self._ending: tuple[str, str] | None = None  # (status, the answer or the reason for giving up)

    # ---------- called from other threads (the window's) ----------
    def answer(self, text: str) -> Future:
        """End the attempt with `text` as the answer: a last step ``ANSWER; text`` (actor human)."""
        if not text.strip():
            raise CockpitError("give the answer first (or give up)")
        return self.control.submit(lambda: self._end("answered", redaction.scrub(text.strip(), self.executor.secrets)))

    def give_up(self, reason: str = "") -> Future:
        """End the attempt without an answer: the run is ``gave_up``, `reason` kept as its error."""
        return self.control.submit(lambda: self._end(GAVE_UP, " ".join(reason.split()) or "gave up"))

    def hand_back(self, note: str = "") -> None:
        """Nobody to hand back to: the person keeps the browser."""

    # ---------- the run, on its thread ----------
    def run(self, start: Fresh) -> RunResult:
        self.hooks.clear()
        self.executor.risk_rules = self.config.risk_rules
        self.scope.run_id = self.record.open(start, [_Maker(self.by)])
        self.store.set_run(self.run_id, model=HUMAN, base_url="")
        self._emit(ev.RunStarted(self.run_id, start.task, start.url, self.config.max_steps))
        self.numbering.next_n = 1
        try:
            open_start(self.session, start.url)
            self.control.take_over(self.by)
            self.takeover.refresh()
            while self._ending is None:
                self.control.wait_turn(on_pause=lambda: self._emit(ev.RunPaused(self.run_id, self.numbering.next_n)))
                if self._ending is None:  # someone resumed (Run, Step): the person still has the browser
                    self.control.take_over(self.by)
            status, text = self._ending
            if status == "answered":
                return self.record.finish("answered", text, self.numbering.next_n - 1)
            self.store.finish_run(self.run_id, GAVE_UP, error=text)
            n = self.store.run(self.run_id)["steps"]
            self._emit(ev.RunFinished(self.run_id, GAVE_UP, None, n))
            return RunResult(self.run_id, GAVE_UP, None, n, text)
        except Stopped:
            return self.record.finish("stopped", None, self.numbering.next_n - 1)
        except CockpitError as e:
            return self.record.fail(str(e), lost_browser=isinstance(e, BrowserDied))
        finally:
            self.control.cancel_jobs()

    def _end(self, status: str, text: str) -> dict:
        row = self._answer_step(text) if status == "answered" else {}
        self._ending = (status, text)
        self.control.resume()  # the wait at the step boundary ends; run() finishes the run
        return row

    def _answer_step(self, text: str) -> dict:
        st = self.takeover.open_step()
        obs = st.obs
        shown = str(Action("answer", text=text))
        st.write(actor="human", action=shown, action_text=shown, status="answered", outcome="answered",
                 url_after=obs.url)
        self.record.commit(st)
        self._emit(ev.ActionExecuted(self.run_id, st.n, shown, True, "answered", obs.url, actor="human"))
        self._emit(ev.StepFinished(self.run_id, st.n, "answered", time.time() - st.started, actor="human"))
        return st.live_row()
