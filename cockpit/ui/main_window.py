"""The cockpit window: live screenshot, step log, controls, approvals, take-over.

It draws what the bridge reports and sends the human's commands back through it. Reads the run store through
its own connection; writes only the human's own data (mark corrections). Never calls the browser from the GUI
thread except through the bridge's worker.
"""
from __future__ import annotations

import contextlib
import json
import logging
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QCheckBox, QComboBox, QLabel, QMainWindow, QSizePolicy,
                               QSpinBox, QSplitter, QTabWidget, QToolBar, QVBoxLayout, QWidget)

from cockpit.core.agent.approval import POLICIES
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.errors import CockpitError
from cockpit.core.page.marks import Mark, marks_from_json
from cockpit.core.settings import Settings, load_settings, save_settings
from cockpit.core.store import Store, liveness
from cockpit.ui.live.approval_panel import ApprovalPanel
from cockpit.ui.live.breakpoints_panel import BreakpointsPanel
from cockpit.ui.live.bridge_events import HIGHLIGHT_AGENT, HIGHLIGHT_HUMAN, BridgeEvents
from cockpit.ui.fieldnames import in_window_terms
from cockpit.ui.live.hop_strip import HopStrip
from cockpit.ui.screenshot.mark_corrections import MarkCorrections
from cockpit.ui.menus import build_menus
from cockpit.ui.live.lookahead_controller import LookaheadController
from cockpit.ui.reports.panel import ReportsPanel
from cockpit.ui.review.panel import ReviewPanel
from cockpit.ui.room import RoomKeeper
from cockpit.ui.live.bridge import (
    PAUSED,
    STOPPING,
    TAKEN_OVER,
    AgentBridge,
    RunSpec,
    resume_settings,
)
from cockpit.ui.screenshot.view import ScreenshotView
from cockpit.ui.live.step_log import StepDetails, StepLogPanel
from cockpit.ui.live.take_over import TakeOver
from cockpit.ui.live.takeover_panel import TakeOverPanel
from cockpit.ui.live.task_bar import TaskBar
from cockpit.ui.window_layout import LayoutMemory

log = logging.getLogger(__name__)
DEMO_URL = "demo:index.html"


class MainWindow(MarkCorrections, BridgeEvents, TakeOver, LayoutMemory, QMainWindow):
    def __init__(self, *, settings: Settings | None = None, store_root=None, bridge: AgentBridge | None = None,
                 demo: bool = False):
        super().__init__()
        self.setWindowTitle("Cockpit")
        self.settings = settings or load_settings()[0]
        self.store_root = store_root
        self.store = Store(store_root)
        liveness.mark_interrupted(self.store)
        self.bridge = bridge or AgentBridge(self, store_root=store_root)
        self.run_id = ""
        self.latest_step = 0
        self.shown_step: int | None = None  # None: following the run live
        self.live_step: int | None = None  # the pane shows the live page (paused, taken over), this step to be
        self.tokens = 0
        self.cost = 0.0
        self.started_at: float | None = None
        self.running = False  # from start_run until the bridge's runEnded has been handled here
        self.began = False  # the current attempt got under way (an event, a replayed step): see _on_bridge_failed
        self.agent_steps = 0
        self.last_marks: list[Mark] = []
        self._build(demo)
        self._connect()
        self._restore_layout()
        self._update_controls()
        QTimer.singleShot(0, self.bridge.warm_up)

    # ---------- building ----------
    def _build(self, demo: bool) -> None:
        self.task_bar = TaskBar()
        self.view = ScreenshotView()
        self.view.clear("No run yet. Enter a task and press Run (F5), or tick Demo and press Run.")
        self.view.setContextMenuPolicy(Qt.CustomContextMenu)
        self.banner = QLabel()
        self.banner.setTextFormat(Qt.PlainText)
        # Never let a long answer in the banner widen the pane and squeeze the step log.
        self.banner.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        self.error_banner = QLabel()
        self.error_banner.setWordWrap(True)
        self.error_banner.setTextFormat(Qt.PlainText)
        self.error_banner.setStyleSheet("background:#fdecea; color:#611a15; padding:6px; border:1px solid #f5c2c0")
        self.error_banner.setVisible(False)
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.banner)
        self.hop_strip = HopStrip()  # multihop progress and the memories given (hidden otherwise)
        lv.addWidget(self.hop_strip)
        lv.addWidget(self.view, 1)
        self.approval = ApprovalPanel(user=self.settings.annotator_name())
        self.takeover = TakeOverPanel()
        self.log_panel = StepLogPanel()
        self.breakpoints: list = []  # shared with the running agent's config
        self.bp_panel = BreakpointsPanel(self.breakpoints)
        self.log_tabs = QTabWidget()
        self.log_tabs.addTab(self.log_panel, "Steps")
        self.log_tabs.addTab(self.bp_panel, "Breakpoints")
        self.lookahead = LookaheadController(self)  # hook: planning table, Plan box, planning cost (issue #7)
        self.details = StepDetails()
        panels = QWidget()
        pv = QVBoxLayout(panels)
        pv.setContentsMargins(0, 0, 0, 0)
        pv.addWidget(self.approval)
        pv.addWidget(self.takeover)
        pv.addWidget(self.log_tabs, 1)
        self.right = QSplitter(Qt.Vertical)
        self.right.addWidget(panels)
        self.right.addWidget(self.details)
        self.right.setSizes([420, 300])
        RoomKeeper(self.right, panels)  # the approval panel's wrapped text and buttons: never cut off below
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(left)
        self.split.addWidget(self.right)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setSizes([700, 580])  # the step log's columns need their room
        self.live_page = QWidget()
        cv = QVBoxLayout(self.live_page)
        cv.setContentsMargins(4, 4, 4, 4)
        cv.addWidget(self.task_bar)
        cv.addWidget(self.error_banner)
        cv.addWidget(self.split, 1)
        self.review = ReviewPanel(self.store, annotator=self.settings.annotator_name())
        self.review.branchRequested.connect(self.start_branch)
        self.review.replayRequested.connect(lambda rid: self.start_replay(rid, self.review.replay_speed.currentData()))
        self.review.resumeRequested.connect(self.start_resume)
        self.modes = QTabWidget()
        self.modes.addTab(self.live_page, "Live")
        self.modes.addTab(self.review, "Review")
        self.reports = ReportsPanel(self.store)
        self.reports.openRun.connect(self.open_in_review)
        self.reports.annotator = self.review._annotator
        self.modes.addTab(self.reports, "Reports")
        self.modes.currentChanged.connect(self._on_modes_changed)
        self.setCentralWidget(self.modes)
        self._build_toolbar(demo)
        self._build_status()
        self.approval.install_shortcuts(self)
        self.lookahead.install(self.log_tabs, self.findChild(QToolBar, "runToolbar"), self.approval)
        build_menus(self)  # the toolbar's actions again, for a screen too narrow for the toolbar

    def _action(self, text: str, key: str, slot, tip: str, checkable: bool = False) -> QAction:
        a = QAction(text, self)
        a.setShortcut(QKeySequence(key))
        a.setToolTip(f"{tip} ({QKeySequence(key).toString(QKeySequence.NativeText)})")
        a.setCheckable(checkable)
        (a.toggled if checkable else a.triggered).connect(slot)
        self.addAction(a)
        return a

    def _build_toolbar(self, demo: bool) -> None:
        tb = QToolBar("Run")
        tb.setObjectName("runToolbar")
        self.addToolBar(tb)
        self.act_run = self._action("Run", "F5", self.run_clicked, "Start a run, or resume a paused one")
        self.act_pause = self._action("Pause", "F6", self.bridge.pause, "Pause after the current step")
        self.act_step = self._action("Step", "F10", self.step_clicked, "Run one step, then pause")
        self.act_stop = self._action("Stop", "Shift+F5", self.bridge.stop, "Stop now, even during a model call")
        self.act_take = self._action("Take over", "F8", self.take_over, "Pause the agent and act by hand")
        self.act_hand = self._action("Hand back", "F9", lambda: self.takeover._hand_back(), "Resume the agent")
        for a in (self.act_run, self.act_pause, self.act_step, self.act_stop, self.act_take, self.act_hand):
            tb.addAction(a)
        tb.addSeparator()
        tb.addWidget(QLabel(" Max steps "))
        self.max_steps = QSpinBox(minimum=1, maximum=500, value=self.settings.max_steps)
        tb.addWidget(self.max_steps)
        tb.addWidget(QLabel(" Ask before "))
        self.policy = QComboBox()
        self.policy.addItems(POLICIES)
        self.policy.setCurrentText(self.settings.approval_policy)
        self.policy.setToolTip("irreversible: ask before actions that cannot be undone; every: step mode, "
                               "ask before each action; never: do not ask")
        tb.addWidget(self.policy)
        tb.addWidget(QLabel(" Memory "))
        self.memory = QSpinBox(minimum=0, maximum=5, value=self.settings.memory_k)
        self.memory.setToolTip("Give the agent this many similar past successful runs as examples before it "
                               "starts (procedural memory; 0 = off)")
        tb.addWidget(self.memory)
        self.demo_box = QCheckBox("Demo policy (offline)")
        self.demo_box.setToolTip("Use Cockpit's rule-based demo policy on the bundled demo shop: no model, no key")
        self.demo_box.setChecked(demo)
        tb.addWidget(self.demo_box)
        self.keep_browser_box = QCheckBox("Keep browser state")
        self.keep_browser_box.setToolTip("Start the run in the browser as the last run left it (cookies, storage, "
                                         "log-ins). Off: each run starts clean, in a new browser context")
        self.keep_browser_box.setChecked(self.settings.keep_browser_state)
        tb.addWidget(self.keep_browser_box)
        tb.addSeparator()
        self.act_boxes = self._action("Boxes", "B", self.view.set_marks_visible, "Show or hide the numbered boxes",
                                      checkable=True)
        self.act_boxes.setChecked(True)
        self.act_fit = self._action("Fit", "Ctrl+0", self.view.fit, "Fit the screenshot to the pane")
        self.act_add = self._action("Add mark", "M", self.view.set_add_mode,
                                    "Draw a box around an element the marking missed", checkable=True)
        for a in (self.act_boxes, self.act_add):  # single keys: only in Live (Review has its own)
            self.removeAction(a)
            a.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            self.live_page.addAction(a)
        self.act_settings = self._action("Model…", "Ctrl+,", self.open_settings,
                                         "Model server, model and API key; the browser (local, or a WebDriver URL)")
        self.act_open = self._action("Open tasks…", "Ctrl+O", self.task_bar.choose_file, "Load a task file")
        self.act_quit = self._action("Quit", "Ctrl+Q", self.close, "Stop any run, close the browser and quit")
        for a in (self.act_boxes, self.act_fit, self.act_add, self.act_settings):
            tb.addAction(a)

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.st_state = QLabel("idle")
        self.st_steps = QLabel("")
        self.st_tokens = QLabel("")
        self.st_time = QLabel("")
        self.st_browser = QLabel("browser: not started")
        for w in (self.st_state, self.st_steps, self.st_tokens, self.lookahead.status, self.st_time, self.st_browser):
            sb.addPermanentWidget(w)
        self.clock = QTimer(self, interval=1000)
        self.clock.timeout.connect(self._tick)
        self.clock.start()

    def _connect(self) -> None:
        b = self.bridge
        b.observed.connect(self._on_bridge_observed)
        b.event.connect(self._on_bridge_event)
        b.approvalRequested.connect(self._on_bridge_approval)
        b.approvalClosed.connect(self.approval.close_request)
        b.approvalClosed.connect(self.lookahead.on_approval_closed)
        b.stateChanged.connect(self._on_bridge_state)
        b.liveFrame.connect(self._on_bridge_live)
        b.failed.connect(self._on_bridge_failed)
        b.replayed.connect(self._on_bridge_replayed)
        b.runEnded.connect(self._on_bridge_ended)
        self.approval.decided.connect(b.answer_approval)
        self.takeover.act.connect(self._on_takeover_act)
        self.takeover.handBack.connect(self._on_takeover_hand_back)
        self.task_bar.runRequested.connect(self.run_clicked)
        self.task_bar.fileProblems.connect(lambda p, probs: self.show_error(
            f"{p}: {len(probs)} problem(s): " + "; ".join(probs[:5]) + (" …" if len(probs) > 5 else "")))
        self.log_panel.stepSelected.connect(self.show_step)
        self.view.markClicked.connect(self._on_view_mark_clicked)
        self.view.rectDrawn.connect(self._on_view_rect)
        self.view.pointClicked.connect(self._on_view_point)  # take-over at a point (take_over.py)
        self.view.addModeChanged.connect(self.act_add.setChecked)
        self.view.customContextMenuRequested.connect(self._on_view_menu)
        self.demo_box.toggled.connect(self._on_demo_toggled)
        if self.demo_box.isChecked():
            self._on_demo_toggled(True)

    def _on_modes_changed(self, index: int) -> None:
        if self.modes.widget(index) is self.review:
            self.review.refresh()
        elif self.modes.widget(index) is self.reports:
            self.reports.refresh()

    def open_in_review(self, run_id: str) -> None:
        self.modes.setCurrentWidget(self.review)
        self.review.show_run(run_id)

    # ---------- controls ----------
    def run_clicked(self) -> None:
        if self.bridge.busy:
            if self.bridge.state in (PAUSED, TAKEN_OVER):
                self.bridge.resume()
                self.takeover.setVisible(False)
            return
        self.start_run()

    def step_clicked(self) -> None:
        if self.bridge.busy:
            self.bridge.step()
        else:
            self.start_run(paused=True)
            self.bridge.step()

    def start_run(self, paused: bool = False) -> bool:
        task, url, task_id = self.task_bar.task()
        demo = self.demo_box.isChecked()
        if not task:
            self.show_error("Enter a task first.")
            return False
        if not url and not demo:
            self.show_error("Enter a start URL (or tick Demo policy to use the bundled demo shop).")
            return False
        self.settings.max_steps = self.max_steps.value()
        self.settings.approval_policy = self.policy.currentText()
        self.settings.memory_k = self.memory.value()
        try:
            agent = self._agent_config(demo, domains=self.task_bar.domains())
        except CockpitError as e:  # also a bad allowed domain: the text stays in the field to fix
            self.show_error(str(e))
            return False
        extra = self.task_bar.extra()
        extra.pop("allowed_domains", None)  # the field, filled from the task, is what applies (not a union)
        if extra:  # a task from a task file: its hop queue (MMInA) and reference answers go with the run
            from cockpit.core.tasks.hops import tracker_for
            agent.hops = tracker_for(extra)
        spec = RunSpec(task, url or DEMO_URL, self.settings.model, agent, demo=demo, task_id=task_id,
                       task_extra=extra or None)
        return self._launch(spec, "Starting the browser…", paused=paused)

    def _agent_config(self, demo: bool, policy: str | None = None, domains=()) -> AgentConfig:
        """Today's settings. `domains`: the task bar's allowed domains (a branch or resume keeps its run's own,
        cockpit.core.safety.runlimits); CockpitError names a bad one."""
        return AgentConfig(max_steps=self.max_steps.value(), keep_images=self.settings.keep_images, demo=demo,
                           approval_policy=policy or self.policy.currentText(), breakpoints=self.breakpoints,
                           memory_k=self.memory.value(), allowed_domains=list(domains),
                           **self.lookahead.agent_options(demo))

    def _launch(self, spec: RunSpec, banner: str, *, paused: bool = False) -> bool:
        """Reset the Live view for a new run and hand `spec` to the bridge."""
        self.modes.setCurrentWidget(self.live_page)
        self.approval.user = self.settings.annotator_name()
        spec.keep_browser = self.settings.keep_browser_state = self.keep_browser_box.isChecked()
        self.bridge.use_browser(self.settings.webdriver_url, self.settings.chrome_args)
        self.error_banner.setVisible(False)
        self.log_panel.clear_run()
        self.hop_strip.clear()
        self.lookahead.reset()
        self.details.show_step(None, {}, None)
        self.tokens, self.cost, self.agent_steps, self.latest_step = 0, 0.0, 0, 0
        self.shown_step = self.live_step = None
        self.run_id = ""  # until the bridge says the run started: no counters, no screenshot of the last run
        self.began = False  # anything of this run (or replay) came back from the bridge
        self._update_status()
        self.st_time.setText("0:00")
        self.view.clear(banner)
        self.started_at = time.monotonic()
        self.banner.setText(banner)
        self.running = self.bridge.start(spec, paused=paused)
        return self.running

    def start_branch(self, run_id: str, step: int) -> bool:
        """Replay `run_id` up to `step` in the browser, then let the agent go on from there (Live tab), asking
        at least as the parent run did (as a resume does; core.resume.resume_policy)."""
        from cockpit.core.replay.resume import resume_policy
        policy = resume_policy(self.store.run(run_id), self.policy.currentText())
        return self._start_special(run_id, branch_from=(run_id, step), policy=policy)

    def start_replay(self, run_id: str, speed: float | None = 1.0) -> bool:
        """Watch a finished run again on today's site (no model)."""
        return self._start_special(run_id, replay_run=run_id, replay_speed=speed)

    def start_resume(self, run_id: str, replay: bool = False) -> bool:
        """Continue an interrupted run, as the same run, in a new browser (model, policy: resume_settings)."""
        model, policy = resume_settings(self.store.run(run_id), self.policy.currentText())
        return self._start_special(run_id, resume_run=run_id, resume_replay=replay, model=model, policy=policy)

    def _start_special(self, run_id: str, model=None, policy: str | None = None, **kw) -> bool:
        if self.bridge.busy:
            self.show_error("A run is going; stop it first.")
            return False
        run = self.store.run(run_id)
        demo = bool(run["demo"])  # the bridge serves the demo policy itself for demo runs
        spec = RunSpec(run["task"], run["url"], model or self.settings.model, self._agent_config(demo, policy),
                       demo=demo, task_id=run["task_id"] or "", **kw)
        verb = "Replaying " if "replay_run" in kw else "Resuming " if "resume_run" in kw else "Branching "
        banner = verb + f"run {run_id}" + (f" (approval policy: {policy})" if policy else "") + "…"
        self.statusBar().showMessage(banner, 15000)
        return self._launch(spec, banner)

    def open_settings(self) -> None:
        from cockpit.ui.settings.dialog import ModelSettingsDialog
        dlg = ModelSettingsDialog(self.settings, self)
        if dlg.exec():
            self.settings = dlg.result_settings()
            self.lookahead.settings_changed()

    def show_error(self, message: str) -> None:
        message = in_window_terms(message)  # the Base URL field, not --base-url
        self.error_banner.setText(message)
        self.error_banner.setVisible(True)
        self.statusBar().showMessage(message.splitlines()[0][:200], 15000)

    # ---------- screenshot interactions ----------
    def _mark(self, mark_id: int) -> Mark | None:
        return next((m for m in self.view.marks() if m.id == mark_id), None)

    def _on_view_mark_clicked(self, mark_id: int) -> None:
        if self.approval.isVisible():
            self.approval.retarget(mark_id)
            self.view.set_highlight(mark_id, HIGHLIGHT_HUMAN)
        elif self.takeover.isVisible():
            m = self._mark(mark_id)
            self.takeover.set_target(mark_id, m.label if m else "")
            self.view.set_highlight(mark_id, HIGHLIGHT_HUMAN)

    def _displayed_step(self) -> int | None:
        """The step the pane's marks belong to: the one picked, the live page's next step, or the latest."""
        if self.shown_step is not None:
            return self.shown_step
        return self.live_step or self.latest_step or None

    def show_step(self, step: int) -> None:
        if not self.run_id:
            return
        row = self.store.step(self.run_id, step)
        if row is None:  # not committed yet: the live view shows it, the details what the log knows
            self.shown_step = None
            self.details.show_pending(step, self.log_panel.row_facts(step))
            return
        self.shown_step = None if (step == self.latest_step and self.bridge.busy) else step
        run = self.store.run(self.run_id)
        try:
            png = self.store.read_file(row["screenshot_clean"] or row["screenshot"], "screenshot")
            marks = marks_from_json(json.loads(self.store.read_file(row["marks_file"], "marks"))) \
                if row["marks_file"] else []
            self.view.set_screenshot(png, marks)
            self.live_step = None
        except (CockpitError, ValueError) as e:
            self.view.clear(f"Step {step}: {e}")
        color = HIGHLIGHT_HUMAN if row.get("actor") == "human" else HIGHLIGHT_AGENT
        if row.get("target"):
            self.view.set_highlight(row["target"], color)
        self.view.set_pointer(row.get("action") or row.get("action_text"), row.get("pointer"), color)  # pixel actions
        self.log_panel.set_pointer(step, row)
        self._show_corrections(step)
        self.banner.setText(f"step {step} ({row.get('actor') or 'agent'}) — {(row.get('title') or '')[:60]} — "
                            f"{(row.get('url') or '')[:80]}")
        self.details.show_step(self.store, run, row)
        self.lookahead.show_step(step, row)

    def _sync_details(self, step: int | None) -> None:
        """The details pane shows the highlighted row's step (only the details: the pane keeps its page)."""
        if step is None or step != self.log_panel.current_step() or not self.run_id:
            return
        row = self.store.step(self.run_id, step)
        if row is None:
            self.details.show_pending(step, self.log_panel.row_facts(step))
        else:
            self.details.show_step(self.store, self.store.run(self.run_id), row)

    # ---------- status ----------
    def _update_controls(self) -> None:
        busy, state = self.bridge.busy, self.bridge.state
        self.act_run.setText("Resume" if busy and state in (PAUSED, TAKEN_OVER) else "Run")
        self.act_run.setEnabled(not busy or state in (PAUSED, TAKEN_OVER))
        self.act_pause.setEnabled(busy and state not in (PAUSED, TAKEN_OVER, STOPPING))
        self.act_step.setEnabled(not busy or state in (PAUSED,))
        self.act_stop.setEnabled(busy and state != STOPPING)
        self.act_take.setEnabled(busy and not self.bridge.taken_over and state != STOPPING)
        self.act_hand.setEnabled(busy and self.bridge.taken_over)
        for w in (self.task_bar, self.demo_box, self.keep_browser_box, self.max_steps, self.policy,
                  self.lookahead.box):
            w.setEnabled(not busy)

    def _update_status(self) -> None:
        self.st_steps.setText(self.step_label(self.latest_step) if self.run_id else "")
        cost = f", ${self.cost:.4f}" if self.cost else (" (demo)" if self.demo_box.isChecked() else "")
        self.st_tokens.setText(f"{self.tokens:,} tokens{cost}" if self.run_id else "")

    def step_label(self, row: int) -> str:
        """One numbering everywhere: the step log's row, and the agent's steps of its budget (human steps use none)."""
        return f"row {row} · agent step {self.agent_steps}/{self.max_steps.value()}"

    def _tick(self) -> None:
        if self.started_at is not None and self.bridge.busy:
            s = int(time.monotonic() - self.started_at)
            self.st_time.setText(f"{s // 60}:{s % 60:02d}")

    def _on_demo_toggled(self, on: bool) -> None:
        from cockpit.core.demo.policy import DEMO_TASK
        task, url, _ = self.task_bar.task()
        if on and not task:
            self.task_bar.set_task(DEMO_TASK, DEMO_URL)
        elif on and not url:
            self.task_bar.url_edit.setText(DEMO_URL)

    def closeEvent(self, event) -> None:
        # The stopped run's last events are queued for this window; they must not reach its closed store.
        b = self.bridge
        pairs = ((b.observed, self._on_bridge_observed), (b.event, self._on_bridge_event),
                 (b.stateChanged, self._on_bridge_state), (b.liveFrame, self._on_bridge_live),
                 (b.failed, self._on_bridge_failed), (b.replayed, self._on_bridge_replayed),
                 (b.runEnded, self._on_bridge_ended))
        for signal, slot in (() if getattr(self, "_unhooked", False) else pairs):  # a second close: done
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)
        self._unhooked = True
        self.save_layout()
        try:
            save_settings(self.settings)
        except CockpitError as e:
            log.warning("settings not saved: %s", e)
        self.bridge.shutdown()
        self.review.loader.stop()  # a tab gets no closeEvent of its own
        self.reports.cancel_judging()
        self.store.close()
        super().closeEvent(event)
