"""The agent loop: observe, ask the model, gate, act, commit; step after step.

One :class:`Agent` runs one task at a time in one browser session, on the
calling thread (a worker thread in the window). It reports through a listener
of small events and obeys a :class:`RunControl`. Every step is written to the
store before the next begins. The loop never decides approvals itself: the
risk classifier flags, the policy says whether to ask, the approver answers
(:mod:`cockpit.core.agent.gate`). What is not part of every run (the navigation
fence, multihop tracking, procedural memory, look-ahead, breakpoints) is a step
hook (:mod:`cockpit.core.agent.hooks`), called at fixed points of the step.
"""
from __future__ import annotations

import logging
import time
from concurrent.futures import Future
from typing import Callable

from cockpit.core.actions.grammar import Action
from cockpit.core.agent import events as ev
from cockpit.core.agent import observing
from cockpit.core.agent.acting import Acting
from cockpit.core.agent.approval import Approver, PolicyApprover, refused_outcome
from cockpit.core.agent.config import AgentConfig, RunResult
from cockpit.core.agent.control import RunControl, Stopped
from cockpit.core.agent.execute import Executor
from cockpit.core.agent.gate import TOOK_OVER, Gate
from cockpit.core.agent.hooks import for_run
from cockpit.core.agent.hooks.base import RunScope, StepHook
from cockpit.core.agent.hooks.multihop import Multihop
from cockpit.core.agent.observing import Observer
from cockpit.core.agent.pixelstep import Points
from cockpit.core.agent.protocol import protocol_for
from cockpit.core.agent.record import RunRecord
from cockpit.core.agent.reply import Replies
from cockpit.core.agent.start import Fresh, Resume, RunContext, Start, open_start
from cockpit.core.agent.step import Numbering, Step
from cockpit.core.agent.stepimages import StepImages
from cockpit.core.agent.takeover import TakeOver
from cockpit.core.browser.session import BrowserSession
from cockpit.core.browser.stop_loading import stop_loading
from cockpit.core.errors import BrowserDied, BrowserError, CockpitError, short_message
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ChatResult, ModelCancelled, ModelClient, ModelError
from cockpit.core.page import effects
from cockpit.core.page.observation import Observation
from cockpit.core.safety import redaction
from cockpit.core.store import Store
from cockpit.core.tasks.hops import HopTracker

log = logging.getLogger(__name__)


class Agent:
    def __init__(self, session: BrowserSession, client: ModelClient, store: Store, *,
                 config: AgentConfig | None = None, approver: Approver | None = None,
                 control: RunControl | None = None, listener: Callable[[ev.Event], None] | None = None):
        self.session = session
        self.client = client
        self.store = store
        self.config = config or AgentConfig()
        self.approver = approver or PolicyApprover(False)
        self.control = control or RunControl()
        self.listener = listener
        self.executor = Executor(session, wait_seconds=self.config.wait_seconds,
                                 dialog_policy=self.config.dialog_policy)
        self._flags: dict[int, list[str]] = {}
        self.loops = effects.LoopWatch()
        self.numbering = Numbering()  # the run's step numbers, the agent's and a person's
        self.protocol = protocol_for(client)  # marks, or a pixel dialect (cockpit.core.agent.protocol)
        self.images = StepImages(store, self.protocol, self.config.keep_images)  # the steps' screenshots
        self.conversation = None
        self.scope = RunScope(  # what the step hooks may use
            config=self.config, store=store, client=client, executor=self.executor, control=self.control,
            loops=self.loops, emit=self._emit, flag=self._flag, call_model=self._call_model,
            image=self.images.get)
        self.hooks: list[StepHook] = []  # the current run's (cockpit.core.agent.hooks), filled as it opens
        self.record = RunRecord(self.scope, session, self._flags)  # the steps and the end, in the store
        # the step's phases, each with its own collaborators
        self.points = Points(self.protocol, self.executor, session)  # what a point hits; how points are told
        self.observer = Observer(session, self.scope, self.images, self.hooks, self._flags)
        self.replies = Replies(self.protocol, self.scope, self.points)
        self.gate = Gate(self.scope, self.approver, self.hooks, self.points)
        self.acting = Acting(session, self.scope, self.observer, self.points)
        self.takeover = TakeOver(self.scope, self.observer, self.acting, self.points, self.record, self.numbering)

    @classmethod
    def within(cls, ctx: RunContext, config: AgentConfig | None = None) -> "Agent":
        """An agent working with the run's collaborators in `ctx` (its on_replay and on_agent are the
        caller's)."""
        return cls(ctx.session, ctx.client, ctx.store, config=config, approver=ctx.approver,
                   control=ctx.control, listener=ctx.listener)

    @property
    def run_id(self) -> str:
        """The current (or last) run's id; "" before the first."""
        return self.scope.run_id

    @property
    def hops(self) -> HopTracker | None:
        """The current run's hop tracker, when its task has hops (cockpit.core.tasks.hops)."""
        return next((h.tracker for h in self.hooks if isinstance(h, Multihop)), None)

    # ---------- public ----------
    def run(self, start: Start) -> RunResult:
        """Run `start` to its end: a :class:`Fresh` task, a :class:`Branch` of a recorded run (it replays
        the parent's steps in its prelude and goes on with the parent's conversation) or a :class:`Resume`
        of an interrupted run (:mod:`cockpit.core.replay.resume`); see :mod:`cockpit.core.agent.start`."""
        self.hooks[:] = for_run(self.scope)  # the list the phases hold
        self.executor.risk_rules = self.config.risk_rules
        self.scope.run_id = self.record.open(start, self.hooks)
        self._emit(ev.RunStarted(self.run_id, start.task, start.url, self.config.max_steps,
                                 getattr(start, "task_id", "") or ""))
        self.numbering.next_n = start.first_step if isinstance(start, Resume) else 1
        step: Step | None = None
        try:
            conv, lead = self._begin(start)
            pdf_text = ""
            for _ in range(self.config.max_steps):  # the agent's budget; human steps do not count
                for h in self.hooks:
                    h.step_due(self.numbering.next_n)
                self.control.wait_turn(on_pause=lambda: self._emit(ev.RunPaused(self.run_id, self.numbering.next_n)))

                step = Step(self.numbering.take(), time.time())
                lead, pdf_text, answer = self._step(step, conv, self.takeover.with_notes(lead), pdf_text)
                step = None
                if answer is not None:
                    return self._finish("answered", answer)
            return self._finish("max_steps", None)

        except (Stopped, ModelCancelled):
            self.replies.cut_off(step)  # a reply Stop cut short: the text so far is kept
            self.record.commit_partial(step, "stopped", "stopped by the user")
            return self._finish("stopped", None)
        except CockpitError as e:  # the model, the browser, the store: the step is kept as far as it got
            self.record.commit_partial(step, "failed", str(e))
            return self.record.fail(str(e), lost_browser=isinstance(e, BrowserDied))
        except Exception as e:  # a bug: keep the run's record honest, and the traceback in the log
            log.exception("run %s failed", self.run_id)
            return self.record.fail(f"internal error: {type(e).__name__}: {short_message(e)}")
        finally:
            self.control.cancel_jobs()
            for h in self.hooks:
                h.ended()

    def _begin(self, start: Start) -> tuple[prompt.Conversation, str]:
        """Before the first step: the hooks, the start page (or the prelude), the conversation, the lead."""
        for h in self.hooks:
            h.started(start)

        continued = not isinstance(start, Fresh)
        if continued and start.prelude is not None:
            start.prelude()
        else:  # Stop while it loads ends the load (it may hang for the page-load timeout): stopped, not failed
            with self.control.calling_off(lambda: stop_loading(self.session)):
                try:
                    open_start(self.session, start.url)
                except BrowserError:
                    self.control.check_stop()  # it failed because Stop ended its load
                    raise
            self.control.check_stop()

        seed, lead = (start.seed, start.lead) if continued else (None, None)
        conv = self.conversation = self.gate.conversation = self.protocol.conversation(
            self.config.keep_images, self.points.first_frame())
        if seed:
            conv.seed(seed)
        lead = prompt.task_text(start.task, start.url) if lead is None else lead
        if not seed:  # a branch's seed already has what the hooks add (e.g. memories)
            for h in self.hooks:
                lead = h.first_prompt(lead)
        return conv, lead

    def _finish(self, status: str, answer: str | None) -> RunResult:
        return self.record.finish(status, answer, self.numbering.next_n - 1)

    def _flag(self, n: int, text: str) -> None:
        self._flags.setdefault(n, []).append(text)

    # ---------- one step: observe, ask, gate, act, commit ----------
    def _step(self, st: Step, conv: prompt.Conversation, lead: str, pdf_text: str):
        """One step: returns (the text before the next observation, a PDF's text, the answer or None)."""
        n = st.n
        self._emit(ev.StepStarted(self.run_id, n))
        t0 = time.perf_counter()

        # observe
        self.observer.look(st)
        note = observing.page_note(self.session, st.obs)
        conv.add_observation(n, self.protocol.observation_text(st.obs, pdf_text, note), lead=lead)
        st.request = conv.request()
        self.control.check_stop()
        t1 = time.perf_counter()

        # ask (a hook may answer instead, e.g. planning with its chosen candidate)
        result = next((r for h in self.hooks if (r := h.ask(st)) is not None), None)
        if result is None:
            result = self._call_model(n, st.request, st)
        t2 = time.perf_counter()
        action = self.replies.read(st, conv, result)
        for h in self.hooks:
            h.replied(st, action)

        # gate and act
        answer, next_lead, pdf = None, "", ""
        if action is None:
            next_lead = (st.record.pointer or {}).get("told") or st.record.error
        else:
            answer, next_lead, pdf = self._act(st, action)
        t3 = time.perf_counter()

        # commit
        st.write(timings=dict(st.record.timings or {}, **st.obs.timings, observe_ms=(t1 - t0) * 1000,
                              model_ms=(t2 - t1) * 1000, act_ms=(t3 - t2) * 1000,
                              observe={k: st.obs.stats.get(k) for k in ("retries", "changing", "masked")
                                       if k != "masked" or st.obs.stats.get(k)}))
        for h in self.hooks:
            h.committing(st, answer)
        self.record.commit(st)
        st.record.timings["store_ms"] = (time.perf_counter() - t3) * 1000
        self._emit(ev.StepFinished(self.run_id, n, st.record.status, time.time() - st.started,
                                   error=st.record.error or ""))
        return next_lead, pdf, answer

    def _call_model(self, n: int, request: list, st: Step | None = None) -> ChatResult:
        """The model's reply to `request`; the step's own ask (`st` given) is streamed as it is written."""
        def retrying(attempt: int, wait: float, why: str) -> None:
            self._emit(ev.ModelCalled(self.run_id, n, attempt + 1, f"retrying in {wait:.0f} s ({why})"))

        watch = {} if st is None else {"on_delta": lambda partial: self.replies.streaming(st, partial)}
        while True:
            try:
                return self.protocol.call(request, self.images.image, cancel=self.control.stop_event,
                                          on_retry=retrying, **watch)
            except ModelError as e:
                if e.reason == "empty-reply":
                    # No action in an empty reply: like WebVoyager, format feedback and a spent step.
                    return e.result or ChatResult(text="", model=self.client.config.model, prompt_tokens=0,
                                                  completion_tokens=0, cost=None, seconds=0.0,
                                                  attempts=e.attempts or 1, finish_reason=None)
                if not any(h.model_failed(n, e) for h in self.hooks):  # e.g. a breakpoint: resuming retries
                    raise

    def _act(self, st: Step, action: Action):
        """Gate and execute one action; returns (answer, feedback for the next turn, pdf text)."""
        gate = self.gate
        risk = gate.rate(st, action)
        gate.propose(st, action, risk)

        approved = None  # the exact action and target a human approved (issue #17)
        if gate.must_ask(st, action, risk):
            decision = gate.ask(st, action, risk)
            self.control.check_stop()
            if st.record.decision.get("took_over"):  # a person took the browser over: not run, not judged
                st.write(status="refused", outcome=f"rejected: {TOOK_OVER}")
                return None, prompt.feedback_text(taken_over=True), ""
            if not decision.approved:
                st.write(status="refused", outcome=refused_outcome(decision))  # who refused, and why
                return None, prompt.feedback_text(refused=decision.message or " ", by=decision.by), ""
            action, approved = gate.approve(st, action, decision)

        if action.kind == "answer":
            st.write(status="answered", outcome="answered")
            self._emit(ev.ActionExecuted(self.run_id, st.n, st.record.action, True, "answered", st.obs.url))
            return redaction.scrub(action.text, self.executor.secrets), "", ""
        answer, lead, pdf = self.acting.execute(st, action, approved=approved)
        return answer, redaction.with_note(lead, action, st.obs.marks), pdf

    # ---------- a person's hands (cockpit.core.agent.takeover), here for the window and scripts ----------
    @property
    def last_obs(self) -> Observation | None:
        """What the agent saw last: what a person acting during a take-over sees."""
        return self.observer.last_obs

    def take_over(self, by: str = "human") -> Future:
        """See :meth:`TakeOver.take_over`."""
        return self.takeover.take_over(by)

    def look_now(self) -> Future:
        """See :meth:`TakeOver.look_now`."""
        return self.takeover.look_now()

    def human_act(self, action: Action) -> Future:
        """See :meth:`TakeOver.human_act`."""
        return self.takeover.human_act(action)

    def hand_back(self, note: str = "") -> None:
        """See :meth:`TakeOver.hand_back`."""
        self.takeover.hand_back(note)

    def _emit(self, event: ev.Event) -> None:
        if self.listener is None:
            return
        try:
            self.listener(event)
        except Exception:  # a broken listener must not break the run
            log.exception("event listener failed on %s", type(event).__name__)
