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
from typing import Callable

from cockpit.core.actions.grammar import Action
from cockpit.core.agent import events as ev
from cockpit.core.agent import gate, observing, pixelstep, reply
from cockpit.core.agent.approval import Approver, PolicyApprover, refused_outcome
from cockpit.core.agent.config import AgentConfig, RunResult
from cockpit.core.agent.control import RunControl, Stopped
from cockpit.core.agent.execute import ActionOutcome, Executor, TargetChanged
from cockpit.core.agent.hooks import for_run
from cockpit.core.agent.hooks.base import RunScope, StepHook
from cockpit.core.agent.hooks.multihop import Multihop
from cockpit.core.agent.protocol import protocol_for
from cockpit.core.agent.record import RunRecord
from cockpit.core.agent.start import Fresh, Resume, RunContext, Start, open_start
from cockpit.core.agent.step import Step
from cockpit.core.agent.stepimages import StepImages
from cockpit.core.agent.takeover import TakeOver
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import ActionError, BrowserDied, CockpitError, short_message
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ChatResult, ModelCancelled, ModelClient, ModelError
from cockpit.core.page import effects
from cockpit.core.page.observation import Observation
from cockpit.core.safety import redaction
from cockpit.core.safety.binding import Binding
from cockpit.core.store import Store
from cockpit.core.tasks.hops import HopTracker

log = logging.getLogger(__name__)


class Agent(TakeOver):
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
        self.last_obs: Observation | None = None  # what a human acting during a take-over sees
        self._human_notes: list[str] = []  # what the human did or said, for the agent's next prompt
        self._acted: tuple[int, Observation] | None = None  # the last step whose action ran, and what it saw
        self._flags: dict[int, list[str]] = {}
        self.loops = effects.LoopWatch()
        self._next_n = 1
        self.protocol = protocol_for(client)  # marks, or a pixel dialect (cockpit.core.agent.protocol)
        self.images = StepImages(store, self.protocol, self.config.keep_images)  # the steps' screenshots
        self.conversation = None
        self.scope = RunScope(  # what the step hooks may use
            config=self.config, store=store, client=client, executor=self.executor, control=self.control,
            loops=self.loops, emit=self._emit, flag=self._flag, call_model=self._call_model,
            image=self.images.get)
        self.hooks: list[StepHook] = []  # the current run's (cockpit.core.agent.hooks)
        self.record = RunRecord(self.scope, session, self._flags)  # the steps and the end, in the store

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
        self.hooks = for_run(self.scope)
        self.executor.risk_rules = self.config.risk_rules
        self.scope.run_id = self.record.open(start, self.hooks)
        self._emit(ev.RunStarted(self.run_id, start.task, start.url, self.config.max_steps,
                                 getattr(start, "task_id", "") or ""))
        self._next_n = start.first_step if isinstance(start, Resume) else 1
        step: Step | None = None
        try:
            conv, lead = self._begin(start)
            pdf_text = ""
            for _ in range(self.config.max_steps):  # the agent's budget; human steps do not count
                for h in self.hooks:
                    h.step_due(self._next_n)
                self.control.wait_turn(on_pause=lambda: self._emit(ev.RunPaused(self.run_id, self._next_n)))

                step = Step(self._take_n(), time.time())
                lead, pdf_text, answer = self._step(step, conv, self._with_human_notes(lead), pdf_text)
                step = None
                if answer is not None:
                    return self._finish("answered", answer)
            return self._finish("max_steps", None)

        except (Stopped, ModelCancelled):
            reply.cut_off(self, step)  # a reply Stop cut short: the text so far is kept
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
        else:
            open_start(self.session, start.url)

        seed, lead = (start.seed, start.lead) if continued else (None, None)
        conv = self.conversation = self.protocol.conversation(self.config.keep_images, pixelstep.first_frame(self))
        if seed:
            conv.seed(seed)
        lead = prompt.task_text(start.task, start.url) if lead is None else lead
        if not seed:  # a branch's seed already has what the hooks add (e.g. memories)
            for h in self.hooks:
                lead = h.first_prompt(lead)
        return conv, lead

    def _finish(self, status: str, answer: str | None) -> RunResult:
        return self.record.finish(status, answer, self._next_n - 1)

    def _take_n(self) -> int:
        n, self._next_n = self._next_n, self._next_n + 1
        return n

    def _flag(self, n: int, text: str) -> None:
        self._flags.setdefault(n, []).append(text)

    # ---------- one step: observe, ask, gate, act, commit ----------
    def _step(self, st: Step, conv: prompt.Conversation, lead: str, pdf_text: str):
        """One step: returns (the text before the next observation, a PDF's text, the answer or None)."""
        n = st.n
        self._emit(ev.StepStarted(self.run_id, n))
        t0 = time.perf_counter()

        # observe
        observing.look(self, st)
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
        action = reply.read(self, st, conv, result)
        for h in self.hooks:
            h.replied(st, action)

        # gate and act
        answer, next_lead, pdf = None, "", ""
        if action is None:
            next_lead = (st.row.get("pointer") or {}).get("told") or st.row["error"]
        else:
            answer, next_lead, pdf = self._act(st, action)
        t3 = time.perf_counter()

        # commit
        st.row["timings"] = dict(st.row.get("timings") or {}, **st.obs.timings, observe_ms=(t1 - t0) * 1000,
                                 model_ms=(t2 - t1) * 1000, act_ms=(t3 - t2) * 1000,
                                 observe={k: st.obs.stats.get(k) for k in ("retries", "changing", "masked")
                                          if k != "masked" or st.obs.stats.get(k)})
        for h in self.hooks:
            h.committing(st, answer)
        self.record.commit(st)
        st.row["timings"]["store_ms"] = (time.perf_counter() - t3) * 1000
        self._emit(ev.StepFinished(self.run_id, n, st.row["status"], time.time() - st.started,
                                   error=st.row.get("error") or ""))
        return next_lead, pdf, answer

    def measure(self, obs: Observation) -> None:
        """The effect of the last action that ran, now that the page after it is observed."""
        if self._acted is None:
            return
        n, before = self._acted
        self._acted = None
        try:
            eff = effects.effect(before.url, before.marks, before.thumb or before.screenshot,
                                 obs.url, obs.marks, obs.thumb or obs.screenshot)
        except (OSError, ValueError):
            return
        if self.loops.effect(eff) and eff.noop:
            self._flag(n, "noop")
        effect = eff.to_dict()  # read, never changed, by the store, the hooks and the event
        self.store.update_step(self.run_id, n, effect=effect, flags=self._flags.get(n, []))
        for h in self.hooks:  # e.g. what really changed, beside the prediction
            h.measured(n, before, obs, effect)
        self._emit(ev.EffectMeasured(self.run_id, n, effect, tuple(self._flags.get(n, []))))

    def _call_model(self, n: int, request: list, st: Step | None = None) -> ChatResult:
        """The model's reply to `request`; the step's own ask (`st` given) is streamed as it is written."""
        def retrying(attempt: int, wait: float, why: str) -> None:
            self._emit(ev.ModelCalled(self.run_id, n, attempt + 1, f"retrying in {wait:.0f} s ({why})"))

        watch = {} if st is None else {"on_delta": lambda partial: reply.streaming(self, st, partial)}
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
        mark = st.resolved if action.pixel else redaction.mark_of(action, st.obs.marks)
        risk = gate.rate(self, st, action, mark)
        gate.propose(self, st, action, mark, risk)

        approved = None  # the exact action and target a human approved (issue #17)
        if gate.must_ask(self, st, action, risk):
            decision = gate.ask(self, st, action, mark, risk)
            self.control.check_stop()
            if st.row["decision"].get("took_over"):  # a person took the browser over: not run, not judged
                st.row.update(status="refused", outcome=f"rejected: {gate.TOOK_OVER}")
                return None, prompt.feedback_text(taken_over=True), ""
            if not decision.approved:
                st.row.update(status="refused", outcome=refused_outcome(decision))  # who refused, and why
                return None, prompt.feedback_text(refused=decision.message or " ", by=decision.by), ""
            action, approved = gate.approve(self, st, action, decision)

        if action.kind == "answer":
            st.row.update(status="answered", outcome="answered")
            self._emit(ev.ActionExecuted(self.run_id, st.n, st.row["action"], True, "answered", st.obs.url))
            return redaction.scrub(action.text, self.executor.secrets), "", ""
        answer, lead, pdf = self._execute(st, action, approved=approved)
        return answer, redaction.with_note(lead, action, st.obs.marks), pdf

    def _execute(self, st: Step, action: Action, actor: str = "agent", approved: Binding | None = None):
        shown = st.row["action"]  # the action as recorded (secrets masked), set by the caller
        try:
            seen = st.resolved if action.pixel else None
            out: ActionOutcome = self.executor.run(action, st.obs.marks, press_enter=st.press_enter,
                                                   approved=approved, seen=seen, voice=pixelstep.voice(self, st),
                                                   document=st.obs.document)
        except ActionError as e:  # "changed": the approved target is not what was approved; nothing was done
            changed = isinstance(e, TargetChanged)
            st.row.update(status="changed" if changed else "error", error=str(e), url_after=self.session.url,
                          **({"outcome": f"not done: {e}"} if changed else {}))
            self._emit(ev.ActionExecuted(self.run_id, st.n, shown, False, str(e), st.row["url_after"],
                                         actor=actor))
            return None, prompt.feedback_text(error=pixelstep.told(st, str(e), e.for_model)), ""
        st.row.update(status="ok", outcome=out.message, url_after=out.url_after)
        if out.settle:  # how long the page took to settle, and what was still pending if it did not
            st.row["timings"] = {"settle": out.settle, "settle_ms": out.settle.get("waited_ms") or 0.0}
        self._acted = (st.n, st.obs)
        self._emit(ev.ActionExecuted(self.run_id, st.n, shown, True, out.message, out.url_after, out.seconds,
                                     actor=actor))
        return None, prompt.feedback_text(outcome=pixelstep.told(st, out.message, out.for_model)), out.pdf_text

    def _emit(self, event: ev.Event) -> None:
        if self.listener is None:
            return
        try:
            self.listener(event)
        except Exception:  # a broken listener must not break the run
            log.exception("event listener failed on %s", type(event).__name__)
