"""The agent loop: observe, ask the model, check, maybe ask a human, act, record.

One :class:`Agent` runs one task at a time in one browser session, on the
calling thread (a worker thread in the window). It reports through a listener
of small events and obeys a :class:`RunControl`. Every step is written to the
store before the next begins. The loop never decides approvals itself: the
risk classifier flags, the policy says whether to ask, the approver answers.
"""
from __future__ import annotations

import logging
import re
import time
from typing import Callable

from selenium.common.exceptions import WebDriverException

from cockpit.core.llm import prompt
from cockpit.core.agent.execute import ActionOutcome, Executor, TargetChanged
from cockpit.core.actions.grammar import Action
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import ActionError, BrowserDied, BrowserError, CockpitError, short_message
from cockpit.core.tasks.hops import HopTracker
from cockpit.core.llm.client import ChatResult, ModelCancelled, ModelClient, ModelError
from cockpit.core.page.observation import Observation, observe
from cockpit.core.safety.binding import Binding
from cockpit.core.safety.risk import Risk, classify
from cockpit.core.store import Store
from cockpit.core.agent import events as ev
from cockpit.core.safety import redaction
from cockpit.core.page import effects
from cockpit.core.safety import navguard
from cockpit.core.agent.breakpoints import first, on_action
from cockpit.core.agent.state_checks import run_state_checks
from cockpit.core.agent.approval import (ApprovalRequest, Approver, Decision, PolicyApprover, ended_at_gate,
                                         needs_approval)
from cockpit.core.agent.config import AgentConfig, RunResult  # noqa: F401 (RunResult: imported from here too)
from cockpit.core.agent.control import RunControl, Stopped
from cockpit.core.agent.lookahead import Host, Lookahead
from cockpit.core.agent.start import Fresh, Resume, RunContext, Start, new_run_record, run_setup
from cockpit.core.agent.step import Step
from cockpit.core.agent.stepimages import StepImages
from cockpit.core.agent.takeover import TakeOver
from cockpit.core.agent.hopsmemory import HopsAndMemory
from cockpit.core.agent import pixelstep
from cockpit.core.agent.protocol import protocol_for

log = logging.getLogger(__name__)




class Agent(TakeOver, HopsAndMemory):
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
        self.run_id = ""
        self._last_obs: Observation | None = None  # what a human acting during a take-over sees
        self._human_notes: list[str] = []  # what the human did or said, for the agent's next prompt
        self._acted: tuple[int, Observation] | None = None  # the last step whose action ran, and what it saw
        self._flags: dict[int, list[str]] = {}
        self.loops = effects.LoopWatch()
        self._next_n = 1
        self.hops: HopTracker | None = None  # hook: multihop; the current run's tracker
        self.look: Lookahead | None = None  # hook: preview + planning; the current run's
        self.protocol = protocol_for(client)  # marks, or a pixel dialect (cockpit.core.agent.protocol)
        self.images = StepImages(store, self.protocol, self.config.keep_images)  # the steps' screenshots
        self._conv = None

    @classmethod
    def within(cls, ctx: RunContext, config: AgentConfig | None = None) -> "Agent":
        """An agent working with the run's collaborators in `ctx` (its on_replay and on_agent are the caller's)."""
        return cls(ctx.session, ctx.client, ctx.store, config=config, approver=ctx.approver, control=ctx.control,
                   listener=ctx.listener)

    # ---------- public ----------
    def run(self, start: Start) -> RunResult:
        """Run `start` to its end: a :class:`Fresh` task, a :class:`Branch` of a recorded run (it replays
        the parent's steps in its prelude and goes on with the parent's conversation) or a :class:`Resume`
        of an interrupted run (:mod:`cockpit.core.replay.resume`); see :mod:`cockpit.core.agent.start`."""
        self.run_id = self._open_run(start)
        self._emit(ev.RunStarted(self.run_id, start.task, start.url, self.config.max_steps))
        self._next_n = start.first_step if isinstance(start, Resume) else 1
        step: Step | None = None
        try:
            conv, lead = self._begin(start)
            pdf_text = ""
            for _ in range(self.config.max_steps):  # the agent's budget; human steps do not count
                if first(self.config.breakpoints, "step", self._next_n):
                    self._break(self._next_n, f"step {self._next_n}")
                self.control.wait_turn(on_pause=lambda: self._emit(ev.RunPaused(self.run_id, self._next_n)))
                step = Step(self._take_n(), time.time())
                lead, pdf_text, answer = self._step(step, conv, self._with_human_notes(lead), pdf_text)
                step = None
                if answer is not None:
                    return self._finish("answered", answer)
            return self._finish("max_steps", None)
        except (Stopped, ModelCancelled):
            self._commit_partial(step, "stopped", "stopped by the user")
            return self._finish("stopped", None)
        except CockpitError as e:  # the model, the browser, the store: the step is kept as far as it got
            self._commit_partial(step, "failed", str(e))
            return self._fail(str(e), lost_browser=isinstance(e, BrowserDied))
        except Exception as e:  # a bug: keep the run's record honest, and the traceback in the log
            log.exception("run %s failed", self.run_id)
            return self._fail(f"internal error: {type(e).__name__}: {short_message(e)}")
        finally:
            self.control.cancel_jobs()
            if self.look is not None:  # hook: preview + planning
                self.look.close()

    def _open_run(self, start: Start) -> str:
        """The run's id: a new run in the store, with the settings it runs under, or the resumed one."""
        mc = self.client.config
        config = {"model": mc.to_dict(), "agent": self.config.to_dict()}
        self.executor.nav = navguard.policy_for(start.url, self.config.allowed_domains,  # hook: navguard
                                                start.task_extra)
        self.executor.risk_rules = self.config.risk_rules
        config["navigation"] = self.executor.nav.to_dict()
        if start.task_extra:
            config["task_extra"] = start.task_extra
        config.update(run_setup(start, self.session))
        self._run_config = config  # the run's own, read again as it ends (WebArena's state checks)
        if isinstance(start, Resume):
            self._run_config = self.store.run(start.run_id).get("config") or config
            return start.run_id
        return self.store.new_run(new_run_record(start, config, model=mc.model, base_url=mc.base_url or "",
                                                 approval_policy=self.config.approval_policy, demo=self.config.demo))

    def _begin(self, start: Start) -> tuple[prompt.Conversation, str]:
        """Before the first step: the hooks, the start page (or the prelude), the conversation and the lead."""
        self._hops_start(resuming=isinstance(start, Resume))  # hook: multihop
        self.look = Lookahead.start(self._lookahead_host(), start.task)  # hook: preview + planning
        continued = not isinstance(start, Fresh)
        if continued and start.prelude is not None:
            start.prelude()
        else:
            self._open_start(start.url)
        seed, lead = (start.seed, start.lead) if continued else (None, None)
        conv = self._conv = self.protocol.conversation(self.config.keep_images, pixelstep.first_frame(self))
        if seed:
            conv.seed(seed)
        lead = prompt.task_text(start.task, start.url) if lead is None else lead
        if self.config.memory_k > 0 and not seed:  # hook: memory (a branch's seed already has it)
            lead = self._recall(start.task, lead)
        return conv, lead

    def _lookahead_host(self) -> Host:
        """What the run's look-ahead may use of this agent."""
        return Host(self.client, self.store, self.run_id, self.config.preview, self.config.planning,
                    self.config.risk_rules, self.control.stop_event, self.executor.secrets, self._call_model,
                    self._emit, self.images.get)

    def _take_n(self) -> int:
        n, self._next_n = self._next_n, self._next_n + 1
        return n

    def _hidden(self, obs: Observation) -> Observation:
        """`obs` with secrets typed so far taken out of its address and title (a GET form puts a typed
        password into the next page's address), once, before the prompt, events, previews or the store
        see them."""
        if self.executor.secrets:
            obs.url, obs.title = (redaction.scrub(x, self.executor.secrets) for x in (obs.url, obs.title))
        return obs

    # ---------- one step ----------
    def _step(self, st: Step, conv: prompt.Conversation, lead: str, pdf_text: str):
        n = st.n
        self._emit(ev.StepStarted(self.run_id, n))
        t0 = time.perf_counter()
        self._observe(st)
        note = self._page_note(st.obs)
        conv.add_observation(n, self.protocol.observation_text(st.obs, pdf_text, note), lead=lead)
        st.request = conv.request()
        self.control.check_stop()
        t1 = time.perf_counter()
        result = (self.look.plan(st) if self.look and self.look.planning  # hook: planning
                  else self._call_model(n, st.request))
        t2 = time.perf_counter()
        parsed, pointer = self.protocol.parse(result)
        hidden = pixelstep.resolve(self, st, parsed, pointer)  # a pixel action: what is under its point
        # Text typed into a password or card field reaches the page, never the record or the history.
        hide = self.executor.secrets | {redaction.typed_secret(parsed.action, st.obs.marks), hidden}
        reply, thought, action_text = (redaction.scrub(x, hide) for x in (self.protocol.recorded_reply(result),
                                                                          parsed.thought, parsed.action_text))
        pixelstep.scrub(st, hide)
        self.protocol.add_reply(conv, reply, result, pointer, hide)
        st.row.update(reply=reply, thought=thought, action_text=action_text,
                      prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens,
                      cost=result.cost, model_seconds=result.seconds, attempts=result.attempts)
        self._emit(ev.ModelReplied(self.run_id, n, reply, thought, action_text,
                                   result.prompt_tokens, result.completion_tokens, result.cost, result.seconds))
        answer, next_lead, pdf = None, "", ""
        if parsed.action is None:
            st.row.update(status="format_error", error=parsed.error)
            next_lead = parsed.error
            if first(self.config.breakpoints, "unparsable"):
                self._break(n, "unparsable reply")
        else:
            answer, next_lead, pdf = self._act(st, parsed.action)
        t3 = time.perf_counter()
        st.row["timings"] = dict(st.row.get("timings") or {}, **st.obs.timings, observe_ms=(t1 - t0) * 1000,
                                 model_ms=(t2 - t1) * 1000, act_ms=(t3 - t2) * 1000,
                                 observe={k: st.obs.stats.get(k) for k in ("retries", "changing", "masked")
                                          if k != "masked" or st.obs.stats.get(k)})
        self._hops_update(st, answer)  # hook: multihop
        self._commit(st)
        st.row["timings"]["store_ms"] = (time.perf_counter() - t3) * 1000
        self._emit(ev.StepFinished(self.run_id, n, st.row["status"], time.time() - st.started))
        return next_lead, pdf, answer

    def _break(self, n: int, reason: str, *, wait: bool = False) -> None:
        """A breakpoint hit: pause, say why, and (inside a step) wait for the human."""
        self._flags.setdefault(n, []).append(f"breakpoint: {reason}")
        self._emit(ev.BreakpointHit(self.run_id, n, reason))
        self.control.pause()
        if wait:
            self.control.wait_turn(on_pause=lambda: self._emit(ev.RunPaused(self.run_id, n, between_steps=False)))

    def _measure(self, obs: Observation) -> None:
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
            self._flags.setdefault(n, []).append("noop")
        self.store.update_step(self.run_id, n, effect=eff.to_dict(), flags=self._flags.get(n, []))
        if self.look is not None:  # hook: preview; what really changed, beside the prediction
            self.look.measured(n, before, obs, eff.to_dict())
        self._emit(ev.EffectMeasured(self.run_id, n, eff.to_dict(), tuple(self._flags.get(n, []))))

    def _call_model(self, n: int, request: list) -> ChatResult:
        while True:
            try:
                return self.protocol.call(request, self.images.image, cancel=self.control.stop_event,
                                          on_retry=lambda a, w, why: self._emit(
                                              ev.ModelCalled(self.run_id, n, a + 1, f"retrying in {w:.0f} s ({why})")))
            except ModelError as e:
                if e.reason == "empty-reply":
                    # No action in an empty reply: like WebVoyager, format feedback and a spent step.
                    return e.result or ChatResult(text="", model=self.client.config.model, prompt_tokens=0,
                                      completion_tokens=0, cost=None, seconds=0.0, attempts=e.attempts or 1,
                                      finish_reason=None)
                if first(self.config.breakpoints, "model_error") is None:
                    raise
                self._break(n, f"model error: {e}", wait=True)  # resuming tries the call again

    def _observe(self, st: Step) -> None:
        fmt, width = self.client.config.image_format, self.client.config.image_max_width
        obs = self._hidden(observe(self.session, image_format=fmt, max_width=width))
        st.obs = obs
        self._last_obs = obs
        self._measure(obs)
        seen = self.images.record(self.run_id, st, obs)
        self._emit(ev.ObservationReady(self.run_id, st.n, obs.url, obs.title, str(self.store.file(seen)),
                                       tuple(obs.marks), dict(obs.timings), obs.screenshot,
                                       masked=obs.masked))

    def _page_note(self, obs: Observation) -> str:
        if not obs.url.startswith("chrome-error://"):
            return ""
        return f"The page failed to load ({self.session.load_error()}); go back or try another address."

    def _act(self, st: Step, action: Action):
        """Gate and execute one action; returns (answer, feedback for the next turn, pdf text)."""
        obs = st.obs
        mark = obs.marks[action.target - 1] if action.target and 0 < action.target <= len(obs.marks) else None
        if action.pixel:
            mark = st.resolved
        risk = pixelstep.rate(self, st, action) or classify(action, mark, obs.marks, obs.url, self.config.risk_rules)
        st.press_enter = True
        if action.kind == "type" and risk.level == "irreversible" and not action.pixel:
            # Enter could submit an order form: type without it rather than ask about every field.
            quiet = classify(action, mark, obs.marks, obs.url, self.config.risk_rules, enter_after_type=False)
            if quiet.level != "irreversible":
                risk, st.press_enter = quiet, False
        # A password or card field's text is not recorded (see redaction).
        shown = pixelstep.shown(self, st, action)
        st.row.update(action=shown, target=action.target, risk=risk.level, evidence=list(risk.evidence))
        self._emit(ev.ActionProposed(self.run_id, st.n, shown, action.target, risk.level, risk.evidence,
                                     st.row.get("pointer") if action.pixel else None))
        if self.look is not None:  # hook: preview (or the plan's simulation of this action)
            self.look.foresee(st, action)
        self._check_breakpoints(st, action, mark, risk)
        approved = None  # the exact action and target a human approved (issue #17)
        if needs_approval(self.config.approval_policy, risk, action) or pixelstep.must_ask(st):
            decision = self._ask(st, action, mark, risk)
            self.control.check_stop()
            if not decision.approved:
                st.row.update(status="refused", outcome="refused: " + (decision.message or "no message"))
                return None, prompt.feedback_text(refused=decision.message or " "), ""
            if decision.action is not None:
                action = decision.action
                pixelstep.edited(self, st, action)
                shown = pixelstep.shown(self, st, action)
                st.row.update(action=shown, target=action.target)
            n = action.target
            approved = Binding.of(action, st.resolved if action.pixel else
                                  obs.marks[n - 1] if n and 0 < n <= len(obs.marks) else None)
            pixelstep.acknowledge(self, st)
            st.row["decision"]["approved_target"] = dict(approved.to_dict(), action=st.row["action"])
        if action.kind == "answer":
            st.row.update(status="answered", outcome="answered")
            self._emit(ev.ActionExecuted(self.run_id, st.n, shown, True, "answered", obs.url))
            return redaction.scrub(action.text, self.executor.secrets), "", ""
        answer, lead, pdf = self._execute(st, action, approved=approved)
        return answer, redaction.with_note(lead, action, obs.marks), pdf

    def _check_breakpoints(self, st: Step, action: Action, mark, risk: Risk) -> None:
        if action.kind == "answer":
            return
        repeats = self.loops.action(effects.signature(st.obs.url, str(action), mark.label if mark else ""))
        if repeats > 1:
            self._flags.setdefault(st.n, []).append(f"repeated x{repeats}")
        if self.loops.looping:
            self._flags.setdefault(st.n, []).append("loop")
            if first(self.config.breakpoints, "loop"):
                why = (f"{action} {repeats} times on an unchanged page" if self.loops.same >= self.loops.repeats
                       else f"{self.loops.noops} actions in a row did nothing")
                self._break(st.n, f"loop: {why}", wait=True)
                self.control.check_stop()
                return
        bp = on_action(self.config.breakpoints, action=action, mark=mark, url=st.obs.url, risk_level=risk.level)
        if bp is not None:
            self._break(st.n, f"{bp.describe()}: {st.row['action']}", wait=True)  # as recorded: secrets masked
            self.control.check_stop()

    def _ask(self, st: Step, action: Action, mark, risk: Risk) -> Decision:
        obs = st.obs
        requested = time.time()
        shown = pixelstep.shown(self, st, action)
        self._emit(ev.ApprovalRequested(self.run_id, st.n, shown, action.target, risk.level, risk.evidence))
        req = ApprovalRequest(self.run_id, st.n, action, mark, risk, self.config.approval_policy, obs.url,
                              st.row.get("thought", ""), str(self.store.file(StepImages.files(st)["screenshot"])),
                              shown=shown)
        if self.look is not None:  # hook: preview + planning; the prediction and the candidates
            self.look.dress(req, st)
        decision = pixelstep.vet(st, self.approver.decide(req, self.control.stop_event))
        if self.look is not None:  # hook: planning; the human may pick another candidate
            decision = self.look.resolve(st, decision)
        edited = (redaction.shown(decision.action, obs.marks, self.executor.secrets)
                  if decision.action is not None else None)
        st.decision = {"action": shown, "target": action.target,
                       "target_mark": mark.to_dict() if mark else None, "risk": risk.level,
                       "evidence": list(risk.evidence), "policy": self.config.approval_policy,
                       "approved": int(decision.approved), "by": decision.by, "message": decision.message,
                       "edited_action": edited, "requested_at": requested, "decided_at": decision.decided_at}
        st.row["decision"] = {"approved": decision.approved, "by": decision.by, "message": decision.message,
                              "edited_action": edited}
        self._emit(ev.ApprovalDecided(self.run_id, st.n, decision.approved, decision.by, decision.message,
                                      edited or shown))
        return decision

    def _execute(self, st: Step, action: Action, actor: str = "agent", approved: Binding | None = None):
        shown = st.row["action"]  # the action as recorded (secrets masked), set by the caller
        try:
            out: ActionOutcome = self.executor.run(action, st.obs.marks, press_enter=st.press_enter,
                                                   approved=approved, seen=st.resolved if action.pixel else None)
        except ActionError as e:  # "changed": the approved target is not what was approved; nothing was done
            changed = isinstance(e, TargetChanged)
            st.row.update(status="changed" if changed else "error", error=str(e), url_after=self.session.url,
                          **({"outcome": f"not done: {e}"} if changed else {}))
            self._emit(ev.ActionExecuted(self.run_id, st.n, shown, False, str(e), st.row["url_after"],
                                         actor=actor))
            return None, prompt.feedback_text(error=str(e)), ""
        st.row.update(status="ok", outcome=out.message, url_after=out.url_after)
        if out.settle:  # how long the page took to settle, and what was still pending if it did not
            st.row["timings"] = {"settle": out.settle, "settle_ms": out.settle.get("waited_ms") or 0.0}
        self._acted = (st.n, st.obs)
        self._emit(ev.ActionExecuted(self.run_id, st.n, shown, True, out.message, out.url_after, out.seconds,
                                     actor=actor))
        return None, prompt.feedback_text(outcome=out.message), out.pdf_text

    # ---------- bookkeeping ----------
    def _open_start(self, url: str) -> None:
        try:
            self.session.goto(url)
        except WebDriverException as e:  # chromedriver raises on some network errors (refused, no such host)
            m = re.search(r"ERR_[A-Z_]+", str(e))
            raise BrowserError(f"could not open the start page {url}: {m.group(0) if m else short_message(e)}") from e
        if err := self.session.load_error():
            raise BrowserError(f"could not open the start page {url}: {err}")
        self.session.ensure_single_tab()

    def _commit(self, st: Step) -> None:
        obs = st.obs
        row = dict(st.row, step=st.n, started=st.started, finished=time.time(), request=st.request,
                   n_marks=len(obs.marks) if obs else 0, flags=self._flags.get(st.n) or None,
                   **StepImages.files(st))
        if obs:
            row.update(url=obs.url, title=obs.title)
        for k in ("url", "title", "url_after"):  # a GET form puts a typed password into the address
            if row.get(k):
                row[k] = redaction.scrub(row[k], self.executor.secrets)
        row.setdefault("status", "ok")
        self.store.commit_step(self.run_id, row, st.decision)

    def _commit_partial(self, st: Step | None, status: str, error: str) -> None:
        """The step in flight, as far as it got, so the user sees what the model was looking at."""
        if st is None or st.obs is None:
            return
        st.row.update(status=status, error=error)
        try:
            self._commit(st)
        except CockpitError:
            log.warning("could not record the interrupted step %d of %s", st.n, self.run_id)

    def _finish(self, status: str, answer: str | None) -> RunResult:
        status = ended_at_gate(status, self.store.decisions(self.run_id), self._next_n - 1)  # refused there
        if status != "stopped":  # the agent ended it: WebArena's state checks, on the page it left
            try:
                run_state_checks(self.session, self.store, self.run_id, self._run_config)
            except Exception:  # the run's own outcome is recorded whatever happens to its evaluation
                log.exception("WebArena state checks of %s failed", self.run_id)
        self.store.finish_run(self.run_id, status, answer=answer)
        n = self.store.run(self.run_id)["steps"]
        self._emit(ev.RunFinished(self.run_id, status, answer, n))
        return RunResult(self.run_id, status, answer, n)

    def _fail(self, error: str, lost_browser: bool = False) -> RunResult:
        try:
            self.store.finish_run(self.run_id, "failed", error=error)
            n = self.store.run(self.run_id)["steps"]
        except CockpitError:
            n = 0
        self._emit(ev.RunFailed(self.run_id, error, n))
        return RunResult(self.run_id, "failed", None, n, error, lost_browser)

    def _emit(self, event: ev.Event) -> None:
        if self.listener is None:
            return
        try:
            self.listener(event)
        except Exception:  # a broken listener must not break the run
            log.exception("event listener failed on %s", type(event).__name__)
