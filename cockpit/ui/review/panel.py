"""Review mode: the runs browser, the step-through viewer and the labelling bar.

Built for the annotator labelling hundreds of trajectories: keyboard only, a
queue of runs not yet labelled, one key per verdict, digits for the failure
category, N for the next run. Screenshots are decoded off the GUI thread and
the neighbours of the current step are preloaded, so stepping stays fast.
Reads the store through its own connection; writes only labels.

The panel holds the runs browser and the tools; the step viewer is in
review_steps, the labelling in review_labelling, the decoding thread in
review_loader.
"""
from __future__ import annotations

import html
import json
import time
from collections import OrderedDict

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QInputDialog, QLabel,
                               QLineEdit, QListView, QListWidget, QListWidgetItem, QPushButton, QSplitter,
                               QTableView, QVBoxLayout, QWidget)

from cockpit.core.errors import CockpitError
from cockpit.core.replay import resume
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.records import status_text
from cockpit.ui.review.adjudication_view import ReviewAdjudication
from cockpit.ui.review.compare_dialog import CompareDialog
from cockpit.ui.flow_layout import flow_row
from cockpit.ui.plaintext import tip
from cockpit.ui.review.reask_dialog import open_reask
from cockpit.ui.review.labelling import AXIS_KEYS, ReviewLabelling
from cockpit.ui.review.layout import ReviewLayout
from cockpit.ui.review.loader import SOURCE, _Loader
from cockpit.ui.review.queue import ReviewQueue
from cockpit.ui.review.steps import CACHE, MARKED_NOTE, PRELOAD, ReviewSteps
from cockpit.ui.review.runs_model import RunFilter, RunsTableModel, column
from cockpit.ui.screenshot.view import ScreenshotView
from cockpit.ui.live.step_log import StepDetails

__all__ = ["ReviewPanel", "STEP_KEYS", "CACHE", "PRELOAD", "SOURCE", "MARKED_NOTE"]

STEP_KEYS = {"Q": "correct", "W": "wrong_target", "E": "wrong_action", "R": "no_progress"}


class ReviewPanel(ReviewSteps, ReviewLabelling, ReviewQueue, ReviewAdjudication, ReviewLayout, QWidget):
    openLive = Signal(str)
    branchRequested = Signal(str, int)  # run id, step: replay up to it in a new browser, then the agent goes on
    replayRequested = Signal(str)
    resumeRequested = Signal(str, bool)  # run id, by replaying its steps (else: reopen the last address)
    labelled = Signal(str)  # run id

    def __init__(self, store: Store, parent=None, *, annotator: str = ""):
        super().__init__(parent)
        self.store = store
        self.run: dict | None = None
        self.steps: list[dict] = []
        self.index = 0  # position in self.steps
        self.opened_at = time.monotonic()
        self.queue: list[str] = []
        self._images: OrderedDict[tuple[str, int], QImage] = OrderedDict()
        self._marks: dict[tuple[str, int], list] = {}
        self._pick_target = False
        self._revealed = False  # the open run's other verdicts have been on screen
        # No Qt parent: the loader thread holds it, so it cannot be destroyed under a pending emit.
        self.loader = _Loader(store.root)
        self.loader.image.connect(self._on_loader_image)
        self.loader.thumb.connect(self._on_loader_thumb)
        self._build(annotator)
        self._shortcuts()
        self.model.reload()
        self._update_count()
        self._refresh_queue()

    def closeEvent(self, event) -> None:
        self.loader.stop()
        super().closeEvent(event)

    # ---------- building ----------
    def _build(self, annotator: str) -> None:
        self.model = RunsTableModel(self.store, self)
        self._build_adjudication()  # cockpit.ui.review.adjudication_view
        self.search = QLineEdit(placeholderText="search task and answer…")
        self.search.setMinimumWidth(80)
        self.search.returnPressed.connect(self.apply_filter)
        self.f_site, self.f_model, self.f_status = QComboBox(), QComboBox(), QComboBox()
        self.f_human, self.f_judge, self.f_annotator, self.f_since = QComboBox(), QComboBox(), QComboBox(), QComboBox()
        self.f_human.addItems(["human: any", "success", "fail", "unsure", "unlabelled"])
        self.f_judge.addItems(["judge: any", "success", "fail", "undecided", "unjudged"])
        self.f_since.addItems(["any time", "today", "last 7 days", "last 30 days"])
        self._fill_filters()
        for c in (self.f_site, self.f_model, self.f_status, self.f_human, self.f_judge, self.f_annotator,
                  self.f_since):
            c.currentIndexChanged.connect(self.apply_filter)
            c.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)  # a long site name: no wider
            c.setMinimumContentsLength(4)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.DescendingOrder)
        self.table.verticalHeader().setVisible(False)
        head = self.table.horizontalHeader()
        for key in ("started", "id", "status", "steps", "site"):  # whole: rows told apart at a glance
            head.setSectionResizeMode(column(key), QHeaderView.ResizeToContents)
        head.resizeSection(column("task"), 260)
        head.setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _: self.open_run(self.model.run_id(cur.row())))
        self.count = QLabel()
        filters = QWidget()
        fl = QVBoxLayout(filters)
        fl.setContentsMargins(0, 0, 0, 0)
        row1, row2 = QHBoxLayout(), QHBoxLayout()
        row1.addWidget(self.search, 2)
        for c in (self.f_site, self.f_model, self.f_status):
            row1.addWidget(c, 1)
        for c in (self.f_human, self.f_judge, self.f_annotator, self.f_since):
            row2.addWidget(c, 1)
        row2.addWidget(self.count)
        fl.addLayout(row1)
        fl.addLayout(row2)
        fl.addWidget(self.adj_row)
        fl.addWidget(self.table, 1)

        self.header = QLabel()
        self.header.setTextFormat(Qt.RichText)
        self.header.setWordWrap(True)
        self.answer = QLabel()
        self.answer.setTextFormat(Qt.RichText)
        self.answer.setWordWrap(True)
        self.answer.setStyleSheet("background:#eef6ee; padding:4px; border:1px solid #cfe3cf")
        self.filmstrip = QListWidget()
        self.filmstrip.setViewMode(QListView.IconMode)
        self.filmstrip.setFlow(QListView.LeftToRight)
        self.filmstrip.setWrapping(False)
        self.filmstrip.setIconSize(QSize(144, 108))
        self.filmstrip.setFixedHeight(140)
        self.filmstrip.setMovement(QListView.Static)
        self.filmstrip.setUniformItemSizes(True)
        self.filmstrip.currentRowChanged.connect(self._on_filmstrip_row)
        self.view = ScreenshotView()
        self.view.clear("Pick a run on the left. Keys: ←/→ steps, S success, F fail, U unsure, "
                        "1–8 failure category, N next unlabelled run, Q/W/E/R judge the step, "
                       "Z the screenshot alone.")
        self.view.markClicked.connect(self._on_view_mark)
        self.view.pointClicked.connect(self._on_view_point)  # a pixel step's corrected point (W, then a click)
        self.compare_btn = QPushButton("Compare with…")
        self.compare_btn.setToolTip("Another run of the same task, side by side with steps aligned")
        self.compare_btn.clicked.connect(self.compare)
        self.reask_btn = QPushButton("Re-ask this step…")
        self.reask_btn.setToolTip("Send the exact request of this step again, edited if you like, "
                                  "and compare the replies (no browser involved)")
        self.reask_btn.clicked.connect(self.reask)
        self.branch_btn = QPushButton("Branch from this step")
        self.branch_btn.setToolTip("Replay the steps before this one in the browser (checking the page still "
                                   "matches), then let the agent continue from here as a new run")
        self.branch_btn.clicked.connect(lambda: self.run and self.steps and self.branchRequested.emit(
            self.run["id"], self.steps[self.index]["step"]))
        self.replay_btn = QPushButton("Replay in browser")
        self.replay_btn.setToolTip("Watch this run again on today's site, at the recorded pace")
        self.replay_speed = QComboBox()
        for label, speed in (("0.5×", 0.5), ("1× (recorded pace)", 1.0), ("2×", 2.0), ("4×", 4.0),
                             ("as fast as pages load", None)):
            self.replay_speed.addItem(label, speed)
        self.replay_speed.setCurrentIndex(1)
        self.replay_btn.clicked.connect(lambda: self.run and self.replayRequested.emit(self.run["id"]))
        self.tools_row = flow_row(())  # wraps on a narrow window: no button has its text cut
        self.tools = self.tools_row.layout()
        self.tools.addWidget(self.compare_btn)
        self.tools.addWidget(self.reask_btn)
        self.tools.addWidget(self.branch_btn)
        self.tools.addWidget(self.replay_btn)
        self.tools.addWidget(self.replay_speed)
        self._build_resume()
        self.step_info = QLabel()
        self.step_info.setTextFormat(Qt.RichText)
        self.step_info.setWordWrap(True)
        self.image_note = QLabel()  # says when the shown image is not the clean screenshot
        self.image_note.setTextFormat(Qt.PlainText)
        self.image_note.setStyleSheet("color:#e65100")
        self.image_note.hide()
        self.details = StepDetails()
        self._build_label_bar(annotator)
        viewer = QWidget()
        vl = QVBoxLayout(viewer)
        vl.setContentsMargins(0, 0, 0, 0)
        vl.addWidget(self.header)
        vl.addWidget(self.answer)
        vl.addWidget(self.filmstrip)
        self.vsplit = vsplit = QSplitter(Qt.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.tools_row)
        tl.addWidget(self.step_info)
        tl.addWidget(self.image_note)
        tl.addWidget(self.view, 1)
        vsplit.addWidget(top)
        vsplit.addWidget(self.details)
        vsplit.setSizes([520, 200])
        vl.addWidget(vsplit, 1)
        vl.addWidget(self.label_bar)
        vl.addWidget(self.adjudication)
        self.side = QSplitter(Qt.Vertical)  # the runs list; on a small screen the step's details under it
        self.side.addWidget(filters)
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(self.side)
        self.split.addWidget(viewer)
        self.split.setSizes([420, 860])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.split)
        self._install_layout()

    def _build_resume(self) -> None:
        """Resume / Close run, shown for a run whose process died (see cockpit.core.replay.resume)."""
        self.resume_btn = QPushButton("Resume")
        self.resume_btn.setToolTip("Continue this run, as the same run, in a new browser and with its model: "
                                   "new steps follow the last one and the agent sees the conversation so far")
        self.resume_replay = QCheckBox("by replaying its steps")
        self.resume_replay.setToolTip("Restore the page by replaying the recorded actions (irreversible ones are "
                                      "asked about again) instead of opening the address the last step ended on")
        self.close_run_btn = QPushButton("Close run")
        self.close_run_btn.setToolTip("Give this interrupted run up: it is marked closed and its steps are kept")
        self.resume_btn.clicked.connect(lambda: self.run and self.resumeRequested.emit(
            self.run["id"], self.resume_replay.isChecked()))
        self.close_run_btn.clicked.connect(self.close_run)
        for w in (self.resume_btn, self.resume_replay, self.close_run_btn):
            self.tools.addWidget(w)
        self._update_resume()

    def _update_resume(self) -> None:
        status = self.run["status"] if self.run else ""
        for w in (self.resume_btn, self.resume_replay):
            w.setVisible(status in resume.RESUMABLE)
        self.close_run_btn.setVisible(status == "interrupted")

    def close_run(self) -> bool:
        """Mark the open (interrupted) run closed; its steps stay."""
        if not self.run:
            return False
        try:
            resume.close(self.store, self.run["id"])
        except CockpitError as e:
            self.status.setText(str(e))
            return False
        self.refresh()
        self.status.setText(f"run {self.run['id']} closed; its steps are kept")
        return True

    def _shortcuts(self) -> None:
        def sc(key, slot):
            s = QShortcut(QKeySequence(key), self)
            s.setContext(Qt.WidgetWithChildrenShortcut)
            s.activated.connect(slot)
        sc("Right", lambda: self.go(self.index + 1))
        sc("Left", lambda: self.go(self.index - 1))
        sc("Home", lambda: self.go(0))
        sc("End", lambda: self.go(len(self.steps) - 1))
        sc("S", lambda: self.label("success"))
        sc("F", lambda: self.label("fail"))
        sc("U", lambda: self.label("unsure"))
        sc("N", self.next_unlabelled)
        for axis, key in AXIS_KEYS.items():
            sc(key, lambda a=axis: self.step_axis(a))
        sc("B", lambda: self.view.set_marks_visible(not self.view.marks_visible()))
        for i in range(1, len(L.CATEGORIES) + 1):
            sc(str(i), lambda i=i: self.pick_category(i))
        for key, judgement in STEP_KEYS.items():
            sc(key, lambda j=judgement: self.judge_step(j))

    def _fill_filters(self) -> None:
        """Refill the choices; what was chosen stays chosen (when it is still a choice)."""
        for combo, label, items in ((self.f_site, "site: any", self.model.distinct("site")),
                                    (self.f_model, "model: any", self.model.distinct("model")),
                                    (self.f_status, "status: any", self.model.distinct("status")),
                                    (self.f_annotator, "annotator: any", L.annotators(self.store))):
            chosen = combo.currentText() if combo.currentIndex() > 0 else None
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(label)
            combo.addItems(items)
            for i, item in enumerate(items, 1):  # "refused": stopped at the gate
                if status_text(item) != item:
                    combo.setItemData(i, status_text(item), Qt.ToolTipRole)
            if chosen is not None:
                combo.setCurrentIndex(max(0, combo.findText(chosen)))
            combo.blockSignals(False)

    # ---------- runs ----------
    def refresh(self) -> None:
        """New runs or labels elsewhere: reload the table, keep the open run."""
        self._fill_filters()
        self._refresh_queue()
        self.apply_filter()
        if self.adjudicating:  # new labels or verdicts may add runs to settle, or settle some
            self._reload_adjudication()
            self._show_adjudication()
        if self.run:  # its status may have changed (resumed, closed, finished)
            try:
                self.run = self.store.run(self.run["id"])
            except CockpitError:
                return
            self._show_header()
            self._update_resume()

    def apply_filter(self) -> None:
        def pick(c: QComboBox) -> str:
            return c.currentText() if c.currentIndex() > 0 else ""
        since = {1: 1, 2: 7, 3: 30}.get(self.f_since.currentIndex())
        self.model.reload(RunFilter(search=self.search.text(), site=pick(self.f_site), model=pick(self.f_model),
                                    status=pick(self.f_status), human=pick(self.f_human), judge=pick(self.f_judge),
                                    annotator=pick(self.f_annotator),
                                    since=time.time() - since * 86400 if since else None))
        self._update_count()
        self._reselect()  # (ReviewAdjudication)

    def _update_count(self) -> None:
        self.count.setText(f"{self.model.total:,} runs")

    def open_run(self, run_id: str | None) -> None:
        if not run_id or (self.run and self.run["id"] == run_id):
            return
        try:
            self.run = self.store.run(run_id)
            self.steps = self.store.steps(run_id, with_request=False)
        except CockpitError as e:
            self.view.clear(str(e))
            return
        self.opened_at = time.monotonic()
        self._set_note("")
        self._revealed = False
        self._pick_target = False
        self._marks = {k: v for k, v in self._marks.items() if k[0] == run_id}  # only this run's
        self.filmstrip.blockSignals(True)
        self.filmstrip.clear()
        placeholder = QPixmap(144, 108)
        placeholder.fill(Qt.lightGray)
        for s in self.steps:
            it = QListWidgetItem(QIcon(placeholder), f"{s['step']} {(s['action'] or s['action_text'] or '')[:18]}")
            it.setToolTip(tip(s["action"] or s["action_text"] or "", "see the step's details"))
            self.filmstrip.addItem(it)
        self.filmstrip.blockSignals(False)
        self.loader.request("image", [])
        self.loader.request("thumb", [(run_id, s["step"], str(self.store.file(s["screenshot"])))
                                      for s in self.steps if s["screenshot"]])
        self._update_claim()  # before anything of the run is shown
        self._opened_blind = self.claim_hidden
        self._show_header()
        self._update_resume()
        self._load_label()
        self.index = -1
        self.go(0 if self.steps else -1)
        if not self.steps:
            self.view.clear("This run has no steps.")
        self._show_adjudication()

    def _show_header(self) -> None:
        r, e = self._shown_run(), html.escape  # a blind batch's run: no answer, no status until labelled
        mine = self._my_label()
        hide = (self.blind.isChecked() and mine is None) or self.claim_hidden
        others = "" if hide else self._others_html()
        self._revealed = self._revealed or not hide
        self.header.setText(f"<b>{e(r['task'])}</b><br><span style='color:#555'>{e(r['url'] or '')} · "
                            f"{e(r['model'] or '')} · {e(r['status'])} · {r['steps']} steps · run {e(r['id'])}"
                            f"</span>{others}")
        answer = r["answer"]
        self.answer.setText("<b>Final answer:</b> " + (e(answer) if answer is not None else
                                                         f"<i>none ({e(r['status'])}: {e(r['error'] or '')})</i>"))
        # compact (a small screen): one line each, the whole text in the tooltip
        self.header_line.set_full_text(f"{r['task']} — {status_text(r['status'])} · {r['steps']} steps · "
                                       f"run {r['id']}", self.header.text())
        self.answer_line.set_full_text("Final answer: " + (answer if answer is not None else
                                                           f"none ({r['status']}: {r['error'] or ''})"))

    def _others_html(self) -> str:
        parts = []
        for lab in L.labels(self.store, self.run["id"]):
            parts.append(f"{html.escape(lab['annotator'])}: {lab['verdict']}"
                         + (f" ({html.escape(lab['category'])})" if lab["category"] else ""))
        for v in L.verdicts(self.store, self.run["id"]):
            word = {1: "success", 0: "fail"}.get(v["verdict"], "undecided")
            parts.append(f"{html.escape(v['judge'])}" + (f" k={v['k']}" if v["k"] else "") + f": {word}")
        ref = (self.run.get("config") or {}).get("reference_answers")
        if ref:
            parts.append("reference: " + html.escape(json.dumps(ref)[:200]))
        return ("<br>" + " · ".join(parts)) if parts else ""

    # ---------- tools ----------
    def other_runs(self) -> list[dict]:
        """Other runs of the open run's task (same task id, or same task text)."""
        if not self.run:
            return []
        r = self.run
        return self.store.other_runs_of_task(r["id"], r["task_id"] or "", r["task"])

    def reask(self):
        if self.run and self.steps:
            return open_reask(self.store, self.run["id"], self.steps[self.index]["step"], self)
        return None

    def compare(self, other: str | None = None):
        if not self.run:
            return None
        if other is None:
            runs = self.other_runs()
            if not runs:
                self.status.setText("No other run of this task to compare with.")
                return None
            names = [f"{r['id']} · {r['model']} · {r['status']}" for r in runs]
            choice, ok = QInputDialog.getItem(self, "Compare with", "Another run of this task:", names, 0, False)
            if not ok:
                return None
            other = runs[names.index(choice)]["id"]
        dlg = CompareDialog(self.store, self.run["id"], other, self)
        dlg.show()
        return dlg
