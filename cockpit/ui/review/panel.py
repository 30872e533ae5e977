"""Review mode: the runs browser, the step-through viewer and the labelling bar, composed.

Built for the annotator labelling hundreds of trajectories: keyboard only, a queue of runs not yet labelled,
one key per verdict, digits for the failure category, N for the next run. Reads the store through its own
connection; writes only labels and corrections.

ReviewPanel owns no state of its own but its parts, and wires them. Other code reaches a part's widgets through
the part (``panel.viewer.view``, ``panel.browser.table``, ``panel.label_bar.status``), not through the panel:

- RunsBrowser (runs_browser): the search, the filters, the runs table, the count; says which run was picked.
- AdjudicationBar and AdjudicationView (adjudication_view): the mode, the runs to settle, the verdicts.
- RunViewer (run_viewer): the open run, its header, filmstrip, the step's screenshot and details, and the
  tools on it (run_tools).
- LabelBar (label_bar) with the batch queue (queue): the annotator's fields and the footer line.
- KeyPointsBox (key_points_box): the task's key points, ticked at the step shown, a tab of the step's details.
- Labeller (labelling): stores verdicts and step judgements, the queue N goes through, blind mode.
- MarkCorrector (cockpit.ui.screenshot.corrector): spurious and missing marks on the step's screenshot,
  as in Live (right-click on a box; M draws a missing one).
- ReviewLayout (layout): compact on a small screen, the screenshot alone with Z.
"""
from __future__ import annotations

import sqlite3
from typing import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QInputDialog, QScrollArea, QSplitter, QVBoxLayout, QWidget

from cockpit.core.errors import CockpitError
from cockpit.core.replay import resume
from cockpit.core.settings import Settings
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.records import status_text
from cockpit.ui.review.adjudication_view import AdjudicationBar, AdjudicationView
from cockpit.ui.review.compare_dialog import CompareDialog
from cockpit.ui.review.key_points_box import TYPE_KEY, KeyPointsBox
from cockpit.ui.review.label_bar import AXIS_KEYS, NOT_EXECUTABLE_KEY, SUGGESTION_KEY, LabelBar
from cockpit.ui.review.labelling import Labeller
from cockpit.ui.review.layout import SIDE, ReviewLayout
from cockpit.ui.review.reask_dialog import open_reask
from cockpit.ui.review.run_viewer import RunViewer
from cockpit.ui.review.runs_browser import RunsBrowser
from cockpit.ui.review.step_page_opener import StepPageOpener
from cockpit.ui.screenshot.corrector import MarkCorrector

__all__ = ["ReviewPanel", "STEP_KEYS", "ADD_MARK_KEY"]

STEP_KEYS = {"Q": "correct", "W": "wrong_target", "E": "wrong_action", "R": "no_progress", "T": "harmful"}
ADD_MARK_KEY = "M"  # as in Live: draw a box around an element the marking missed
WATCH_MS = 1500  # how often a shown Review asks the store whether another process wrote to it
COMPARE_PROMPT = "Another run of this task (first), or one that started on its start page or site:"
TYPING_MS = 300  # a pause in typing the annotator's name before To adjudicate lists the runs for it


class ReviewPanel(QWidget):
    branchRequested = Signal(str, int)  # run id, step: replay up to it in a new browser, then the agent goes on
    replayRequested = Signal(str)
    resumeRequested = Signal(str, bool)  # run id, by replaying its steps (else: reopen the last address)
    attemptRequested = Signal(str)  # run id: your own attempt at its task, in Live's browser
    labelled = Signal(str)  # run id

    def __init__(self, store: Store, parent=None, *, annotator: str = "",
                 settings: Callable[[], Settings] | None = None):
        """`settings()`: the window's settings now (Re-ask offers its model when a run's server is gone)."""
        super().__init__(parent)
        self.store = store
        self._settings = settings
        self._left_list: str | None = None  # the run a search or filter took out of the list (shown again after)
        self._adj_note: tuple[str | None, str] = (None, "")  # (run, why To adjudicate shows it in place of another)
        self.browser = RunsBrowser(store)
        self.label_bar = LabelBar(store, annotator)
        self.adj_bar = AdjudicationBar(store, self.label_bar.who)  # a batch's QA reviewer: all its runs
        self.browser.add_above_table(self.adj_bar)
        self.viewer = RunViewer(store, self.label_bar.who)
        self.adjudication = AdjudicationView(store, self.label_bar.who)
        self.labeller = Labeller(store, self.viewer, self.label_bar, self)
        self.key_points = KeyPointsBox(store, self.label_bar.who)  # a tab of the step's details
        self.key_points_tab = QScrollArea()
        self.key_points_tab.setWidgetResizable(True)
        self.key_points_tab.setWidget(self.key_points)
        self.key_points_tab.setMinimumHeight(28)  # as the details' other pages: the screenshot keeps the room
        self.viewer.details.addTab(self.key_points_tab, "Key points")
        self.corrector = MarkCorrector(self.viewer.view, store, self._where, lambda: f"human:{self.label_bar.who()}",
                                       parent=self)  # "human:ada", as Live stores it
        self._build()
        self.layout_ctl = ReviewLayout(self, self.viewer, self.side, self.split, (self.label_bar, self.adjudication))
        self._wire()
        self._shortcuts()
        self.labeller.refresh_queue()
        self._seen = store.data_version()  # the list follows other processes' writes (a batch) while shown
        self.watch = QTimer(self, interval=WATCH_MS)
        self.watch.timeout.connect(self.follow_store)

    def _build(self) -> None:
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.viewer, 1)
        self.side = QSplitter(Qt.Vertical)  # the runs list; on a small screen the step's details under it
        self.side.addWidget(self.browser)
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(self.side)
        self.split.addWidget(right)
        self.split.setSizes([SIDE, 1280 - SIDE])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.split, 1)
        lay.addWidget(self.label_bar)  # the whole width: two rows, not four, and the screenshot keeps the room
        lay.addWidget(self.adjudication)

    def _wire(self) -> None:
        b, bar, lab, tools = self.browser, self.label_bar, self.labeller, self.viewer.tools
        b.runPicked.connect(self.open_run)
        b.listChanged.connect(self._on_list_changed)
        self.adj_bar.onlyChanged.connect(b.set_only)
        self.adj_bar.modeChanged.connect(self._on_adjudication_mode)
        self.adjudication.recorded.connect(self._on_adjudicated)
        bar.verdictRequested.connect(self.label)
        bar.nextRequested.connect(lab.next_unlabelled)
        bar.annotatorChanged.connect(lambda _name: lab.on_annotator_changed())
        bar.annotatorChanged.connect(lambda _name: self.key_points.refresh())
        # a QA reviewer? To adjudicate lists their batches whole: at once for a name picked, after a pause in typing
        self._typing = QTimer(self, singleShot=True, interval=TYPING_MS)
        self._typing.timeout.connect(lambda: self.adj_bar.adjudicating and self.refresh())
        bar.annotator.lineEdit().textEdited.connect(lambda _text: self._typing.start())  # (before annotatorChanged)
        bar.annotatorChanged.connect(lambda _name: self._typing.isActive() or (self.adj_bar.adjudicating
                                                                              and self.refresh()))
        self.key_points.message.connect(bar.say)
        self.key_points.counted.connect(self._on_key_points_counted)
        self.key_points.counted.connect(lambda met, total, _t: bar.set_suggestion(met, total))
        self.viewer.stepMoved.connect(self._on_step_moved)
        bar.blindToggled.connect(self._on_blind)
        bar.axisPicked.connect(lab.axis_picked)
        bar.categoryPicked.connect(lab.category_picked)
        bar.commentEdited.connect(lab.resave)
        lab.hiddenRuns.connect(b.model.set_hidden_runs)
        lab.labelled.connect(self._on_labelled)
        lab.openRequested.connect(self.show_run)
        lab.list_order = lambda: b.model.ids
        self.viewer.imageShown.connect(self._show_corrections)
        self.corrector.message.connect(bar.say)
        self.corrector.error.connect(bar.say)
        tools.compareClicked.connect(self.compare)
        tools.reaskClicked.connect(self.reask)
        tools.branchClicked.connect(self._branch)
        v = self.viewer
        tools.replayClicked.connect(lambda: v.run and self.replayRequested.emit(v.run["id"]))
        tools.resumeClicked.connect(lambda by_replay: v.run and self.resumeRequested.emit(v.run["id"], by_replay))
        tools.closeRunClicked.connect(self.close_run)
        tools.attemptClicked.connect(lambda: v.run and self.attemptRequested.emit(v.run["id"]))
        self.step_pages = StepPageOpener(self.store, self)
        self.step_pages.message.connect(bar.say)
        tools.stepPageClicked.connect(self.open_step_page)

    def _shortcuts(self) -> None:
        v, lab = self.viewer, self.labeller

        def sc(key, slot):
            s = QShortcut(QKeySequence(key), self)
            s.setContext(Qt.WidgetWithChildrenShortcut)
            s.activated.connect(slot)
        sc("Right", lambda: v.go(v.index + 1))
        sc("Left", lambda: v.go(v.index - 1))
        sc("Home", lambda: v.go(0))
        sc("End", lambda: v.go(len(v.steps) - 1))
        for key, verdict in (("S", "success"), ("F", "fail"), ("U", "unsure")):
            sc(key, lambda x=verdict: self.label(x))
        sc(NOT_EXECUTABLE_KEY, lambda: self.label(L.NOT_EXECUTABLE))
        sc("N", lab.next_unlabelled)
        sc(SUGGESTION_KEY, lambda: self.adjudication.pick(self.adjudication.points.suggested() or "")
           if self.adj_bar.adjudicating else self.label_bar.accept_suggestion())
        sc(TYPE_KEY, self.key_points.type_points)
        for i in range(1, 10):
            sc(f"Ctrl+{i}", lambda i=i: (self.adjudication.points if self.adj_bar.adjudicating
                                         else self.key_points).toggle(i - 1))
        for axis, key in AXIS_KEYS.items():
            sc(key, lambda a=axis: self.adj_bar.adjudicating or lab.step_axis(a))  # adjudication settles success only
        sc("B", lambda: v.view.set_marks_visible(not v.view.marks_visible()))
        for i in range(1, len(L.CATEGORIES) + 1):
            sc(str(i), lambda i=i: self.pick_category(i))
        for key, judgement in STEP_KEYS.items():
            sc(key, lambda j=judgement: lab.judge_step(j))
        sc(ADD_MARK_KEY, self.corrector.toggle_adding)
        sc("Ctrl+Z", lab.undo)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.watch.start()

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self.watch.stop()  # another tab: nothing polled; the tab switch back refreshes
        super().hideEvent(event)

    def follow_store(self) -> bool:
        """Another process or connection wrote to the store since last asked: the list, the queue and the open
        run's header read again, keeping the selection and the scroll. True when it did."""
        try:
            seen = self.store.data_version()
        except (CockpitError, sqlite3.Error):  # the store closed under a last tick
            return False
        if seen == self._seen:
            return False
        self._seen = seen
        self.refresh()
        return True

    def closeEvent(self, event) -> None:
        self.watch.stop()
        self.viewer.loader.stop()
        super().closeEvent(event)

    def annotator_name(self) -> str:
        """The annotator's name as typed in the label bar (Reports asks for it)."""
        return self.label_bar.who()

    def go(self, i: int) -> None:
        self.viewer.go(i)

    def next_unlabelled(self) -> None:
        self.labeller.next_unlabelled()

    def label(self, verdict: str) -> bool:
        if self.adj_bar.adjudicating:  # S / F pick the adjudicated verdict there; the annotator's own label stays
            if self.viewer.run:
                self.adjudication.pick(verdict)
            return False
        if self.viewer.run and not self.browser.listed(self.viewer.run["id"]):  # never to a run the list hides
            self.label_bar.say(f"Run {self.viewer.run['id']} is not in the list; label keys do nothing.")
            return False
        if verdict == L.NOT_EXECUTABLE:  # asks why first (ReasonDialog), stores once answered
            return self.labeller.ask_not_executable(self) is not None
        return self.labeller.label(verdict)

    def pick_category(self, i: int) -> None:
        if self.adj_bar.adjudicating:
            self.label("fail")
        else:
            self.labeller.pick_category(i)

    # ---------- runs ----------
    def refresh(self) -> None:
        """New runs or labels elsewhere: reload the table, keep the open run."""
        self.browser.fill_filters()
        self.labeller.refresh_queue()
        self.browser.reload_kept()
        if self.adj_bar.adjudicating:  # new labels or verdicts may add runs to settle, or settle some
            self.adj_bar.reload()
            self._show_adjudication()
        if self.viewer.run:  # its status may have changed (resumed, closed, finished)
            self.viewer.reload_run()
            self.labeller.show_header()

    def show_run(self, run_id: str) -> None:
        """Open a run and select its row (open_run does both)."""
        self.open_run(run_id)

    def open_run(self, run_id: str | None) -> None:
        """Open a run, its row selected in the list: a search or filter hiding it is cleared, and the status
        line says so (the run shown is always one the list shows, #38)."""
        if not run_id or (self.viewer.run and self.viewer.run["id"] == run_id):
            return
        cleared = self.browser.list_and_select(run_id)
        if not self.viewer.open(run_id):
            return
        self.browser.shown_run_id = run_id
        self._left_list = None  # (the run the search or a filter took away: it does not come back over this one)
        self.labeller.on_run_opened()
        self.viewer.look_ahead(self.labeller.upcoming())  # N's next run: its first screenshot decoded meanwhile
        self.viewer.go(self.viewer.first_shown() if self.viewer.steps else -1)
        self.key_points.show_run(self.viewer.run)
        self._on_step_moved()
        if not self.viewer.steps:
            self.viewer.view.clear("This run has no steps.")
        self._show_adjudication()
        if cleared:
            self.label_bar.say(f"Cleared {cleared} to show run {run_id} in the list.")

    def _on_list_changed(self) -> None:
        """The search or a filter took the open run out of the list: the pane shows it no more (a label key
        would otherwise go to a run the list does not show). Listed again (the search cleared): it comes back."""
        left = self._left_list
        if self.viewer.run is None and left and self.browser.listed(left):
            self.open_run(left)
            self.label_bar.say(f"Run {left} is in the list again.")
            return
        if self.viewer.run and not self.browser.listed(self.viewer.run["id"]) and self.adj_bar.adjudicating \
                and self.browser.model.ids:  # "To adjudicate": the first run to settle, in place of the one open
            gone, first = self.viewer.run["id"], self.browser.model.ids[0]
            self.open_run(first)
            self._left_list = gone
            self._adj_note = (first, f"Run {gone} is not in this list; showing run {first}, the first in it.")
            self._show_adjudication()
            return
        if self.viewer.run and not self.browser.listed(self.viewer.run["id"]):
            gone = self._left_list = self.viewer.run["id"]
            self.browser.shown_run_id = None
            self.viewer.close_run(f"Run {gone} is not in the list any more (search or filters); pick a run there.")
            self.key_points.show_run(None)  # walkthrough 5: its key points and their suggestion stayed
            self.label_bar.load(None)
            self.label_bar.say(f"Run {gone} left the list; label keys do nothing until a run is open.")
            self._show_adjudication()

    def _on_key_points_counted(self, met: int, total: int, ticked: bool) -> None:
        """The tab says how many key points are met; a tick (or typed points) brings the tab to the front."""
        tabs = self.viewer.details
        tabs.setTabText(tabs.indexOf(self.key_points_tab), f"Key points {met}/{total}" if total else "Key points")
        if ticked:
            tabs.setCurrentWidget(self.key_points_tab)

    def _on_step_moved(self) -> None:
        """Key points ticked now are met at the step shown."""
        s = self.viewer.current()
        self.key_points.set_step(s["step"] if s is not None else None)
        self.adjudication.set_step(s["step"] if s is not None else None)

    def _where(self) -> tuple[str, int] | None:
        """The run and step the screenshot shows (for corrections)."""
        s = self.viewer.current()
        return (self.viewer.run["id"], s["step"]) if s is not None else None

    def _show_corrections(self) -> None:
        where = self._where()
        if where is not None:
            self.corrector.show(*where)

    def _on_labelled(self, run_id: str) -> None:
        self.browser.update_human(run_id)
        self.labelled.emit(run_id)

    def _on_blind(self, on: bool) -> None:
        self.browser.set_blind(on)
        self.labeller.show_header()

    def _on_adjudication_mode(self, on: bool) -> None:
        self.layout_ctl.set_adjudicating(on)
        self._show_adjudication()

    def _show_adjudication(self) -> None:
        if self.adj_bar.adjudicating:
            shown = self.viewer.run["id"] if self.viewer.run else None
            self.adjudication.show_item(self.adj_bar.item(shown), run_open=shown is not None)
            if self._adj_note[0] == shown:  # why this run is shown, until another is
                self.adjudication.message.setText(self._adj_note[1])
            self._adj_note = (shown, self._adj_note[1]) if self._adj_note[0] == shown else (None, "")

    def _on_adjudicated(self, run_id: str) -> None:
        self.adj_bar.reload()  # under "open only" the run leaves the list
        self._show_adjudication()
        item = self.adj_bar.item(run_id)
        verdict = item["adjudication"]["verdict"] if item and item["adjudication"] else "?"
        self.adjudication.message.setStyleSheet("color:#1b5e20")
        self.adjudication.message.setText(f"Recorded: run {run_id} adjudicated {verdict.replace('_', ' ')}.")

    # ---------- tools ----------
    def _branch(self) -> None:
        s = self.viewer.current()
        if s is not None:
            self.branchRequested.emit(self.viewer.run["id"], s["step"])

    def open_step_page(self) -> bool:
        """A browser on the shown step's page, from the run's web recording (review/step_page_opener.py)."""
        s = self.viewer.current()
        if s is None:
            self.label_bar.say("Open a run and pick a step first.")
            return False
        return self.step_pages.open(self.viewer.run["id"], s["step"])

    def close_run(self) -> bool:
        """Mark the open (interrupted) run closed; its steps stay."""
        if not self.viewer.run:
            return False
        try:
            resume.close(self.store, self.viewer.run["id"])
        except CockpitError as e:
            self.label_bar.say(str(e))
            return False
        self.refresh()
        self.label_bar.say(f"run {self.viewer.run['id']} closed; its steps are kept")
        return True

    def other_runs(self) -> list[dict]:
        """Other runs of the open run's task (same task id, or same task text)."""
        if not self.viewer.run:
            return []
        r = self.viewer.run
        return self.store.other_runs_of_task(r["id"], r["task_id"] or "", r["task"])

    def reask(self):
        s = self.viewer.current()
        if s is None:
            return None
        return open_reask(self.store, self.viewer.run["id"], s["step"], self, current=self._settings)

    def compare(self, other: str | None = None):
        if not self.viewer.run:
            return None
        if other is None:  # the task's runs first, then runs from its start page or site (walkthrough 9)
            runs = self.store.runs_to_compare(self.viewer.run)
            if not runs:
                self.label_bar.say("No other run of this task, nor of its start page or site, to compare with.")
                return None
            names = [f"{r['why']} · {r['id']} · {r['model']} · {status_text(r['status'])}"
                     + ("" if r["task"] == self.viewer.run["task"] else f" · {r['task'][:60]}") for r in runs]
            choice, ok = QInputDialog.getItem(self, "Compare with", COMPARE_PROMPT, names, 0, False)
            if not ok:
                return None
            other = runs[names.index(choice)]["id"]
        dlg = CompareDialog(self.store, self.viewer.run["id"], other, self)
        dlg.show()
        return dlg
