"""The one place the core meets Qt: runs the agent in a worker thread.

The worker (a :mod:`cockpit.ui.background` task, as are the browser warm-up and the
live view) owns the browser session, the model client and its own store
connection. Core events come back as Qt signals (queued to the GUI thread);
the run's end comes back as the task's outcome; controls go the other way
through RunControl; approvals through a future the worker waits on. No widget
is touched from the worker, ever.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import functools
import logging
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import ApprovalDesk, ApprovalRequest, Decision
from cockpit.core.agent.config import AgentConfig, RunResult
from cockpit.core.agent.control import RunControl, Stopped
from cockpit.core.agent.loop import Agent
from cockpit.core.agent.start import Fresh, RunContext
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.demo import simulator
from cockpit.core.errors import CockpitError, short_message
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.store import Store
from cockpit.core.words import plural
from cockpit.ui.background import CancelFlag, Task, run_in_background
from cockpit.ui.live import live_frames
from cockpit.ui.live.browser_keeper import BrowserKeeper, StartCalledOff
from cockpit.ui.live.run_kinds import BranchOf, FromTask, ReplayOf, ResumeOf, RunKind, calls_model

log = logging.getLogger(__name__)

#: States shown in the status bar.
IDLE, STARTING, RUNNING, WAITING_MODEL, WAITING_YOU, PAUSED, TAKEN_OVER, STOPPING, REPLAYING = (
    "idle", "starting", "running", "waiting for the model", "waiting for you", "paused", "taken over",
    "stopping", "replaying")
#: Pause pressed, not yet in effect: the action being written will wait at the gate (core.agent.gate.must_ask)
PAUSING = "pausing after this reply…"


@dataclass
class RunSpec:
    task: str
    url: str
    model: ModelConfig
    agent: AgentConfig
    api_key: str | None = None
    demo: bool = False  # serve the demo shop and the demo policy for this run
    task_id: str = ""
    task_extra: dict | None = None  # the task file's other fields (eval, hops), kept with the run
    kind: RunKind = FromTask()  # a new run, a branch, a replay or a resume (cockpit.ui.live.run_kinds)
    keep_browser: bool = False  # go on in the last run's browser (cookies, storage); else a clean context

    @property
    def human(self) -> str:
        """Who makes their own attempt at the task ("human:ada"): no model (core.agent.human_run); else ""."""
        return self.kind.human if isinstance(self.kind, FromTask) else ""


def resume_settings(run: dict, policy: str) -> tuple[ModelConfig | None, str]:
    """The model and approval policy the window resumes `run` with: the model it ran with (None: not
    recorded), and the stricter of the run's recorded approval policy and `policy`, today's
    (core.resume.resume_policy says why the stricter one)."""
    from cockpit.core.replay.reask import model_config_of
    from cockpit.core.replay.resume import resume_policy
    recorded = (run.get("config") or {}).get("model")
    return (model_config_of(run) if recorded else None), resume_policy(run, policy)


class GuiApprover(ApprovalDesk):
    """Asks the window; the worker waits until the window answers this very request (its key, issue #17)."""

    def __init__(self, bridge: "AgentBridge"):
        super().__init__(on_request=self._show, on_close=lambda request: self.bridge.approvalClosed.emit())
        self.bridge = bridge

    def _show(self, request: ApprovalRequest) -> None:
        self.bridge._set_state(WAITING_YOU)
        self.bridge.approvalRequested.emit(request)

    def decide(self, request: ApprovalRequest, cancel: CancelFlag) -> Decision:
        going = REPLAYING if self.bridge.state == REPLAYING else RUNNING  # a replay's live view goes on after
        try:
            return super().decide(request, cancel)
        finally:
            if not cancel.is_set():
                self.bridge._set_state(going)


#: Bridges whose run outlived shutdown's wait (see AgentBridge.shutdown): held until the run ends.
_outliving: set = set()


class AgentBridge(QObject):
    event = Signal(object)  # every core event, delivered on the GUI thread
    approvalRequested = Signal(object)  # ApprovalRequest
    approvalClosed = Signal()
    runEnded = Signal(object)  # RunResult
    stateChanged = Signal(str)
    observed = Signal(object, object)  # ObservationReady, its screenshot decoded (QImage) off the GUI thread
    liveFrame = Signal(object)  # QImage: the page while the agent waits on the model
    failed = Signal(str)  # a run could not start (no browser, no key...)
    replayed = Signal(int, str)  # step replayed (0 = done), what happened
    warmed = Signal(bool)  # the warm-up's browser is up (True) or could not start (False)
    replayStep = Signal(object)  # a step of "Replay in browser" (core.replay.replay.StepReplay): its log row
    startStopped = Signal()  # Stop while the browser started: no run began (browser_keeper)

    def __init__(self, parent=None, *, browser_config: BrowserConfig | None = None, store_root=None,
                 live_interval: float = 1.0):
        super().__init__(parent)
        self.browser = BrowserKeeper(browser_config)
        self.store_root = store_root
        self.live_interval = live_interval
        self._live_mask: list = []  # the last observation's filled secret fields: painted over on live frames
        self.approver = GuiApprover(self)
        self.control: RunControl | None = None
        self.agent: Agent | None = None
        self.state = IDLE
        self._unpaused = RUNNING  # the state PAUSING stands in for: the run's, until the pause takes effect
        self.taken_over = False  # the human has the browser (from Take over until Hand back)
        self.human = ""  # who makes their own attempt, while one goes (RunSpec.human)
        self.run_id = ""
        self._task: Task | None = None  # the run
        self._demo = None  # (site, model server) while demo runs need them
        self._live_task: Task | None = None  # the live view's capture loop
        self._launching = False  # start() is handing the run to its task: busy already (Stop is available)

    # ---------- starting and stopping ----------
    def warm_up(self) -> None:
        """Start the browser in the background now, so the first run does not pay for it.

        Starting Chromium forks this (large) process, which holds Python's lock
        for a moment; better when the window opens than in the middle of a run.
        """
        def work():
            try:
                self.browser.ensure()
            except CockpitError as e:
                log.info("browser warm-up failed (the run will report it): %s", e)
                self.warmed.emit(False)
            else:
                self.warmed.emit(self.browser.session is not None)
        run_in_background(work, name="browser-warm-up")

    @property
    def busy(self) -> bool:
        return self._launching or (self._task is not None and self._task.running)

    def start(self, spec: RunSpec, *, paused: bool = False) -> bool:
        if self.busy:
            return False
        self.control = RunControl(paused=paused or bool(spec.human))
        self.human = spec.human  # a person's own attempt: nothing resumes it or hands it back
        control, self._launching = self.control, True
        self._set_state(STARTING)
        self._task = run_in_background(lambda: self._work(spec, control), self._ended, name="agent")
        self._launching = False
        return True

    def pause(self, why: str = "") -> None:
        """Pause the run; `why`: who or what paused it, as the gate says it (default: Pause was pressed)."""
        if self.control:
            self.control.pause(why)
            if self.state in (RUNNING, WAITING_MODEL):  # said at once, until the pause takes effect (#38)
                self._unpaused = self.state
                self._set_state(PAUSING)

    def resume(self) -> None:
        if self.control and not self.human:
            self.taken_over = False
            self.control.resume()  # a pause not yet in effect is called off: the gate no longer holds for it
            self._call_off_pause()
            if self.state in (PAUSED, TAKEN_OVER):
                self._set_state(RUNNING)

    def _call_off_pause(self) -> None:
        """A pause not yet in effect is gone: the run's own state shows (PAUSING stayed after the close question)."""
        if self.state == PAUSING:
            self._set_state(self._unpaused)

    def step(self) -> None:
        if self.control and not self.human:
            self.control.step()

    def stop(self) -> None:
        if self.control and self.busy:
            self._set_state(STOPPING)
            self.control.stop()
            self.browser.call_off()  # a browser still starting: ended now, not waited for (#38)

    def answer_approval(self, decision: Decision) -> bool:
        return self.approver.answer(decision)

    def take_over(self, by: str = "human") -> concurrent.futures.Future | None:
        """`by` ("human:ada") takes the browser; a question waiting at the gate is dropped at once (core.gate)."""
        if not (self.agent and self.busy):
            return None
        fut = self.agent.take_over(by)
        self.taken_over = True
        self._call_off_pause()  # the take-over's own pause holds the run now
        if self.state in (PAUSED, RUNNING, WAITING_YOU):
            self._set_state(TAKEN_OVER)
        return fut

    def human_act(self, action) -> concurrent.futures.Future | None:
        return self.agent.human_act(action) if (self.agent and self.busy) else None

    def hand_back(self, note: str = "") -> None:
        if self.agent and self.busy and not self.human:
            self.taken_over = False
            self.agent.hand_back(note)
            self._set_state(RUNNING)

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop any run and close the browser and demo servers (window closing)."""
        self.stop()
        if self._task is not None and not self._task.wait(timeout):
            # Still running (a browser call that hangs): the window may be deleted before it ends, and a
            # QObject freed while its worker emits on it crashes the process. Keep this one until then.
            _outliving.add(self)
            self.setParent(None)  # let go in _ended, on the GUI thread
        self._stop_live()
        if self._live_task is not None:
            self._live_task.wait(timeout)  # a frame being taken is not emitted on a deleted bridge
        self.browser.close()
        if self._demo is not None:
            for server in self._demo:
                with contextlib.suppress(Exception):
                    server.stop()
            self._demo = None

    @property
    def session(self) -> BrowserSession | None:
        return self.browser.session

    @property
    def browser_config(self) -> BrowserConfig:
        return self.browser.config

    def use_browser(self, *args, **kw) -> None:
        self.browser.use(*args, **kw)  # BrowserKeeper.use

    # ---------- the worker ----------
    def _work(self, spec: RunSpec, control: RunControl) -> RunResult | None:
        """The run, in the agent task; its result goes to runEnded on the GUI thread (_ended)."""
        result: RunResult | None = None
        try:
            session = self.browser.ensure(fresh=not spec.keep_browser, stopped=lambda: control.stopped, for_run=True)
            url, model = spec.url, spec.model
            if spec.demo:
                url, model = self._demo_endpoints(spec)
            elif simulator.is_simulator(model.model) and simulator.usual_address(model.base_url):
                model = dataclasses.replace(model, base_url=simulator.shared().base_url)  # started here, for the run
            client = ModelClient(model, api_key="demo" if spec.demo else spec.api_key) if calls_model(spec.kind) else None
            try:
                with Store(self.store_root) as store:
                    self._set_state(PAUSED if control.paused else RUNNING)
                    self._start_live(session)
                    match spec.kind:
                        case ReplayOf() as kind:
                            result = self._replay(store, session, kind, control)
                        case BranchOf() as kind:
                            result = self._branch(self._context(store, session, client, control), spec, kind)
                        case ResumeOf() as kind:
                            result = self._resume(self._context(store, session, client, control), spec, kind)
                        case _:
                            result = self._fresh(store, session, client, spec, url, control)
            finally:  # a run that could not start or failed (the run not resumable, the browser...) too
                if client is not None:
                    client.close()
        except StartCalledOff:
            self.startStopped.emit()
        except CockpitError as e:
            self.failed.emit(str(e))
        except Exception as e:  # keep the window alive whatever happens in a run
            log.exception("the run could not start")
            self.failed.emit(f"internal error: {type(e).__name__}: {short_message(e)}")
        finally:
            self._stop_live()
            self.browser.drop_dead()
            self.taken_over, self.human = False, ""
            self._set_state(IDLE)
        return result

    def _ended(self, done) -> None:
        if done.exception() is not None:  # not an Exception (those _work reports): still end the run here
            log.error("the run stopped", exc_info=done.exception())
        self.runEnded.emit(None if done.exception() else done.result())
        _outliving.discard(self)

    def _fresh(self, store, session, client, spec: RunSpec, url: str, control: RunControl):
        """A new run; a local HTML file (a file:// URL) is served on 127.0.0.1 while it goes, as `cockpit run`
        serves it (its folder recorded with the run, for replays)."""
        from cockpit.core.replay.localfiles import ServedFolders
        from cockpit.core.tasks.task import Task
        with ServedFolders() as local:
            task = local.served(Task(spec.task_id, spec.task, url, extra=dict(spec.task_extra or {})))
            from cockpit.core.agent.human_run import HumanRun
            kind = functools.partial(HumanRun, by=spec.human) if spec.human else Agent
            self.agent = kind(session, client, store, config=spec.agent, approver=self.approver,
                              control=control, listener=self._on_event)
            self.taken_over = bool(spec.human)  # taken over from step 0, once its run is there to act in
            return self.agent.run(Fresh(task.task, task.url, task_id=spec.task_id, task_extra=task.extra or None))

    def _context(self, store, session, client, control: RunControl) -> RunContext:
        """A branch's or a resume's collaborators: its replayed steps said in the window, its agent held here
        (take-over by hand)."""
        return RunContext(session, store, client, self.approver, control, self._on_event,
                          on_replay=lambda i, info: self.replayed.emit(i, info.describe()),
                          on_agent=lambda agent: setattr(self, "agent", agent))

    def _branch(self, context: RunContext, spec: RunSpec, kind: BranchOf):
        from cockpit.core.replay.branch import branch
        res = branch(context, kind.run_id, kind.step, spec.agent, recorded=kind.recorded)
        if res.divergence is not None:
            self.failed.emit(f"The branch stopped while replaying: {res.divergence.message}")
        return res

    def _resume(self, context: RunContext, spec: RunSpec, kind: ResumeOf):
        from cockpit.core.replay.resume import resume
        # spec.agent's approval policy is already the stricter of the run's and the window's (resume_settings)
        return resume(context, kind.run_id, spec.agent, replay=kind.replay)

    def _replay(self, store, session, kind: ReplayOf, control: RunControl):
        from cockpit.core.replay.replay import ReplayOptions, replay
        self._set_state(REPLAYING)
        def replayed(i, info):
            self.replayStep.emit(info)
            self.replayed.emit(i, info.describe())
        try:
            steps = replay(RunContext(session, store, approver=self.approver, control=control, on_replay=replayed),
                           kind.run_id, None, ReplayOptions(speed=kind.speed, recorded=kind.recorded))
        except Stopped:  # Stop, between two steps or at the gate (it said "internal error: Stopped")
            self.replayed.emit(0, f"stopped; the replay of {kind.run_id} did not go on")
            return None
        self._last_frame(session)  # the page the replay left: a short replay ends before the live view's first frame
        missing = sum(len(s.missing) for s in steps)
        how = (" from its recording" + (f" ({plural(missing, 'request')} not in the recording)" if missing else
                                        ", nothing sent to the site")) if kind.recorded else ""
        self.replayed.emit(0, f"replayed {plural(len(steps), 'step')} of {kind.run_id}{how}; {matched(steps)}")
        return None

    def _demo_endpoints(self, spec: RunSpec) -> tuple[str, ModelConfig]:
        from cockpit.core.demo import policy as demo
        if self._demo is None:
            self._demo = (demo.serve_demo_site(), demo.serve_demo_model())
        site, server = self._demo
        url = spec.url if spec.url and not spec.url.startswith("demo:") else site.url("index.html")
        return url, ModelConfig(base_url=server.base_url, model=demo.DEMO_MODEL, temperature=0, max_retries=0)

    def demo_url(self) -> str:
        return "demo:index.html"

    def _on_event(self, e: ev.Event) -> None:
        if isinstance(e, ev.RunStarted):
            self.run_id = e.run_id
        elif isinstance(e, ev.ObservationReady) and e.stored:
            self._set_state(WAITING_MODEL, unless_pausing=True)
        elif isinstance(e, ev.ModelReplied) and self.state in (WAITING_MODEL, PAUSING):
            self._set_state(RUNNING, unless_pausing=True)
        elif isinstance(e, ev.RunPaused):
            self._set_state(TAKEN_OVER if self.taken_over else PAUSED)
            if e.between_steps and not self.taken_over and self.agent is not None:
                self.agent.look_now()  # the pane shows the page the last action left, not the one before it
        if isinstance(e, ev.ObservationReady):
            self._live_mask = list(e.masked)  # the page stays put while the model thinks
            self.observed.emit(e, QImage.fromData(e.screenshot))
        self.event.emit(e)

    def _set_state(self, state: str, unless_pausing: bool = False) -> None:
        # unless_pausing: the run's own progress, shown once a pause pressed meanwhile takes effect or is called off
        if unless_pausing and self.state == PAUSING:
            self._unpaused = state
            return
        if state != self.state:
            self.state = state
            self.stateChanged.emit(state)

    # ---------- live view ----------
    def _start_live(self, session: BrowserSession) -> None:
        self._stop_live()
        self._live_mask = []  # a replay has no observations: no boxes of an earlier run's page
        if self.live_interval <= 0:
            return
        self._live_task = run_in_background(lambda stop: self._live(session, stop), name="live-view", pass_cancel=True)

    def _stop_live(self) -> None:
        if self._live_task is not None:
            self._live_task.cancel()

    def _last_frame(self, session: BrowserSession) -> None:
        """One frame of the page as it is now (walkthrough 6: a replay of one step ended with the pane still saying
        "Replaying run …", and a longer one showed the page before its last action)."""
        if (frame := live_frames.grab(session, self._live_mask, wait=2)) is not None:
            self.liveFrame.emit(frame)

    def _live(self, session: BrowserSession, stop: CancelFlag) -> None:
        """A low-rate capture while the agent waits on the model, between its own commands."""
        while not stop.wait(self.live_interval):
            if self.state not in (WAITING_MODEL, REPLAYING):
                continue
            frame = live_frames.grab(session, self._live_mask, wait=0.05)
            if frame is not None and self.state in (WAITING_MODEL, REPLAYING):
                self.liveFrame.emit(frame)


def matched(steps: list) -> str:
    """How the replayed pages compared with the recorded ones, in words: not checked (a run without marks;
    walkthrough 6), or matched, with the lowest similarity and the elements found under another box number when
    not all alike (walkthrough 7: "matched throughout" beside a row at similarity 0.62 on another box)."""
    sims = [s.similarity for s in steps if s.similarity is not None]
    if not sims:
        return "the pages were not checked"
    moved = sum(s.id_changed for s in steps)
    if min(sims) >= 0.999 and not moved:
        return "the page matched throughout"
    return (f"the pages matched well enough (lowest similarity {min(sims):.2f}"
            + (f"; {plural(moved, 'element')} found under another box number" if moved else "") + ")")
