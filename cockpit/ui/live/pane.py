"""The Live tab: the task bar, the screenshot with its boxes, the approval and take-over panels, the step log
and the step's details.

It draws what the bridge reports (the window hands it each event: ``on_event``, ``on_observed``,
``on_approval``…) and follows the run, or shows a step the human picked. Its numbers (run id, rows, budget) are the
:class:`~cockpit.ui.live.run_controller.RunController`'s. News goes out through `message`; errors show in the
red banner above the panes too.
"""
from __future__ import annotations

import json
import time
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from cockpit.core.agent import events as ev
from cockpit.core.agent.gate import TOOK_OVER
from cockpit.core.errors import CockpitError
from cockpit.core.page.marks import Mark, marks_from_json
from cockpit.core.settings import Settings
from cockpit.core.store import Store
from cockpit.core.store.records import continues_text, parent_step_text, status_text
from cockpit.core.words import plural
from cockpit.ui.elide import ElidedLabel
from cockpit.ui.fieldnames import in_window_terms
from cockpit.ui.live import replay_gate, resumed_rows, start_page
from cockpit.ui.live.approval_panel import ApprovalPanel
from cockpit.ui.live.attempt import AttemptBar
from cockpit.ui.live.breakpoints_panel import BreakpointsPanel
from cockpit.ui.live.bridge import REPLAYING, STOPPING, WAITING_MODEL
from cockpit.ui.live.error_banner import ErrorBanner
from cockpit.ui.live.hop_strip import HopStrip
from cockpit.ui.live.log_sight import bring_into_sight_soon
from cockpit.ui.live.replay_rows import ReplayRows
from cockpit.ui.live.run_controller import RunController
from cockpit.ui.live.status import WHILE_IT_LASTS, YOU_HAVE_IT
from cockpit.ui.live.step_details import NO_TITLE, StepDetails
from cockpit.ui.live.step_log import StepLogPanel
from cockpit.ui.live.takeover_panel import TakeOverPanel
from cockpit.ui.live.task_bar import TaskBar
from cockpit.ui.live.thought_strip import ThoughtStrip
from cockpit.ui.room import RoomKeeper, TallScrollArea
from cockpit.ui.screenshot.corrector import MarkCorrector
from cockpit.ui.screenshot.view import ScreenshotView

HIGHLIGHT_AGENT, HIGHLIGHT_HUMAN = "#e53935", "#1e88e5"
GATE_LINES = 5  # the step's details at the gate: its thought and action readable, the question's buttons in view
IDLE_TEXT = "No run yet. Enter a task and press Run (F5), or tick Demo policy (offline) and press Run."
NO_STEP = "Start a run, or pick a step in the log: marks are corrected on a step's screenshot."


class StepTabs(QTabWidget):
    """The Steps, Breakpoints and Plan tabs: their height never follows their width. A box layout holds a widget
    whose height does at that height, and squeezed the approval panel above to make room for it (#38)."""

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return False


class LivePane(QWidget):
    message = Signal(str, int)  # news for the status bar, and for how many milliseconds
    stepOpened = Signal(int, object)  # a recorded step was opened: its number and row

    def __init__(self, store: Store, runs: RunController, settings: Callable[[], Settings]):
        super().__init__()
        self.store, self.runs, self._settings = store, runs, settings
        self.shown_step: int | None = None  # None: following the run live
        self.replayed_run: str | None = None  # the run "Replay in browser" replays: its rows open its steps
        self.live_step: int | None = None  # the pane shows the live page (paused, taken over), this step to be
        self.last_marks: list[Mark] = []
        self.live_frame = None  # the live page's last image, to come back to from another step
        self.live_seen: tuple | None = None  # that image's (step, stored, title, url)
        self.branch: dict = {}  # the run going, when it is a branch (its parent run and step)
        self._replies: dict[int, str] = {}  # the step being gated's reply, until the step is stored
        self._details_synced = (0.0, False)  # when the details last followed a reply being written, and if it was
        self._build()
        self.corrector = MarkCorrector(self.view, store, self._correction_place, lambda: settings().decided_by(),
                                       self._live_session, no_step=NO_STEP)
        self.corrector.message.connect(lambda text: self.message.emit(text, 8000))
        self.corrector.error.connect(lambda text: self.message.emit(text, 8000))  # a hint, not a failure
        self._connect()

    @property
    def bridge(self):
        return self.runs.bridge

    def _build(self) -> None:
        self.task_bar = TaskBar()
        self.view = ScreenshotView()
        self.view.clear(IDLE_TEXT)
        self.banner = ElidedLabel()  # a long title or answer never widens the pane
        self.error_banner = ErrorBanner()
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.banner)
        self.hop_strip = HopStrip()  # multihop progress and the memories given (hidden otherwise)
        lv.addWidget(self.hop_strip)
        lv.addWidget(self.view, 1)
        self.thinking = ThoughtStrip()  # the model's reply at the current step, as it is written
        lv.addWidget(self.thinking)
        self.approval = ApprovalPanel(user=self._settings().annotator_name())
        self.takeover = TakeOverPanel()
        self.log_panel = StepLogPanel()
        self.replay_rows = ReplayRows(self.log_panel)  # "Replay in browser"'s rows (the bridge's replayStep)
        self.breakpoints: list = []  # shared with the running agent's config
        self.bp_panel = BreakpointsPanel(self.breakpoints)
        self.log_tabs = StepTabs()
        self.log_tabs.addTab(self.log_panel, "Steps")
        self.log_tabs.addTab(self.bp_panel, "Breakpoints")
        self.details = StepDetails()
        self.details.keep_lines(GATE_LINES)  # a selected step is read in a few lines, never a 2-line strip (#38)
        panels = QWidget()
        pv = QVBoxLayout(panels)
        pv.setContentsMargins(0, 0, 0, 0)
        pv.addWidget(self.approval)
        self.attempt_bar = AttemptBar()  # your own attempt's end (cockpit.ui.live.attempt)
        pv.addWidget(self.attempt_bar)
        pv.addWidget(self.takeover)
        pv.addWidget(self.log_tabs, 1)
        self.right = QSplitter(Qt.Vertical)
        # the panels scroll in a window shorter than they are (the gate's question, its edit field and error, on a
        # 700-px screen with a title bar): the window's minimum leaves room for a window frame (issue #38)
        self.panels = TallScrollArea(panels)
        self.right.addWidget(self.panels)
        self.right.addWidget(self.details)
        self.right.setSizes([420, 300])
        RoomKeeper(self.right, self.panels)  # the approval panel's wrapped text and buttons: never cut off below
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(left)
        self.split.addWidget(self.right)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setSizes([700, 580])  # the step log's columns need their room
        cv = QVBoxLayout(self)
        cv.setContentsMargins(4, 4, 4, 4)
        cv.addWidget(self.task_bar)
        cv.addWidget(self.error_banner)
        cv.addWidget(self.split, 1)

    def _connect(self) -> None:
        self.task_bar.fileProblems.connect(lambda p, probs: self.show_error(
            f"{p}: {plural(len(probs), 'problem')}: " + "; ".join(probs[:5]) + (" …" if len(probs) > 5 else ""),
            about="tasks"))
        self.task_bar.fileLoaded.connect(self._on_tasks_loaded)
        self.log_panel.stepSelected.connect(self.show_step)
        self.view.markClicked.connect(self._on_mark_clicked)
        self.view.pointClicked.connect(self._on_point)  # take-over at a point
        self.approval.backRequested.connect(self.follow_live)
        self.approval.decided.connect(self.replay_rows.answered)

    def _on_tasks_loaded(self, path: str, notes: list) -> None:
        """A good task file: its news said each time (with its notes, which are no problem), and an earlier bad
        file's message gone from the banner."""
        self.error_banner.clear("tasks")
        said = f" ({plural(len(notes), 'note')}: {'; '.join(notes[:3])}{' …' if len(notes) > 3 else ''})" if notes else ""
        self.message.emit(f"Tasks loaded from {path.rsplit('/', 1)[-1]}{said}", 15000 if notes else 8000)

    # ---------- a run ----------
    def reset(self, banner: str) -> None:
        """A run is starting: nothing of the last one stays."""
        self.approval.user = self._settings().annotator_name()
        self.error_banner.clear()
        self.log_panel.clear_run()
        self.hop_strip.clear()
        self.thinking.clear()
        self.details.show_step(None, {}, None)
        self.shown_step = self.live_step = self.replayed_run = None
        self.live_frame, self.live_seen, self.last_marks, self._replies, self.branch = None, None, [], {}, {}
        self.corrector.set_adding(False)
        self.view.clear(banner)
        self.banner.setText(banner)

    def show_error(self, message: str, about: str = "run") -> None:
        """The red banner says `message`, about the run or ("tasks") a task file (ErrorBanner)."""
        message = in_window_terms(message)  # the Base URL field, not --base-url
        self.error_banner.say(message, about)
        self.message.emit(message.splitlines()[0][:200], 15000)

    def show_idle(self, text: str = IDLE_TEXT) -> None:
        self.view.clear(text)

    # ---------- which step the pane shows ----------
    def following(self) -> bool:
        return self.shown_step is None

    def displayed_step(self) -> int | None:
        """The step the pane's marks belong to: the one picked, the live page's next step, or the latest."""
        if self.shown_step is not None:
            return self.shown_step
        return self.live_step or self.runs.latest_step or None

    def _correction_place(self) -> tuple[str, int] | None:
        step = self.displayed_step()
        return (self.runs.run_id, step) if self.runs.run_id and step is not None else None

    def _live_session(self):
        """The browser to look a drawn box's element up in: only while the pane shows the live page."""
        return self.bridge.session if (self.shown_step is None and self.bridge.busy) else None

    def show_step(self, step: int) -> None:
        """Step `step` of the run (of a replay: the recorded step it replayed, walkthroughs 4 and 6) as it was."""
        run_id = self.replayed_run or self.runs.run_id  # a replay's: no earlier run's (walkthrough 8)
        if not run_id or replay_gate.shown(self, step, HIGHLIGHT_AGENT):  # asked at its gate: the page now
            return
        row = self.store.step(run_id, step)
        if row is None:  # not committed yet: the live view shows it, the details what the log knows
            self.follow_live()
            self.details.show_pending(step, self.log_panel.row_facts(step), self._replies.get(step, ""))
            return
        self.shown_step = None if (step == self.runs.latest_step and self.bridge.busy) else step
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
        self.view.set_pointer(row.get("action") or row.get("action_text"), row.get("pointer"), color)
        self.log_panel.set_pointer(step, row)
        self.corrector.show(run_id, step)
        there = parent_step_text(self.branch, step)
        self.banner.setText(f"step {step}" + (f" ({there})" if there else "") + f" ({row.get('actor') or 'agent'}) — "
                            f"{row.get('title') or NO_TITLE} — {row.get('url') or ''}")
        self.details.show_step(self.store, self.store.run(run_id), row)
        asked = getattr(self.approval.request, "step", None)
        self.approval.set_away(self.shown_step is not None and self.shown_step != asked)
        self.stepOpened.emit(step, row)

    def follow_live(self) -> None:
        """Back to the live page (and the action the gate asks about, if it asks): its image, caption and
        corrections, and the step a correction drawn on it goes to."""
        if replay_gate.shown(self, None, HIGHLIGHT_AGENT):
            return
        self.shown_step = None
        self.approval.set_away(False)
        if self.live_frame is not None:
            self.view.set_screenshot(self.live_frame, self.last_marks, keep_view=True)
        if self.live_seen is not None:
            step, stored, title, url = self.live_seen
            self._caption_live(step, stored, title, url)
            self.live_step = None if stored else step
            self.corrector.show(self.runs.run_id, step)
        req = self.approval.request
        if req is not None and req.mark is not None:
            self.view.set_highlight(req.mark.id, HIGHLIGHT_AGENT)
        step = getattr(self.approval.request, "step", None)
        if step is not None:
            self.log_panel.select_step(step)

    def sync_details(self, step: int | None) -> None:
        """The details pane shows the highlighted row's step (only the details: the pane keeps its page)."""
        run_id = self.runs.run_id
        if step is None or step != self.log_panel.current_step() or not run_id:
            return
        row = self.store.step(run_id, step)
        if row is None:
            self.details.show_pending(step, self.log_panel.row_facts(step), self._replies.get(step, ""))
        else:
            self.details.show_step(self.store, self.store.run(run_id), row)

    def reveal_row(self, step: int) -> None:
        """Scroll the step log to `step`'s row once the layout has settled (the approval panel took room)."""
        bring_into_sight_soon(self.log_panel, self.log_panel.item(step))  # after the room keeper's (#38, B2)

    # ---------- clicks on the screenshot ----------
    def _mark(self, mark_id: int) -> Mark | None:
        return next((m for m in self.view.marks() if m.id == mark_id), None)

    def _on_mark_clicked(self, mark_id: int) -> None:
        """A box clicked: during a take-over, the person's target (never the gate's action, which a take-over
        drops); else, at the gate, the action's new target."""
        if self.takeover.isVisible():
            m = self._mark(mark_id)
            self.takeover.set_target(mark_id, m.label if m else "")
            self.view.set_highlight(mark_id, HIGHLIGHT_HUMAN)
        elif self.approval.isVisible():
            self.approval.retarget(mark_id)
            self.view.set_highlight(mark_id, HIGHLIGHT_HUMAN)

    def _on_point(self, point: tuple) -> None:
        """A click on the screenshot where there is no box: during a take-over, a point to act at."""
        if not self.takeover.isVisible():
            return
        x, y = point
        under = self.view.mark_at(x, y)  # the smallest box holding the point, as the pane hit-tests boxes
        label = f"<{under.tag}> {under.label}" if under is not None else ""
        self.takeover.set_point((x, y), label)
        self.view.set_pointer(f"Click ({x}, {y})", None, HIGHLIGHT_HUMAN)

    # ---------- what the bridge reports ----------
    def on_event(self, e: ev.Event) -> None:
        self.log_panel.add_event(e)
        self.thinking.on_event(e)
        if isinstance(e, ev.ModelStreaming):  # many a second: the row and the strip; the details once a second,
            writing = e.first_token is not None  # and at once when the first words come (#38: "waiting" meanwhile)
            if time.monotonic() - self._details_synced[0] >= 1.0 or writing != self._details_synced[1]:
                self._details_synced = (time.monotonic(), writing)
                self.sync_details(e.step)
            return
        self._replies = {e.step: e.text} if isinstance(e, ev.ModelReplied) else self._replies  # Raw reply at the gate
        if isinstance(e, ev.RunStarted):
            self._started(e)
        elif isinstance(e, ev.ObservationReady):
            self.last_marks = list(e.marks)
        elif isinstance(e, ev.ActionProposed) and self.shown_step is None and (e.target or e.pointer):
            if e.pointer:  # a pixel action: the crosshair and the element under it, before the gate asks
                self.view.set_pointer(e.action, e.pointer, HIGHLIGHT_AGENT)
            else:
                self.view.set_highlight(e.target, HIGHLIGHT_AGENT)
        elif isinstance(e, ev.ApprovalDecided) and e.message == TOOK_OVER:
            self.message.emit(f"{YOU_HAVE_IT}the agent's action at step {e.step} ({e.action}) was not run: it is "
                              "recorded as rejected, and the agent will be told.", WHILE_IT_LASTS)
        elif isinstance(e, ev.ActionExecuted) and e.actor == "human" and self.bridge.taken_over:
            done = e.message.split("; ")[0] if e.ok else f"your action failed: {e.message}"
            self.message.emit(f"{YOU_HAVE_IT}step {e.step} (yours): {done}", WHILE_IT_LASTS)
        elif isinstance(e, ev.StepFinished) and e.actor == "human":
            self.takeover.set_busy(False)
        elif isinstance(e, ev.RunFinished):
            status = status_text(e.status)  # "refused (stopped at the gate)"
            self.message.emit(f"Run finished ({status})" + (f": {e.answer}" if e.answer else ""), 30000)
            if self.shown_step is None:  # else the pane's caption stays that of the step shown
                branch = continues_text(self.branch)
                self.banner.setText(f"Run {e.run_id}" + (f" ({branch})" if branch else "") + f" finished: {status}"
                                    + (f" — answer: {e.answer}" if e.answer else ""))
        elif isinstance(e, ev.RunFailed):
            self.show_error(f"The run failed: {e.error}")
            if self.live_frame is None:  # it ended before any page was shown: no "Starting the browser…" left
                self.view.clear("The run failed before any page was shown; the red banner above says why.")
            if self.shown_step is None:
                self.banner.setText(f"Run {e.run_id} failed")
        elif isinstance(e, ev.BreakpointHit):
            self.message.emit(f"Paused at step {e.step}: breakpoint {e.reason}", 30000)
            self.bp_panel.refresh()
        elif isinstance(e, ev.HopsTracked):
            self.hop_strip.set_hops(list(e.names))
        elif isinstance(e, ev.HopPassed):
            self.hop_strip.pass_hop(e.hop, e.step)
            if not e.again:  # hops passed before a resume: on the strip, not news
                self.message.emit(f"Hop {e.hop}/{e.total} passed at step {e.step}: {e.name}", 15000)
        elif isinstance(e, ev.MemoriesUsed):
            self.hop_strip.set_memories([(rid, self._task_of(rid)) for rid in e.run_ids])
        start_page.follow(self, e)  # "opening the start page…", and a run stopped while it loaded
        self.sync_details(getattr(e, "step", None))

    def _started(self, e: ev.RunStarted) -> None:
        label = (" [DEMO POLICY: rule-based, not a model]" if self.runs.demo else
                 " [SIMULATOR: rule-based, not a model]" if self.runs.simulated else "")
        try:
            run = self.store.run(e.run_id)
        except CockpitError:
            run = {}
        self.branch = run if continues_text(run) else {}  # a branch: its steps as its parent numbers them
        if self.runs.resumed_at:  # a resume: the log starts at row 1, with the steps recorded before
            resumed_rows.show_earlier(self.log_panel, self.store, e.run_id, self.runs.resumed_at)
        branch = continues_text(self.branch)
        self.banner.setText(f"Run {e.run_id}{label}" + (f" — {branch}" if branch else ""))

    def _task_of(self, run_id: str) -> str:
        try:
            return self.store.run(run_id)["task"]
        except Exception:  # a memory's run was deleted meanwhile: show its id alone
            return "?"

    def on_observed(self, e: ev.ObservationReady, image) -> None:
        self.takeover.forget_target()  # a new page, or the same one looked at again: marks are numbered anew
        self.live_frame, self.live_seen = image, (e.step, e.stored, e.title, e.url)
        if self.shown_step is None:
            self.view.set_screenshot(image, list(e.marks), keep_view=True)
            self._caption_live(e.step, e.stored, e.title, e.url)
            self.live_step = None if e.stored else e.step
            if not e.stored:  # marks corrected on it go to the step that will see this page (a human's acts)
                self.corrector.show(self.runs.run_id, e.step)

    def _caption_live(self, step: int, stored: bool, title: str, url: str) -> None:
        there = parent_step_text(self.branch, step)
        what = (f"step {step}" + (f" ({there})" if there else "") + ": what the model sees" if stored else
                "live page now (during take-over)" if self.bridge.taken_over else "live page now (paused)")
        self.banner.setText(f"{what} — {title or NO_TITLE} — {url}")

    def on_failed(self, message: str) -> None:
        self.show_error(message)
        if not self.runs.began:  # it never started: nothing of it (or of the last run) to show
            what = "The replay stopped" if self.replayed_run else "The run did not start"  # walkthrough 6
            self.banner.setText(f"{what}.")
            self.view.clear(f"{what}; the red banner above says why.")

    def on_approval(self, req) -> None:
        self.approval.show_request(req, self.runs.step_label(req.step))
        if self.replayed_run:  # a replay asks again before an irreversible step: no event fills its row
            self.replay_rows.ask(req)
        if self.shown_step is None and not replay_gate.shown(self, None, HIGHLIGHT_AGENT) and req.mark is not None:
            self.view.set_highlight(req.mark.id, HIGHLIGHT_AGENT)
        self.approval.set_away(self.shown_step is not None and self.shown_step != req.step)
        self._make_room()
        self.reveal_row(req.step)

    def on_state(self, state: str) -> None:
        self.takeover.setVisible(self.bridge.taken_over and state != STOPPING)
        self._make_room()

    def on_approval_closed(self) -> None:
        self.approval.close_request()
        self._make_room()

    def _make_room(self) -> None:
        """A take-over shows its controls and the step log whole on a 700-pixel screen: the step's details step
        aside while it lasts (walkthrough 10: its controls were scrolled away); at the gate the question keeps its
        title and buttons too (its evidence returns on handing back)."""
        both = self.takeover.isVisibleTo(self) and self.approval.isVisibleTo(self)
        self.approval.set_compact(both)
        self.details.setVisible(not self.takeover.isVisibleTo(self))  # the take-over's controls and the log first
        self.details.keep_lines(GATE_LINES)  # a step readable, at the gate (its thought) and after (#38 A14)

    def on_replayed(self, step: int, what: str) -> None:
        self.banner.setText(f"replay: {what}" if step == 0 else f"replayed step {step}: {what}")
        self.message.emit(what, 10000)

    def on_live_frame(self, image) -> None:
        self.live_frame = image
        if self.shown_step is None and self.bridge.state in (WAITING_MODEL, REPLAYING):
            self.view.set_screenshot(image, self.last_marks, keep_view=True)

    def on_ended(self, _result) -> None:
        self.replay_rows.ended()
        self.approval.close_request()
        self.takeover.setVisible(False)
        self._make_room()
        self.sync_details(self.log_panel.current_step())  # stored now, with the run's answer

    def take_over(self) -> bool:
        """The person takes the browser; a question at the gate is dropped (its panel closes when the agent
        says so) and box clicks go to the take-over from now on."""
        if self.bridge.take_over(self._settings().decided_by()) is None:
            return False
        self.takeover.start_looking()
        self.takeover.setVisible(True)
        self._make_room()
        self.shown_step = None
        if (step := self.log_panel.current_step()) is not None:  # the panel pushes the log down: the row stays
            self.reveal_row(step)
        return True
