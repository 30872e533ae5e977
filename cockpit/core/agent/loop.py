"""The agent loop: observe, ask the model, check, maybe ask a human, act, record.

One :class:`Agent` runs one task at a time in one browser session, on the
calling thread (a worker thread in the window). It reports through a listener
of small events and obeys a :class:`RunControl`. Every step is written to the
store before the next begins. The loop never decides approvals itself: the
risk classifier flags, the policy says whether to ask, the approver answers.
"""
from __future__ import annotations

import json
import logging
import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

from selenium.common.exceptions import WebDriverException

from cockpit.core.llm import prompt
from cockpit.core.agent.execute import ActionOutcome, Executor
from cockpit.core.actions.grammar import Action
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import ActionError, BrowserError, CockpitError, short_message
from cockpit.core.tasks.hops import HopTracker
from cockpit.core.llm.client import ChatResult, ModelCancelled, ModelClient, ModelError
from cockpit.core.page.observation import Observation, observe
from cockpit.core.safety.risk import Risk, SiteRule, classify
from cockpit.core.store import Store
from cockpit.core.agent import events as ev
from cockpit.core.safety import redaction
from cockpit.core.page import effects, images
from cockpit.core.safety import navguard
from cockpit.core.agent.breakpoints import Breakpoint, first, on_action
from cockpit.core.agent.approval import (
    POLICIES,
    ApprovalRequest,
    Approver,
    Decision,
    PolicyApprover,
    needs_approval,
)
from cockpit.core.agent.control import RunControl, Stopped
from cockpit.core.agent.lookahead import Lookahead
from cockpit.core.lookahead.planning import PlanningConfig
from cockpit.core.lookahead.worldmodel import WorldModelConfig

log = logging.getLogger(__name__)


@dataclass
class AgentConfig:
    max_steps: int = 15
    keep_images: int = 3  # screenshots attached to each request (WebVoyager: 3)
    approval_policy: str = "irreversible"  # see approval.POLICIES
    wait_seconds: float = 5.0  # what the Wait action waits
    dialog_policy: str = "dismiss"
    risk_rules: list[SiteRule] = field(default_factory=list)
    demo: bool = False  # the model is Cockpit's rule-based demo policy
    breakpoints: list[Breakpoint] = field(default_factory=list)  # may be edited while the run goes
    # hook: multihop + memory (cockpit.core.tasks.hops / cockpit.core.review.memory)
    hops: HopTracker | None = None  # a template (hops.tracker_for(task.extra)); each run tracks a fresh copy
    memory_k: int = 0  # > 0: the K most similar past successful runs go into the first prompt
    allowed_domains: list[str] = field(default_factory=list)  # hook: navguard; empty = any host
    # hook: world-model preview and planning (cockpit.core.agent.lookahead)
    preview: WorldModelConfig | None = None  # predict each action's effect before the gate
    planning: PlanningConfig | None = None  # rank k candidates by simulated outcome (WebDreamer)

    def __post_init__(self):
        self.allowed_domains = list(navguard.parse_domains(self.allowed_domains))  # hook: navguard
        if self.approval_policy not in POLICIES:
            raise CockpitError(f"unknown approval policy {self.approval_policy!r}; use one of {', '.join(POLICIES)}")
        if self.max_steps < 1:
            raise CockpitError("max steps must be at least 1")

    def to_dict(self) -> dict:
        d = {"max_steps": self.max_steps, "keep_images": self.keep_images,
             "approval_policy": self.approval_policy, "wait_seconds": self.wait_seconds,
             "dialog_policy": self.dialog_policy, "risk_rules": len(self.risk_rules), "demo": self.demo}
        if self.memory_k:  # hook: memory
            d["memory_k"] = self.memory_k
        if self.allowed_domains:  # hook: navguard
            d["allowed_domains"] = list(self.allowed_domains)
        if self.preview is not None:  # hook: preview
            d["preview"] = self.preview.to_dict()
        if self.planning is not None:  # hook: planning
            d["planning"] = self.planning.to_dict()
        return d


@dataclass
class RunResult:
    run_id: str
    status: str  # answered, max_steps, stopped, failed
    answer: str | None = None
    steps: int = 0
    error: str = ""


# The marked PNG of each step is encoded (Pillow lets go of the GIL) and written here, off the step's path.
_step_files = ThreadPoolExecutor(max_workers=4, thread_name_prefix="step-files")


@dataclass
class _Step:
    """What one step gathered so far; becomes a store row."""
    n: int
    started: float
    obs: Observation | None = None
    files: dict = field(default_factory=dict)
    request: list = field(default_factory=list)
    row: dict = field(default_factory=dict)
    decision: dict | None = None
    press_enter: bool = True  # False: a Type whose Enter could submit an irreversible form
    marked_write: Future | None = None  # the marked PNG being encoded and written; see Agent._files()


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
        self.run_id = ""
        self._last_obs: Observation | None = None  # what a human acting during a take-over sees
        self._human_notes: list[str] = []  # what the human did or said, for the agent's next prompt
        self._acted: tuple[int, Observation] | None = None  # the last step whose action ran, and what it saw
        self._flags: dict[int, list[str]] = {}
        self.loops = effects.LoopWatch()
        self._next_n = 1
        self._images: dict[int, bytes] = {}  # recent marked screenshots, to attach without disk reads
        self._image_files: dict[int, str] = {}
        self.hops: HopTracker | None = None  # hook: multihop; the current run's tracker
        self.look: Lookahead | None = None  # hook: preview + planning; the current run's

    # ---------- public ----------
    def run(self, task: str, url: str, *, task_id: str = "", site: str = "", batch: str = "",
            parent_run: str | None = None, parent_step: int | None = None,
            task_extra: dict | None = None, prelude: Callable[[], None] | None = None,
            seed: list[dict] | None = None, lead: str | None = None,
            resume_run: str | None = None, first_step: int = 1) -> RunResult:
        """Run one task to its end.

        `task_extra` (the task file's other fields, e.g. a WebArena `eval` with
        reference answers) is kept with the run for judging. For a branch:
        `prelude` replaces opening the start URL (it replays the parent's steps
        in this session and raises CockpitError on divergence), `seed` is the
        parent's conversation so far (its screenshots become the omitted-note),
        and `lead` is the text before the first observation (default: the task).
        `resume_run` continues that existing run (cockpit.core.replay.resume) instead of
        creating one; its new steps are numbered from `first_step`.
        """
        mc = self.client.config
        config = {"model": mc.to_dict(), "agent": self.config.to_dict()}
        self.executor.nav = navguard.policy_for(url, self.config.allowed_domains, task_extra)  # hook: navguard
        self.executor.risk_rules = self.config.risk_rules
        config["navigation"] = self.executor.nav.to_dict()
        if task_extra:
            config["task_extra"] = task_extra
        self.run_id = resume_run or self.store.new_run(
            task, url, task_id=task_id, site=site, model=mc.model, base_url=mc.base_url or "",
            config=config,
            approval_policy=self.config.approval_policy, demo=self.config.demo, batch=batch,
            parent_run=parent_run, parent_step=parent_step)
        self._emit(ev.RunStarted(self.run_id, task, url, self.config.max_steps))
        self._next_n = first_step
        step: _Step | None = None
        try:
            self._hops_start(resuming=resume_run is not None)  # hook: multihop
            self.look = Lookahead.start(self, task)  # hook: preview + planning
            if prelude is not None:
                prelude()
            else:
                self._open_start(url)
            conv = prompt.Conversation(prompt.system_prompt(), self.config.keep_images)
            if seed:
                conv.seed(seed)
            lead, pdf_text = (prompt.task_text(task, url) if lead is None else lead), ""
            if self.config.memory_k > 0 and not seed:  # hook: memory (a branch's seed already has it)
                lead = self._recall(task, lead)
            for _ in range(self.config.max_steps):  # the agent's budget; human steps do not count
                if first(self.config.breakpoints, "step", self._next_n):
                    self._break(self._next_n, f"step {self._next_n}")
                self.control.wait_turn(on_pause=lambda: self._emit(ev.RunPaused(self.run_id, self._next_n)))
                step = _Step(self._take_n(), time.time())
                lead, pdf_text, answer = self._step(step, conv, self._with_human_notes(lead), pdf_text)
                step = None
                if answer is not None:
                    return self._finish("answered", answer)
            return self._finish("max_steps", None)
        except (Stopped, ModelCancelled):
            self._commit_partial(step, "stopped", "stopped by the user")
            return self._finish("stopped", None)
        except (ModelError, BrowserError) as e:
            self._commit_partial(step, "failed", str(e))
            return self._fail(str(e))
        except CockpitError as e:  # the store, say: the step is kept as far as it got, when the store lets us
            self._commit_partial(step, "failed", str(e))
            return self._fail(str(e))
        except Exception as e:  # a bug: keep the run's record honest, and the traceback in the log
            log.exception("run %s failed", self.run_id)
            return self._fail(f"internal error: {type(e).__name__}: {short_message(e)}")
        finally:
            self.control.cancel_jobs()
            if self.look is not None:  # hook: preview + planning
                self.look.close()

    def _take_n(self) -> int:
        n, self._next_n = self._next_n, self._next_n + 1
        return n

    # ---------- take-over: called from other threads, run on the loop's thread ----------
    def take_over(self) -> Future:
        """Pause at the next step boundary and look at the page afresh; resolves to the Observation."""
        self.control.pause()
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
        self.control.resume()

    def _hidden(self, obs: Observation) -> Observation:
        """`obs` with secrets typed so far taken out of its address and title (a GET form puts a typed
        password into the next page's address), once, before the prompt, events, previews or the store
        see them."""
        if self.executor.secrets:
            obs.url, obs.title = (redaction.scrub(x, self.executor.secrets) for x in (obs.url, obs.title))
        return obs

    def _refresh(self) -> Observation:
        obs = self._hidden(observe(self.session))
        self._last_obs = obs
        self._measure(obs)
        self._emit(ev.ObservationReady(self.run_id, self._next_n, obs.url, obs.title, "", tuple(obs.marks),
                                       dict(obs.timings), obs.screenshot, stored=False, masked=obs.masked))
        return obs

    def _human_step(self, action: Action) -> dict:
        obs = self._last_obs or self._refresh()
        st = _Step(self._take_n(), time.time(), obs=obs, press_enter=False)  # Enter only when asked: Press [Enter]
        self._emit(ev.StepStarted(self.run_id, st.n, actor="human"))
        st.files = self.store.write_step_files(self.run_id, st.n, screenshot=obs.screenshot, marked=obs.render(),
                                               marks=[m.to_dict() for m in obs.marks])
        mark = obs.marks[action.target - 1] if action.target and 0 < action.target <= len(obs.marks) else None
        risk = classify(action, mark, obs.marks, obs.url, self.config.risk_rules)
        shown = redaction.shown(action, obs.marks, self.executor.secrets)
        st.row.update(actor="human", action=shown, action_text=shown, target=action.target,
                      risk=risk.level, evidence=list(risk.evidence))
        _, _, _ = self._execute(st, action, actor="human")
        st.request = []
        self._commit(st)
        what = st.row.get("outcome") or f"failed: {st.row.get('error')}"
        self._human_notes.append(f"- {shown}: {what}")
        self._emit(ev.StepFinished(self.run_id, st.n, st.row["status"], time.time() - st.started, actor="human"))
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

    # ---------- one step ----------
    def _step(self, st: _Step, conv: prompt.Conversation, lead: str, pdf_text: str):
        n = st.n
        self._emit(ev.StepStarted(self.run_id, n))
        t0 = time.perf_counter()
        self._observe(st)
        note = self._page_note(st.obs)
        conv.add_observation(n, prompt.observation_text(st.obs.element_text, url=st.obs.url, title=st.obs.title,
                                                        pdf_text=pdf_text, note=note), lead=lead)
        st.request = conv.request()
        self.control.check_stop()
        t1 = time.perf_counter()
        result = (self.look.plan(self, st) if self.look and self.look.planning  # hook: planning
                  else self._call_model(n, st.request))
        t2 = time.perf_counter()
        parsed = prompt.parse_reply(result.text)
        # Text typed into a password or card field reaches the page, never the record or the history.
        hide = self.executor.secrets | {redaction.typed_secret(parsed.action, st.obs.marks)}
        reply, thought, action_text = (redaction.scrub(x, hide) for x in (result.text, parsed.thought,
                                                                          parsed.action_text))
        conv.add_reply(reply)
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
        st.row["timings"] = dict(st.obs.timings, observe_ms=(t1 - t0) * 1000, model_ms=(t2 - t1) * 1000,
                                 act_ms=(t3 - t2) * 1000)
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
            self.control.wait_turn(on_pause=lambda: self._emit(ev.RunPaused(self.run_id, n)))

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
            self.look.measured(self, n, before, obs, eff.to_dict())
        self._emit(ev.EffectMeasured(self.run_id, n, eff.to_dict(), tuple(self._flags.get(n, []))))

    def _call_model(self, n: int, request: list) -> ChatResult:
        while True:
            try:
                return self.client.chat(prompt.materialize(request, self._image), cancel=self.control.stop_event,
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

    def _observe(self, st: _Step) -> None:
        fmt, width = self.client.config.image_format, self.client.config.image_max_width
        obs = self._hidden(observe(self.session, image_format=fmt, max_width=width))
        st.obs = obs
        self._last_obs = obs
        self._measure(obs)
        # The clean PNG (Chrome's own bytes) and the marks are written now. The marked PNG kept for review is
        # encoded and written while the model is thinking; _files() waits for it before anything reads it.
        st.files = self.store.write_step_files(self.run_id, st.n, screenshot=obs.screenshot,
                                               marks=[m.to_dict() for m in obs.marks])
        st.marked_write = _step_files.submit(lambda: self.store.write_step_files(self.run_id, st.n,
                                                                                 marked=obs.render()))
        marked = self.store.step_file(self.run_id, st.n, "screenshot")
        self._images[st.n] = obs.for_model(fmt, width)
        self._image_files[st.n] = marked
        for k in [k for k in self._images if k <= st.n - max(self.config.keep_images, 1)]:
            del self._images[k]
        self._emit(ev.ObservationReady(self.run_id, st.n, obs.url, obs.title, str(self.store.file(marked)),
                                       tuple(obs.marks), dict(obs.timings), obs.screenshot,
                                       masked=obs.masked))

    @staticmethod
    def _files(st: _Step) -> dict:
        """The step's file paths, once the marked PNG is on disk (a failed write raises its StoreError)."""
        if st.marked_write is not None:
            write, st.marked_write = st.marked_write, None
            st.files.update(write.result())
        return st.files

    def _image(self, step: int) -> bytes:
        """Step `step`'s marked screenshot as the model is sent it."""
        if step in self._images:
            return self._images[step]
        png = self.store.read_file(self._image_files.get(step), f"screenshot of step {step}")
        return images.for_model(png, self.client.config.image_format, self.client.config.image_max_width)

    def _page_note(self, obs: Observation) -> str:
        if not obs.url.startswith("chrome-error://"):
            return ""
        return f"The page failed to load ({self.session.load_error()}); go back or try another address."

    def _act(self, st: _Step, action: Action):
        """Gate and execute one action; returns (answer, feedback for the next turn, pdf text)."""
        obs = st.obs
        mark = obs.marks[action.target - 1] if action.target and 0 < action.target <= len(obs.marks) else None
        risk = classify(action, mark, obs.marks, obs.url, self.config.risk_rules)
        st.press_enter = True
        if action.kind == "type" and risk.level == "irreversible":
            # Enter could submit an order form: type without it rather than ask about every field.
            quiet = classify(action, mark, obs.marks, obs.url, self.config.risk_rules, enter_after_type=False)
            if quiet.level != "irreversible":
                risk, st.press_enter = quiet, False
        # A password or card field's text is not recorded (see redaction).
        shown = redaction.shown(action, obs.marks, self.executor.secrets)
        st.row.update(action=shown, target=action.target, risk=risk.level, evidence=list(risk.evidence))
        self._emit(ev.ActionProposed(self.run_id, st.n, shown, action.target, risk.level, risk.evidence))
        if self.look is not None:  # hook: preview (or the plan's simulation of this action)
            self.look.foresee(self, st, action)
        self._check_breakpoints(st, action, mark, risk)
        if needs_approval(self.config.approval_policy, risk, action):
            decision = self._ask(st, action, mark, risk)
            self.control.check_stop()
            if not decision.approved:
                st.row.update(status="refused", outcome="refused: " + (decision.message or "no message"))
                return None, prompt.feedback_text(refused=decision.message or " "), ""
            if decision.action is not None:
                action = decision.action
                shown = redaction.shown(action, obs.marks, self.executor.secrets)
                st.row.update(action=shown, target=action.target)
        if action.kind == "answer":
            st.row.update(status="answered", outcome="answered")
            self._emit(ev.ActionExecuted(self.run_id, st.n, shown, True, "answered", obs.url))
            return redaction.scrub(action.text, self.executor.secrets), "", ""
        answer, lead, pdf = self._execute(st, action)
        return answer, redaction.with_note(lead, action, obs.marks), pdf

    def _check_breakpoints(self, st: _Step, action: Action, mark, risk: Risk) -> None:
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

    def _ask(self, st: _Step, action: Action, mark, risk: Risk) -> Decision:
        obs = st.obs
        requested = time.time()
        shown = redaction.shown(action, obs.marks, self.executor.secrets)
        self._emit(ev.ApprovalRequested(self.run_id, st.n, shown, action.target, risk.level, risk.evidence))
        req = ApprovalRequest(self.run_id, st.n, action, mark, risk, self.config.approval_policy, obs.url,
                              st.row.get("thought", ""), str(self.store.file(self._files(st)["screenshot"])),
                              shown=shown)
        if self.look is not None:  # hook: preview + planning; the prediction and the candidates
            self.look.dress(req, st)
        decision = self.approver.decide(req, self.control.stop_event)
        if self.look is not None:  # hook: planning; the human may pick another candidate
            decision = self.look.resolve(self, st, decision)
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

    def _execute(self, st: _Step, action: Action, actor: str = "agent"):
        shown = st.row["action"]  # the action as recorded (secrets masked), set by the caller
        try:
            out: ActionOutcome = self.executor.run(action, st.obs.marks, press_enter=st.press_enter)
        except ActionError as e:
            st.row.update(status="error", error=str(e), url_after=self.session.url)
            self._emit(ev.ActionExecuted(self.run_id, st.n, shown, False, str(e), st.row["url_after"],
                                         actor=actor))
            return None, prompt.feedback_text(error=str(e)), ""
        st.row.update(status="ok", outcome=out.message, url_after=out.url_after)
        self._acted = (st.n, st.obs)
        self._emit(ev.ActionExecuted(self.run_id, st.n, shown, True, out.message, out.url_after, out.seconds,
                                     actor=actor))
        return None, prompt.feedback_text(outcome=out.message), out.pdf_text

    # ---------- hook: multihop tracking and memory (cockpit.core.tasks.hops, cockpit.core.review.memory) ----------
    def _hops_start(self, resuming: bool = False) -> None:
        """A fresh copy of the config's hop queue; resuming, the queue as it is (restored by core.resume)."""
        self.hops = None if self.config.hops is None else self.config.hops if resuming else self.config.hops.fresh()
        if self.hops is not None:
            self.store.set_run(self.run_id, hops=json.dumps(self.hops.to_dict()))
            self._emit(ev.HopsTracked(self.run_id, tuple(self.hops.names())))
            for k, step in enumerate(self.hops.steps, 1):  # passed before a resume: shown as passed again
                self._emit(ev.HopPassed(self.run_id, step or 0, k, self.hops.name(k), k, self.hops.total,
                                        again=True))

    def _hops_update(self, st: _Step, answer: str | None) -> None:
        """After the step's observation (and its ANSWER, if any): advance the hop queue, record it."""
        if self.hops is None or st.obs is None:
            return
        new = self.hops.update(st.obs.url, answer, step=st.n)
        st.row["hops"] = self.hops.snapshot(new)
        for k in new:
            self._emit(ev.HopPassed(self.run_id, st.n, k, self.hops.name(k), k, self.hops.total))
        if new:
            self.store.set_run(self.run_id, hops=json.dumps(self.hops.to_dict()))

    def _recall(self, task: str, lead: str) -> str:
        """Procedural memory: similar past successful runs, put after the task text; which ones is stored."""
        from cockpit.core.review import memory
        try:
            found = memory.retrieve(self.store, task, self.config.memory_k, exclude=self.run_id)
        except CockpitError as e:
            log.warning("run %s: no memories (%s)", self.run_id, short_message(e))
            return lead
        ids = [m.run_id for m in found]
        self.store.set_run(self.run_id, memories=json.dumps(ids))
        self._emit(ev.MemoriesUsed(self.run_id, tuple(ids)))
        return f"{lead}\n{memory.memory_text(found)}" if found else lead

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

    def _commit(self, st: _Step) -> None:
        obs = st.obs
        row = dict(st.row, step=st.n, started=st.started, finished=time.time(), request=st.request,
                   n_marks=len(obs.marks) if obs else 0, flags=self._flags.get(st.n) or None,
                   **self._files(st))
        if obs:
            row.update(url=obs.url, title=obs.title)
        for k in ("url", "title", "url_after"):  # a GET form puts a typed password into the address
            if row.get(k):
                row[k] = redaction.scrub(row[k], self.executor.secrets)
        row.setdefault("status", "ok")
        self.store.commit_step(self.run_id, row, st.decision)

    def _commit_partial(self, st: _Step | None, status: str, error: str) -> None:
        """The step in flight, as far as it got, so the user sees what the model was looking at."""
        if st is None or st.obs is None:
            return
        st.row.update(status=status, error=error)
        try:
            self._commit(st)
        except CockpitError:
            log.warning("could not record the interrupted step %d of %s", st.n, self.run_id)

    def _finish(self, status: str, answer: str | None) -> RunResult:
        self.store.finish_run(self.run_id, status, answer=answer)
        n = self.store.run(self.run_id)["steps"]
        self._emit(ev.RunFinished(self.run_id, status, answer, n))
        return RunResult(self.run_id, status, answer, n)

    def _fail(self, error: str) -> RunResult:
        try:
            self.store.finish_run(self.run_id, "failed", error=error)
            n = self.store.run(self.run_id)["steps"]
        except CockpitError:
            n = 0
        self._emit(ev.RunFailed(self.run_id, error, n))
        return RunResult(self.run_id, "failed", None, n, error)

    def _emit(self, event: ev.Event) -> None:
        if self.listener is None:
            return
        try:
            self.listener(event)
        except Exception:  # a broken listener must not break the run
            log.exception("event listener failed on %s", type(event).__name__)
