"""The cockpit window: three tabs (Live, Review, Reports), the Run toolbar, the menus and the status bar.

It composes parts that each own their state (docs/architecture.md, "The window"): the run controller (the agent
bridge and the run's numbers), the Live pane, the Review and Reports panels, the toolbar and the status bar's
items. The window wires their signals, turns the toolbar's options into a run's spec, and closes everything in
order. Never calls the browser from the GUI thread except through the bridge's worker.
"""
from __future__ import annotations

import contextlib
import logging

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QTabWidget

from cockpit.core.agent.loop import AgentConfig
from cockpit.core.errors import CockpitError
from cockpit.core.settings import Settings, load_settings, save_settings
from cockpit.core.store import Store, liveness
from cockpit.core.tasks.starturl import start_address
from cockpit.core.words import plural
from cockpit.ui.export_training import SHORTCUT as TRAINING_SHORTCUT
from cockpit.ui.export_training import ExportTrainingDialog
from cockpit.ui.live import run_kinds, stopped_start, task_memory, window_title
from cockpit.ui.live.attempt import HumanAttempt
from cockpit.ui.live.bridge import IDLE, PAUSED, STARTING, TAKEN_OVER, AgentBridge, RunSpec, resume_settings
from cockpit.ui.live.close_question import ask_to_close
from cockpit.ui.live.lookahead_controller import LookaheadController
from cockpit.ui.live.pane import LivePane
from cockpit.ui.live.run_controller import RunController
from cockpit.ui.live.run_kinds import BranchOf, FromTask, ReplayOf, ResumeOf, RunKind
from cockpit.ui.live.run_toolbar import RunToolbar
from cockpit.ui.live.status import RunStatus
from cockpit.ui.live.takeover_acts import HumanActs
from cockpit.ui.menus import build_menus
from cockpit.ui.placement import keep_on_screen_once_framed
from cockpit.ui.reports.panel import ReportsPanel
from cockpit.ui.review.import_dialog import SHORTCUT as IMPORT_SHORTCUT
from cockpit.ui.review.import_dialog import ImportDialog
from cockpit.ui.review.panel import ReviewPanel
from cockpit.ui.review.run_model import ask_which_model
from cockpit.ui.window_layout import LayoutMemory

log = logging.getLogger(__name__)
DEMO_URL = "demo:index.html"


class MainWindow(QMainWindow):
    def __init__(self, *, settings: Settings | None = None, store_root=None, bridge: AgentBridge | None = None,
                 demo: bool = False):
        super().__init__()
        self.setWindowTitle("Cockpit")
        self.settings = settings or load_settings()[0]
        self.store_root = store_root
        self.store = Store(store_root)
        liveness.mark_interrupted(self.store)
        self.bridge = bridge or AgentBridge(self, store_root=store_root)
        self.runs = RunController(self.bridge, self)  # before the panes: they draw the counts it keeps
        self._build(demo)
        task_memory.restore(self.live.task_bar, self.store.root)  # before the demo fills in what is empty
        self._connect()
        self.layout_memory = LayoutMemory(self, {"split": self.live.split, "right": self.live.right,
                                                 "review": self.review.split}, self.store.root)
        self.layout_memory.restore()
        self._placed = False  # placed again, with its real frame, once the window manager has framed it
        self.toolbar.follow_tab()
        self._update_controls()
        self.bridge.warmed.connect(self._on_warmed)
        QTimer.singleShot(0, self.bridge.warm_up)

    # ---------- building ----------
    def _build(self, demo: bool) -> None:
        self.live = LivePane(self.store, self.runs, lambda: self.settings)
        self.lookahead = LookaheadController(lambda: self.settings, self.live.following)
        self.review = ReviewPanel(self.store, annotator=self.settings.annotator_name(), settings=lambda: self.settings)
        self.reports = ReportsPanel(self.store)
        self.reports.annotator = self.review.annotator_name
        self.modes = QTabWidget()
        self.modes.addTab(self.live, "Live")
        self.modes.addTab(self.review, "Review")
        self.modes.addTab(self.reports, "Reports")
        self.setCentralWidget(self.modes)
        self.toolbar = RunToolbar(self, self.live, self.settings, demo)
        self.toolbar.place(self, self.modes)
        self.status = RunStatus(self.statusBar(), (self.lookahead.status,))
        self.clock = QTimer(self, interval=1000)
        self.clock.timeout.connect(lambda: self.runs.elapsed() is not None and
                                   self.status.set_elapsed(self.runs.elapsed()))
        self.clock.start()
        self.human = HumanActs(self.bridge, self.live.takeover, self)
        self.live.approval.install_shortcuts(self)
        self.lookahead.install(self.live.log_tabs, self.toolbar.options_bar, self.live.approval)
        self.act_import = QAction("&Import runs…", self)
        self.act_import.setShortcut(IMPORT_SHORTCUT)
        self.act_import.setToolTip("Import WebVoyager, Online-Mind2Web or browser-use runs, a bundle or labels "
                                   f"({IMPORT_SHORTCUT})")
        self.act_import.triggered.connect(self.open_import)
        self._import_dialog = None
        self.branch_question = None  # the box asking which model a branch goes on with (review.run_model)
        self.act_export_training = QAction("Export training data…", self)
        self.act_export_training.setShortcut(QKeySequence(TRAINING_SHORTCUT))
        self.act_export_training.setToolTip("SFT, preference, process-label or grounding data from the runs "
                                            f"Review's filter selects ({TRAINING_SHORTCUT})")
        self.act_export_training.triggered.connect(self.export_training)
        self.addAction(self.act_export_training)
        self.attempt = HumanAttempt(self)  # your own attempt at a task: Run ▸ Attempt it yourself…
        self.title = window_title.WindowTitle(self)  # the task the Live tab is about, or the task file loaded
        build_menus(self, self.toolbar, self.modes, (self.lookahead.box,),
                    (self.act_import, self.act_export_training), (self.attempt.action,))

    def _connect(self) -> None:
        b, live, tb = self.bridge, self.live, self.toolbar
        slots = ((b.observed, live.on_observed), (b.event, self._on_event),
                 (b.approvalRequested, self._on_approval), (b.stateChanged, self._on_state),
                 (b.liveFrame, live.on_live_frame), (b.failed, self._on_failed), (b.event, self.status.on_event),
                 (b.replayed, live.on_replayed), (b.replayStep, live.replay_rows.replayed),
                 (b.runEnded, self._on_ended), (b.startStopped, lambda: stopped_start.say_stopped(self)))
        self._bridge_slots = tuple((signal, self._while_open(slot)) for signal, slot in slots)
        for signal, slot in self._bridge_slots:
            signal.connect(slot)
        b.approvalClosed.connect(live.on_approval_closed)
        b.approvalClosed.connect(self.lookahead.on_approval_closed)
        live.approval.decided.connect(b.answer_approval)
        live.message.connect(lambda text, ms: self.status.say(text, ms, live=True))
        live.stepOpened.connect(self.lookahead.show_step)
        live.task_bar.runRequested.connect(self.run_clicked)
        self.human.error.connect(live.show_error)
        self.runs.countsChanged.connect(self._update_counts)
        tb.act_run.triggered.connect(self.run_clicked)
        tb.act_pause.triggered.connect(b.pause)
        tb.act_step.triggered.connect(self.step_clicked)
        tb.act_stop.triggered.connect(b.stop)
        tb.act_take.triggered.connect(self.take_over)
        tb.act_hand.triggered.connect(live.takeover.hand_back)
        tb.act_boxes.toggled.connect(live.view.set_marks_visible)
        tb.act_fit.triggered.connect(live.view.zoom.fit)
        tb.act_add.toggled.connect(self._on_add_mark)
        live.view.addModeChanged.connect(tb.act_add.setChecked)
        tb.act_settings.triggered.connect(self.open_settings)
        tb.act_open.triggered.connect(live.task_bar.choose_file)
        tb.act_quit.triggered.connect(self.quit)
        tb.demoToggled.connect(self._on_demo_toggled)
        self._on_demo_toggled(True) if tb.run_options().demo else self.status.show_model(self.settings.model, False)
        self.review.branchRequested.connect(self.start_branch)
        speed, recorded = self.review.viewer.tools.replay_speed, self.review.viewer.tools.recorded_box
        self.review.replayRequested.connect(lambda rid: self.start_replay(rid, speed.currentData(),
                                                                          recorded.isChecked()))
        self.review.resumeRequested.connect(self.start_resume)
        self.review.attemptRequested.connect(self.attempt.start_task)
        self.reports.openRun.connect(self.open_in_review)
        self.modes.currentChanged.connect(self._on_modes_changed)

    def _while_open(self, slot):
        """`slot`, doing nothing once the window has closed: a queued signal posted before closeEvent
        disconnected it is still delivered, and the window's store is closed by then."""
        def guarded(*args):
            if not self.runs.closed:
                slot(*args)
        return guarded

    def export_training(self) -> None:
        """File → Export training data…, starting from the filter Review's table shows."""
        dlg = ExportTrainingDialog(self.store, self.review.browser.model.filter, self)
        dlg.exec()

    def _on_add_mark(self, on: bool) -> None:
        """M / Add mark: drawing a missing mark on Live's screenshot, when there is a step to add it to."""
        if not self.live.corrector.set_adding(on):
            self.toolbar.act_add.setChecked(False)

    def _on_modes_changed(self, index: int) -> None:
        self.status.on_tab(self.modes.widget(index) is self.live)
        if self.modes.widget(index) is self.review:
            self.review.refresh()
        elif self.modes.widget(index) is self.reports:
            self.reports.refresh()

    def open_in_review(self, run_id: str) -> None:
        self.modes.setCurrentWidget(self.review)
        self.review.show_run(run_id)

    # ---------- the bridge's news, where the window itself has a part ----------
    def _on_event(self, e) -> None:
        from cockpit.core.agent import events as ev
        self.live.on_event(e)
        self.lookahead.on_event(e)
        if isinstance(e, ev.RunStarted):
            self.status.browser.setText("browser: running")
            self._say_fence(e.run_id)
            self._update_controls()  # Take over, now that there is a page

    def _say_fence(self, run_id: str) -> None:
        """Say in the status bar when the run may only visit some sites (as recorded with the run)."""
        from cockpit.core.safety.runlimits import recorded_policy
        try:
            nav = recorded_policy(self.store.run(run_id))
        except CockpitError:  # the run's row cannot be read here (StoreError): nothing to add
            return
        if nav is not None and nav.restricted:
            before = self.status.current()
            self.status.say((before + " — " if before else "") +
                            f"this run may only visit {nav.describe_domains()}", 30000, live=True)

    def _on_approval(self, req) -> None:
        self.live.on_approval(req)
        self.lookahead.on_approval(req)
        self.raise_()

    def _on_state(self, state: str) -> None:
        self.status.state.setText(state + (" (you have the browser)" if self.bridge.taken_over
                                           and state != TAKEN_OVER else ""))
        if state not in (IDLE, STARTING):  # the worker has its browser: a replay too, which starts no run
            self.status.browser.setText("browser: running")
        self.live.on_state(state)
        self.status.on_state(state, self.runs.latest_step + 1)
        self._update_controls()

    def _on_warmed(self, up: bool) -> None:
        """The browser started ahead of the first run (walkthrough 4: Chromium ran while this said 'not started')."""
        if self.bridge.state == IDLE and not self.runs.closed:
            self.status.browser.setText("browser: ready" if up else "browser: not started")

    def _on_failed(self, message: str) -> None:
        self.live.on_failed(message)
        if not self.runs.began:
            self.status.set_elapsed(None)
            self._update_counts()

    def _on_ended(self, result) -> None:
        self.live.on_ended(result)
        self.status.show_model(self.settings.model, self.toolbar.run_options().demo)  # the next run's again
        session = self.bridge.session
        self.status.browser.setText("browser: " + ("open" if session and session.driver else "closed"))
        self._update_controls()

    # ---------- controls ----------
    def run_clicked(self) -> None:
        self.modes.setCurrentWidget(self.live)  # F5 from Review or Reports: the run is watched where it runs
        if self.bridge.busy:
            if self.bridge.state in (PAUSED, TAKEN_OVER) and not self.bridge.human:  # an attempt: not the agent's
                self.bridge.resume()
                self.live.takeover.setVisible(False)
            return
        self.start_run()

    def step_clicked(self) -> None:
        self.modes.setCurrentWidget(self.live)
        if self.bridge.busy:
            self.bridge.step()
        else:
            self.start_run(paused=True)
            self.bridge.step()

    def take_over(self) -> None:
        if self.live.take_over():
            self._update_controls()

    def start_run(self, paused: bool = False, human: str = "") -> bool:
        """The task bar's task; `human` ("human:ada"): their own attempt, no model (RunSpec.human)."""
        task, url, task_id = self.live.task_bar.task()
        options = self.toolbar.run_options()
        demo = options.demo
        if not task:
            self.live.show_error("Enter a task first.")
            return False
        if not url and not demo:
            self.live.show_error("Enter a start URL (or tick Demo policy to use the bundled demo shop).")
            return False
        note = ""
        if not (demo and (not url or url.lower().startswith("demo:"))):  # the demo shop: the bridge serves it
            if url.lower().startswith("demo:"):
                self.live.show_error(f"The start URL: {url} is the demo shop's address, for the demo policy: tick "
                                     "Demo policy, or enter your own start URL.")
                return False
            try:  # what `cockpit run --url` takes: a web address, a local HTML file (served), a file:// URL
                address = start_address(url)
            except CockpitError as e:
                self.live.show_error(f"The start URL: {e}")
                return False
            url, note = address.url, address.note
        self.settings.max_steps, self.settings.memory_k = options.max_steps, options.memory_k
        self.settings.approval_policy = options.policy
        try:
            agent = self._agent_config(demo, domains=self.live.task_bar.domains())
        except CockpitError as e:  # also a bad allowed domain: the text stays in the field to fix
            self.live.show_error(str(e))
            return False
        extra = self.live.task_bar.extra()
        extra.pop("allowed_domains", None)  # the field, filled from the task, is what applies (not a union)
        if extra:  # a task from a task file: its hop queue (MMInA) and reference answers go with the run
            from cockpit.core.tasks.hops import tracker_for
            agent.hops = tracker_for(extra)
        spec = RunSpec(task, url or DEMO_URL, self.settings.model, agent, demo=demo, task_id=task_id,
                       task_extra=extra or None, kind=FromTask(human))
        task_memory.remember(self.live.task_bar, self.store.root)
        started = self._launch(spec, "Starting the browser for your attempt…" if human else "Starting the browser…",
                               paused=paused)
        if note:  # "'example.com' has no scheme; opening https://example.com", as `cockpit run` says it
            self.status.say(note, 15000, live=True)
        return started

    def _agent_config(self, demo: bool, policy: str | None = None, domains=()) -> AgentConfig:
        """Today's settings. `domains`: the task bar's allowed domains (a branch or resume keeps its run's own,
        cockpit.core.safety.runlimits); CockpitError names a bad one."""
        o = self.toolbar.run_options()
        return AgentConfig(max_steps=o.max_steps, keep_images=self.settings.keep_images, demo=demo,
                           approval_policy=policy or o.policy, breakpoints=self.live.breakpoints,
                           memory_k=o.memory_k, allowed_domains=list(domains),
                           record_web=self.settings.record_web, **self.lookahead.agent_options(demo))

    def _launch(self, spec: RunSpec, banner: str, *, paused: bool = False) -> bool:
        """Reset the Live view for a new run and hand `spec` to the bridge."""
        self.modes.setCurrentWidget(self.live)
        spec.keep_browser = self.settings.keep_browser_state = self.toolbar.run_options().keep_browser
        self.bridge.use_browser(self.settings.webdriver_url, self.settings.chrome_args, self.settings.viewport,
                                self.settings.device_scale_factor)
        self.live.reset(banner)
        self.lookahead.reset()
        self.status.clear()  # news of the last run (or of a refused start) is not this run's
        self.status.set_elapsed(0)
        if run_kinds.calls_model(spec.kind):  # a branch or resume goes on with its run's model (walkthrough 10)
            self.status.show_model(spec.model, spec.demo)
        return self.runs.launch(spec, paused=paused)

    def start_branch(self, run_id: str, step: int, recorded: bool | None = None, model=None) -> bool:
        """Replay `run_id` up to `step` in the browser, then let the agent go on from there (Live tab), asking
        at least as the parent run did (as a resume does; core.resume.resume_policy). `recorded`: the replay is
        served from the run's web recording (None: as Review's "as recorded" box says). `model`: the model to
        go on with; None: the run's own, the person asked first when Model… says another or the run's server
        is gone (review.run_model; False returned meanwhile, the branch starts on their answer)."""
        if self.bridge.busy:
            self.live.show_error("A run is going; stop it first.")
            return False
        run = self.store.run(run_id)
        run_model, policy = resume_settings(run, self.toolbar.run_options().policy)  # as a resume goes on
        if recorded is None:
            recorded = self.review.viewer.tools.recorded_box.isChecked()
        if model is None and not run["demo"]:  # a demo run's policy is served by the bridge, whatever Model… says
            started = []
            self.branch_question = ask_which_model(self, run_model, self.settings.model, lambda m: started.append(
                self.start_branch(run_id, step, recorded, m)))
            return bool(started and started[0])
        return self.start_special(run_id, BranchOf(run_id, step, recorded), policy=policy, model=model)

    def start_replay(self, run_id: str, speed: float | None = 1.0, recorded: bool = False) -> bool:
        """Watch a finished run again on today's site (no model), or as recorded (served from its recording)."""
        return self.start_special(run_id, ReplayOf(run_id, speed, recorded))

    def start_resume(self, run_id: str, replay: bool = False) -> bool:
        """Continue an interrupted run, as the same run, in a new browser (model, policy: resume_settings)."""
        model, policy = resume_settings(self.store.run(run_id), self.toolbar.run_options().policy)
        return self.start_special(run_id, ResumeOf(run_id, replay), model=model, policy=policy)

    def start_special(self, run_id: str, kind: RunKind, model=None, policy: str | None = None) -> bool:
        """A new run from `run_id`: its branch, replay, resume, or (FromTask(human)) your own attempt at its task."""
        if self.bridge.busy:
            self.live.show_error("A run is going; stop it first.")
            return False
        run = self.store.run(run_id)
        demo = bool(run["demo"])  # the bridge serves the demo policy itself for demo runs
        spec = RunSpec(run["task"], run["url"], model or self.settings.model, self._agent_config(demo, policy),
                       demo=demo, task_id=run["task_id"] or "", kind=kind)
        self.live.task_bar.show_run_task(run)  # the fields say what runs now, not the picker's last task
        banner = run_kinds.banner(kind, run_id, model=spec.model.model, demo=demo, policy=policy)
        started = self._launch(spec, banner)
        self.live.replayed_run = run_id if isinstance(kind, ReplayOf) else None  # its rows open its recorded steps
        self.status.say(banner, 15000, live=True)
        return started

    def open_import(self) -> ImportDialog:
        """File → Import runs…: the dialog (one at a time); Review shows what it imported."""
        if self._import_dialog is None:
            self._import_dialog = ImportDialog(self.store.root, self)
            self._import_dialog.imported.connect(lambda _ids: self.review.refresh())
            self._import_dialog.showRequested.connect(self.open_in_review)
        self._import_dialog.open()
        self._import_dialog.raise_()
        return self._import_dialog

    def open_settings(self) -> None:
        from cockpit.ui.settings.dialog import ModelSettingsDialog
        dlg = ModelSettingsDialog(self.settings, self, demo=self.toolbar.run_options().demo)
        if dlg.exec():
            self.settings = dlg.result_settings()
            self.lookahead.settings_changed()
            self.status.show_model(self.settings.model, self.toolbar.run_options().demo)

    # ---------- status ----------
    def _update_controls(self) -> None:
        busy = self.bridge.busy
        human = busy and bool(self.bridge.human)  # a person's own attempt: nothing hands it to an agent
        self.toolbar.follow(busy, self.bridge.state, self.bridge.taken_over, human=human,
                            has_page=bool(self.runs.run_id or self.runs.began))  # none while the browser starts
        self.live.takeover.set_human(human)
        self.attempt.follow()
        for w in (self.live.task_bar, self.lookahead.box):
            w.setEnabled(not busy)

    def _update_counts(self) -> None:
        runs = self.runs
        self.status.steps.setText(runs.step_label(runs.latest_step) if runs.run_id else "")
        cost = f", ${runs.cost:.4f}" if runs.cost else (" (demo)" if runs.demo else "")
        self.status.tokens.setText(f"{plural(runs.tokens, 'token', grouped=True)}{cost}" if runs.run_id else "")

    def _on_demo_toggled(self, on: bool) -> None:
        """Ticked: the demo's task and address fill empty fields. Unticked: they go again (#38), said in the
        status bar, so a real model never starts on ``demo:index.html``."""
        from cockpit.core.demo.policy import DEMO_TASK
        self.status.show_model(self.settings.model, self.toolbar.run_options().demo)
        if on:
            self.live.task_bar.fill_demo(DEMO_TASK, DEMO_URL)
        elif said := self.live.task_bar.leave_demo():
            self.status.say(said, 15000, live=True)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._placed:
            self._placed = True
            keep_on_screen_once_framed(self)

    def quit(self) -> None:
        """Ctrl+Q: as the title bar's close button, a run going on is asked about first."""
        if ask_to_close(self, self.bridge, self.runs):
            self.close()

    def closeEvent(self, event) -> None:
        if event.spontaneous() and not ask_to_close(self, self.bridge, self.runs):
            event.ignore()  # the person closed it (the window manager) and chose Cancel: the run goes on
            return
        # The stopped run's last events are queued for this window; they must not reach its closed store.
        for signal, slot in (() if self.runs.closed else self._bridge_slots):  # a second close: done already
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)
        self.runs.close()
        self.layout_memory.save()
        task_memory.remember(self.live.task_bar, self.store.root)
        try:
            save_settings(self.settings)
        except CockpitError as e:
            log.warning("settings not saved: %s", e)
        self.bridge.shutdown()
        self.review.viewer.loader.stop()  # a tab gets no closeEvent of its own
        if self._import_dialog is not None:
            self._import_dialog.cancel()  # stops between two folders; those imported are kept
        self.review.step_pages.close()  # the browser on a recorded step's page
        self.reports.cancel_judging()
        self.store.close()
        super().closeEvent(event)
