"""Review mode: the runs browser, the step-through viewer and the labelling bar.

Built for the annotator labelling hundreds of trajectories: keyboard only, a
queue of runs not yet labelled, one key per verdict, digits for the failure
category, N for the next run. Screenshots are decoded off the GUI thread and
the neighbours of the current step are preloaded, so stepping stays fast.
Reads the store through its own connection; writes only labels.
"""
from __future__ import annotations

import html
import json
import threading
import time
from collections import OrderedDict

from PIL import Image
from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QListView, QListWidget, QListWidgetItem, QPushButton, QSplitter,
                               QTableView, QVBoxLayout, QWidget)

from ..core.errors import CockpitError
from ..core.marks import marks_from_json
from ..core.store import Store
from ..core.store import labels as L
from .plaintext import tip
from .runs_model import RunFilter, RunsTableModel
from .screenshot_view import ScreenshotView
from .step_log import StepDetails

STEP_KEYS = {"Q": "correct", "W": "wrong_target", "E": "wrong_action", "R": "no_progress"}
CACHE = 24  # decoded screenshots kept
PRELOAD = 3  # steps decoded ahead and behind


SOURCE = "cockpit-source"  # QImage text key: the file an image was decoded from
MARKED_NOTE = "clean screenshot missing; showing the marked one (its boxes are part of the image)"


def _decode(path: str) -> QImage | None:
    """PNG to QImage with Pillow, whose decoder lets other Python threads (the GUI) run meanwhile."""
    try:
        with Image.open(path) as im:
            im = im.convert("RGB")
            data = im.tobytes()
            img = QImage(data, im.width, im.height, 3 * im.width, QImage.Format_RGB888).copy()
    except (OSError, ValueError):
        return None
    img.setText(SOURCE, path)
    return img


def _decode_first(paths: tuple[str, ...]) -> QImage | None:
    """The first of `paths` that decodes (the clean screenshot, else the marked one)."""
    for path in paths:
        img = _decode(path)
        if img is not None:
            return img
    return None


class _Loader(QObject):
    """Decodes step screenshots and thumbnails in a background thread."""
    image = Signal(str, int, object)  # run id, step, QImage (None: the file is missing or unreadable)
    thumb = Signal(str, int, object)  # run id, step, QImage

    def __init__(self, store_root, parent=None):
        super().__init__(parent)
        self.store_root = store_root
        self._lock = threading.Lock()
        self._jobs: list[tuple[str, str, int, tuple[str, ...]]] = []
        self._wake = threading.Event()
        self._stopped = False
        threading.Thread(target=self._work, name="review-loader", daemon=True).start()

    def stop(self) -> None:
        self._stopped = True
        self._wake.set()

    def request(self, kind: str, jobs: list[tuple[str, int, str | tuple[str, ...]]]) -> None:
        """Replace the pending jobs of `kind` ('image' or 'thumb') with `jobs` (run id, step, path).

        A job's path may be a tuple of paths: the first that decodes is used.

        Images go first: they are what the annotator is waiting for; the
        filmstrip's thumbnails fill in behind them.
        """
        with self._lock:
            keep = [j for j in self._jobs if j[0] != kind]
            new = [(kind, run_id, step, (paths,) if isinstance(paths, str) else tuple(paths))
                   for run_id, step, paths in jobs]
            self._jobs = new + keep if kind == "image" else keep + new
        self._wake.set()

    def _work(self) -> None:
        while not self._stopped:
            self._wake.wait()
            with self._lock:
                if not self._jobs:
                    self._wake.clear()
                    continue
                kind, run_id, step, paths = self._jobs.pop(0)
            img = _decode_first(paths)
            if self._stopped or (img is None and kind == "thumb"):
                continue
            try:
                if img is None:
                    self.image.emit(run_id, step, None)
                elif kind == "thumb":
                    self.thumb.emit(run_id, step, img.scaledToWidth(144, Qt.SmoothTransformation))
                else:
                    self.image.emit(run_id, step, img)
            except RuntimeError:  # the panel is gone
                return


class ReviewPanel(QWidget):
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

    def closeEvent(self, event) -> None:
        self.loader.stop()
        super().closeEvent(event)

    # ---------- building ----------
    def _build(self, annotator: str) -> None:
        self.model = RunsTableModel(self.store, self)
        self.search = QLineEdit(placeholderText="search task and answer…")
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
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.DescendingOrder)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.Stretch)
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
                        "1–8 failure category, N next unlabelled run, Q/W/E/R judge the step.")
        self.view.markClicked.connect(self._on_view_mark)
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
        self.tools = QHBoxLayout()
        self.tools.addWidget(self.compare_btn)
        self.tools.addWidget(self.reask_btn)
        self.tools.addWidget(self.branch_btn)
        self.tools.addWidget(self.replay_btn)
        self.tools.addWidget(self.replay_speed)
        self._build_resume()
        self.tools.addStretch(1)
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
        vsplit = QSplitter(Qt.Vertical)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addLayout(self.tools)
        tl.addWidget(self.step_info)
        tl.addWidget(self.image_note)
        tl.addWidget(self.view, 1)
        vsplit.addWidget(top)
        vsplit.addWidget(self.details)
        vsplit.setSizes([520, 200])
        vl.addWidget(vsplit, 1)
        vl.addWidget(self.label_bar)
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(filters)
        self.split.addWidget(viewer)
        self.split.setSizes([420, 860])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.split)

    def _build_resume(self) -> None:
        """Resume / Close run, shown for a run whose process died (see cockpit.core.resume)."""
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
        from ..core.resume import RESUMABLE
        status = self.run["status"] if self.run else ""
        for w in (self.resume_btn, self.resume_replay):
            w.setVisible(status in RESUMABLE)
        self.close_run_btn.setVisible(status == "interrupted")

    def close_run(self) -> bool:
        """Mark the open (interrupted) run closed; its steps stay."""
        from ..core.resume import close
        if not self.run:
            return False
        try:
            close(self.store, self.run["id"])
        except CockpitError as e:
            self.status.setText(str(e))
            return False
        self.refresh()
        self.status.setText(f"run {self.run['id']} closed; its steps are kept")
        return True

    def _build_label_bar(self, annotator: str) -> None:
        self.label_bar = QWidget()
        bl = QVBoxLayout(self.label_bar)
        bl.setContentsMargins(0, 4, 0, 0)
        r1, r2 = QHBoxLayout(), QHBoxLayout()
        self.annotator = QComboBox()
        self.annotator.setEditable(True)
        self.annotator.addItems(L.annotators(self.store))
        self.annotator.setCurrentText(annotator)
        self.annotator.setToolTip("Your annotator name; labels are stored under it")
        self.annotator.currentTextChanged.connect(self._on_annotator_changed)
        self.blind = QCheckBox("Blind")
        self.blind.setToolTip("Hide other verdicts (judges, other annotators) until you have labelled the run")
        self.blind.toggled.connect(self._on_blind)
        self.btn_success = QPushButton("Success (S)")
        self.btn_fail = QPushButton("Fail (F)")
        self.btn_unsure = QPushButton("Unsure (U)")
        self.btn_next = QPushButton("Next unlabelled (N)")
        self.category = QComboBox()
        self.category.setEditable(True)
        self.category.addItem("")
        for i, c in enumerate(L.CATEGORIES, 1):
            self.category.addItem(c)
        self.category.setToolTip("Failure category (digits 1–8 pick one; type to add your own)")
        self.comment = QLineEdit(placeholderText="comment (optional)")
        self.status = QLabel()
        for w in (QLabel("Annotator:"), self.annotator, self.blind, self.btn_success, self.btn_fail,
                  self.btn_unsure, self.btn_next):
            r1.addWidget(w)
        r2.addWidget(QLabel("Category:"))
        r2.addWidget(self.category, 1)
        r2.addWidget(self.comment, 2)
        r2.addWidget(self.status, 1)
        bl.addLayout(r1)
        bl.addLayout(r2)
        self.btn_success.clicked.connect(lambda: self.label("success"))
        self.btn_fail.clicked.connect(lambda: self.label("fail"))
        self.btn_unsure.clicked.connect(lambda: self.label("unsure"))
        self.btn_next.clicked.connect(self.next_unlabelled)
        self.category.activated.connect(lambda _: self._category_changed())
        self.comment.editingFinished.connect(self._resave)

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
            if chosen is not None:
                combo.setCurrentIndex(max(0, combo.findText(chosen)))
            combo.blockSignals(False)

    # ---------- runs ----------
    def refresh(self) -> None:
        """New runs or labels elsewhere: reload the table, keep the open run."""
        self._fill_filters()
        self.apply_filter()
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
        if self.run:
            row = self.model.row_of(self.run["id"])
            if row >= 0:
                self.table.blockSignals(True)
                self.table.setCurrentIndex(self.model.index(row, 0))
                self.table.blockSignals(False)

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
            it.setToolTip(tip(s["action"] or s["action_text"] or ""))
            self.filmstrip.addItem(it)
        self.filmstrip.blockSignals(False)
        self.loader.request("image", [])
        self.loader.request("thumb", [(run_id, s["step"], str(self.store.file(s["screenshot"])))
                                      for s in self.steps if s["screenshot"]])
        self._show_header()
        self._update_resume()
        self._load_label()
        self.index = -1
        self.go(0 if self.steps else -1)
        if not self.steps:
            self.view.clear("This run has no steps.")

    def _show_header(self) -> None:
        r, e = self.run, html.escape
        mine = self._my_label()
        hide = self.blind.isChecked() and mine is None
        others = "" if hide else self._others_html()
        self._revealed = self._revealed or not hide
        self.header.setText(f"<b>{e(r['task'])}</b><br><span style='color:#555'>{e(r['url'] or '')} · "
                            f"{e(r['model'] or '')} · {e(r['status'])} · {r['steps']} steps · run {e(r['id'])}"
                            f"</span>{others}")
        answer = r["answer"]
        self.answer.setText("<b>Final answer:</b> " + (e(answer) if answer is not None else
                                                         f"<i>none ({e(r['status'])}: {e(r['error'] or '')})</i>"))

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

    # ---------- steps ----------
    def go(self, i: int) -> None:
        if not self.steps or not 0 <= i < len(self.steps) or i == self.index:
            return
        self.index = i
        s = self.steps[i]
        key = (self.run["id"], s["step"])
        img = self._images.get(key)
        if img is not None:
            self._images.move_to_end(key)
            self._show_image(s, img)
        else:
            self.view.clear("loading…")
            self._set_note("")
            self._request_image(s, first=True)
        self._decorate(s)
        self.filmstrip.blockSignals(True)
        self.filmstrip.setCurrentRow(i)
        self.filmstrip.blockSignals(False)
        self._preload()

    def _decorate(self, s: dict) -> None:
        e = html.escape
        if s.get("target"):
            self.view.set_highlight(s["target"], "#1e88e5" if s.get("actor") == "human" else "#e53935")
        d = s.get("decision") or {}
        decision = ""
        if d:
            decision = f" · {'approved' if d.get('approved') else 'rejected'} by {e(str(d.get('by')))}"
        mine = [x for x in L.step_labels(self.store, self.run["id"], self._annotator()) if x["step"] == s["step"]]
        judged = f" · you: {mine[0]['judgement']}" + (f" → [{mine[0]['corrected_target']}]"
                                                     if mine[0]["corrected_target"] else "") if mine else ""
        err = f"<br><span style='color:#b00020'>{e(s['error'])}</span>" if s.get("error") else ""
        eff = s.get("effect") or {}
        flags = [f for f in (s.get("flags") or [])]
        if eff or flags:
            what = ("no visible effect" if eff.get("noop") else
                    ", ".join(x for x in ("URL changed" if eff.get("url_changed") else "",
                                          f"+{eff.get('marks_added', 0)}/-{eff.get('marks_removed', 0)} marks",
                                          f"{eff.get('pixels_changed', 0):.1%} pixels") if x)) if eff else ""
            color = "#e65100" if eff.get("noop") or any(f.startswith(("loop", "repeated")) for f in flags) else "#555"
            err += f"<br><span style='color:{color}'>effect: {e(what)}" + (
                f" [{e(', '.join(flags))}]" if flags else "") + "</span>"
        self.step_info.setText(
            f"<b>Step {s['step']}/{len(self.steps)}</b> ({e(s.get('actor') or 'agent')}) "
            f"<code>{e(s.get('action') or s.get('action_text') or '(no action)')}</code>{decision}{judged}"
            f"<br><i>{e(s.get('thought') or '')}</i><br><span style='color:#555'>{e(s.get('url') or '')}</span>{err}")
        self.details.show_step(self.store, self.run, _LazyStep(self.store, self.run["id"], s))

    def _marks_of(self, s: dict) -> list:
        key = (self.run["id"], s["step"])
        if key not in self._marks:
            try:
                self._marks[key] = marks_from_json(json.loads(self.store.read_file(s["marks_file"], "marks"))) \
                    if s.get("marks_file") else []
            except (CockpitError, ValueError):
                self._marks[key] = []
        return self._marks[key]

    def _image_paths(self, s: dict) -> tuple[str, ...]:
        """The files to show for step `s`, best first: the clean screenshot, then the marked one."""
        paths = []
        for key in ("screenshot_clean", "screenshot"):
            if s.get(key) and str(self.store.file(s[key])) not in paths:
                paths.append(str(self.store.file(s[key])))
        return tuple(paths)

    def _show_image(self, s: dict, img: QImage) -> None:
        """Show a decoded image of step `s`, with a note when it is not the clean screenshot."""
        self.view.set_screenshot(img, self._marks_of(s), keep_view=True)
        clean = s.get("screenshot_clean")
        self._set_note("" if clean and img.text(SOURCE) == str(self.store.file(clean)) else MARKED_NOTE)

    def _set_note(self, text: str) -> None:
        self.image_note.setText(text)
        self.image_note.setVisible(bool(text))

    def _request_image(self, s: dict, first: bool = False) -> None:
        paths = self._image_paths(s)
        if not paths:
            if first:
                self.view.clear(f"Step {s['step']} has no screenshot.")
            return
        self.loader.request("image", [(self.run["id"], s["step"], paths)] + self._preload_jobs())

    def _preload_jobs(self) -> list[tuple[str, int, tuple[str, ...]]]:
        jobs = []
        for d in [x for k in range(1, PRELOAD + 1) for x in (k, -k)]:  # next, previous, next+1, ...
            j = self.index + d
            if 0 <= j < len(self.steps):
                s = self.steps[j]
                paths = self._image_paths(s)
                if paths and (self.run["id"], s["step"]) not in self._images:
                    jobs.append((self.run["id"], s["step"], paths))
        return jobs

    def _preload(self) -> None:
        if (self.run["id"], self.steps[self.index]["step"]) in self._images:
            self.loader.request("image", self._preload_jobs())
        for d in (1, -1):  # marks of the neighbours, so the next step needs no disk read
            if 0 <= self.index + d < len(self.steps):
                self._marks_of(self.steps[self.index + d])

    def _on_loader_image(self, run_id: str, step: int, img) -> None:
        if not self.isVisible():
            return
        if img is None:  # not cached: the file may yet appear
            if self.run and run_id == self.run["id"] and self.steps and self.steps[self.index]["step"] == step \
                    and not self.view.has_screenshot():
                paths = self._image_paths(self.steps[self.index])
                what = f"screenshot of step {step} is" if len(paths) < 2 else \
                    f"screenshots of step {step} (clean and marked) are"
                self.view.clear(f"The {what} missing or unreadable ({' and '.join(paths)}).")
                self._set_note("")
            return
        self._images[(run_id, step)] = img
        while len(self._images) > CACHE:
            self._images.popitem(last=False)
        if self.run and run_id == self.run["id"] and self.steps and self.steps[self.index]["step"] == step \
                and not self.view.has_screenshot():
            s = self.steps[self.index]
            self._show_image(s, img)
            self._decorate(s)

    def _on_loader_thumb(self, run_id: str, step: int, img) -> None:
        if not self.run or run_id != self.run["id"]:
            return
        for i, s in enumerate(self.steps):
            if s["step"] == step:
                self.filmstrip.item(i).setIcon(QIcon(QPixmap.fromImage(img)))
                return

    def _on_filmstrip_row(self, row: int) -> None:
        self.go(row)

    # ---------- tools ----------
    def other_runs(self) -> list[dict]:
        """Other runs of the open run's task (same task id, or same task text)."""
        if not self.run:
            return []
        r = self.run
        return self.store._rows("SELECT id, model, status, started, answer FROM runs WHERE id != ? AND "
                                "((task_id != '' AND task_id = ?) OR task = ?) ORDER BY started DESC",
                                [r["id"], r["task_id"] or "", r["task"]])

    def reask(self):
        from .reask_dialog import open_reask
        if self.run and self.steps:
            return open_reask(self.store, self.run["id"], self.steps[self.index]["step"], self)
        return None

    def compare(self, other: str | None = None):
        from PySide6.QtWidgets import QInputDialog

        from .compare_dialog import CompareDialog
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

    # ---------- labelling ----------
    def _annotator(self) -> str:
        return self.annotator.currentText().strip()

    def _my_label(self) -> dict | None:
        if not self.run or not self._annotator():
            return None
        mine = L.labels(self.store, self.run["id"], self._annotator())
        return mine[0] if mine else None

    def _load_label(self) -> None:
        mine = self._my_label()
        self.category.setCurrentText(mine["category"] if mine else "")
        self.comment.setText(mine["comment"] if mine else "")
        self.status.setText(f"your label: {mine['verdict']}" if mine else "not labelled by you")

    def label(self, verdict: str) -> bool:
        if not self.run:
            return False
        who = self._annotator()
        if not who:
            self.status.setText("Enter your annotator name first")
            self.annotator.setFocus()
            return False
        category = self.category.currentText().strip() if verdict == "fail" else ""
        # Blind means this verdict was formed before the others were shown: a first label in blind mode,
        # or the same verdict saved again (comment, category) after a blind one.
        before = self._my_label()
        blind = self.blind.isChecked() and (not self._revealed or bool(
            before and before["blind"] and before["verdict"] == verdict))
        L.set_label(self.store, self.run["id"], who, verdict, category=category, comment=self.comment.text(),
                    seconds=time.monotonic() - self.opened_at, blind=blind)
        self.status.setText(f"your label: {verdict}" + (f" ({category})" if category else ""))
        self._show_header()
        self._update_row()
        self.labelled.emit(self.run["id"])
        return True

    def _resave(self) -> None:
        mine = self._my_label()
        if mine:
            self.label(mine["verdict"])

    def _category_changed(self) -> None:
        mine = self._my_label()
        if mine and mine["verdict"] == "fail":
            self.label("fail")

    def pick_category(self, i: int) -> None:
        self.category.setCurrentIndex(i)  # index 0 is the empty entry
        self.label("fail")  # a category only makes sense on a failure

    def judge_step(self, judgement: str) -> None:
        if not self.run or not self.steps or not self._annotator():
            return
        s = self.steps[self.index]
        L.set_step_label(self.store, self.run["id"], s["step"], self._annotator(), judgement)
        self._pick_target = judgement == "wrong_target"
        self.status.setText(f"step {s['step']}: {judgement}" +
                            (" — click the right box on the screenshot" if self._pick_target else ""))
        self._decorate(s)

    def _on_view_mark(self, mark_id: int) -> None:
        if not self._pick_target or not self.run:
            return
        s = self.steps[self.index]
        L.set_step_label(self.store, self.run["id"], s["step"], self._annotator(), "wrong_target",
                         corrected_target=mark_id)
        self._pick_target = False
        self.view.set_highlight(mark_id, "#2e7d32")
        self.status.setText(f"step {s['step']}: wrong target, right one is [{mark_id}]")
        self._decorate(s)

    def next_unlabelled(self) -> None:
        who = self._annotator()
        if not who:
            self.status.setText("Enter your annotator name first")
            return
        self._refresh_queue()
        current = self.run["id"] if self.run else None
        queue = self.queue
        if current in queue:  # skipping this one: go on after it (else N would swap between two runs)
            i = queue.index(current)
            queue = queue[i + 1:] + queue[:i]
        nxt = next((r for r in queue if r != current), None)
        if nxt is None:
            self.status.setText("Nothing left to label. Well done.")
            return
        self.show_run(nxt)

    def show_run(self, run_id: str) -> None:
        """Open a run and select it in the table when it is listed."""
        row = self.model.ensure_loaded(run_id)
        if row >= 0:
            self.table.setCurrentIndex(self.model.index(row, 0))
            self.table.scrollTo(self.model.index(row, 0))
        self.open_run(run_id)

    def _on_annotator_changed(self, _name: str) -> None:
        """Another annotator: their label, their step judgements, and (blind) only what they may see."""
        self._refresh_queue()
        if self.run:  # (what the screen showed before still counts as seen: _revealed stays)
            self._show_header()
            self._load_label()
            if self.steps and 0 <= self.index < len(self.steps):
                self._decorate(self.steps[self.index])

    def _refresh_queue(self) -> None:
        who = self._annotator()
        self.queue = L.unlabelled_runs(self.store, who) if who else []

    def _on_blind(self, on: bool) -> None:
        reset = False
        for combo in (self.f_human, self.f_judge):  # filtering by verdicts would give them away
            if on and combo.currentIndex() > 0:
                combo.blockSignals(True)
                combo.setCurrentIndex(0)
                combo.blockSignals(False)
                reset = True
            combo.setEnabled(not on)
        self.model.set_blind(on)
        if reset:
            self.apply_filter()
        if self.run:
            self._show_header()

    def _update_row(self) -> None:
        row = self.model.row_of(self.run["id"])
        if row >= 0:
            fresh = self.store._rows("SELECT group_concat(annotator || ':' || verdict, ' ') AS h FROM labels "
                                     "WHERE run_id = ?", [self.run["id"]])[0]["h"]
            self.model.rows[row]["human"] = fresh
            idx = self.model.index(row, 6)
            self.model.dataChanged.emit(idx, idx)


class _LazyStep(dict):
    """A step row whose 'request' (the messages sent, large) is read only when asked for."""

    def __init__(self, store, run_id: str, row: dict):
        super().__init__(row)
        self._store, self._run_id = store, run_id

    def get(self, key, default=None):
        if key == "request" and "request" not in self:
            full = self._store.step(self._run_id, self["step"]) or {}
            self["request"] = full.get("request") or []
            self["reply"] = full.get("reply")
        return super().get(key, default)
