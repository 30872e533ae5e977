"""Review mode's labelling: the label bar, run verdicts, step judgements, the unlabelled queue, blind mode.

The queue is the annotator's batch queue when they have runs assigned (cockpit.ui.review.queue).

A mixin of ReviewPanel (cockpit.ui.review.panel); labels are written through cockpit.core.store.labels.
"""
from __future__ import annotations

import time

from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from cockpit.core.actions.grammar import parse_action
from cockpit.core.errors import ActionParseError
from cockpit.core.store import labels as L
from cockpit.ui.flow_layout import flow_row
from cockpit.ui.screenshot.pointer import css_point
from cockpit.ui.review.runs_model import column
from cockpit.core.store import corrections


#: The keys that step through the side effects and repetition answers (E and R judge steps).
AXIS_KEYS = {"side_effects": "X", "repetition": "L"}
AXIS_CHOICES = ("–", "no", "yes", "unsure")  # the first: not answered


class ReviewLabelling:
    """Labelling the open run and its steps: ReviewPanel's annotator half."""

    def _build_label_bar(self, annotator: str) -> None:
        self.label_bar = QWidget()
        bl = QVBoxLayout(self.label_bar)
        bl.setContentsMargins(0, 4, 0, 0)
        r2 = QHBoxLayout()
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
        self.axes = {}
        for axis, key in AXIS_KEYS.items():
            box = QComboBox()
            box.addItems(AXIS_CHOICES)
            box.setToolTip(f"{L.AXIS_QUESTIONS[axis]} ({key} steps through {' / '.join(AXIS_CHOICES[1:])})")
            box.activated.connect(lambda _i: self._axis_picked())
            self.axes[axis] = box
        r1 = flow_row((QLabel("Annotator:"), self.annotator, self.blind, self.btn_success, self.btn_fail,
                       self.btn_unsure, QLabel(f"Side effects ({AXIS_KEYS['side_effects']}):"),
                       self.axes["side_effects"], QLabel(f"Loop ({AXIS_KEYS['repetition']}):"),
                       self.axes["repetition"], self.btn_next))  # wraps on a narrow window
        r2.addWidget(QLabel("Category:"))
        r2.addWidget(self.category, 1)
        r2.addWidget(self.comment, 2)
        r2.addWidget(self.status, 1)
        self._build_queue_bar()  # cockpit.ui.review.queue: the annotator's batch, above their label
        bl.addWidget(self.queue_bar)
        bl.addWidget(self.guideline)
        bl.addWidget(r1)
        bl.addLayout(r2)
        self.btn_success.clicked.connect(lambda: self.label("success"))
        self.btn_fail.clicked.connect(lambda: self.label("fail"))
        self.btn_unsure.clicked.connect(lambda: self.label("unsure"))
        self.btn_next.clicked.connect(self.next_unlabelled)
        self.category.activated.connect(lambda _: self._category_changed())
        self.comment.editingFinished.connect(self._resave)

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
        for axis, box in self.axes.items():
            box.setCurrentText((mine or {}).get(axis) or AXIS_CHOICES[0])
        self._show_my_label(mine)

    def _axis_answer(self, axis: str) -> str | None:
        text = self.axes[axis].currentText()
        return None if text == AXIS_CHOICES[0] else text

    def step_axis(self, axis: str) -> None:
        """The axis key: no, then yes, then unsure, then no again; saved at once on a labelled run, else with
        the run's verdict (S, F or U)."""
        if not self.run or self.adjudicating:  # adjudication settles success only
            return
        box = self.axes[axis]
        box.setCurrentIndex(box.currentIndex() % (len(AXIS_CHOICES) - 1) + 1)
        self._axis_picked()

    def _axis_picked(self) -> None:
        if not self._annotator():
            self.status.setText("Enter your annotator name first")
        elif not self._resave():
            self.status.setText("saved with your verdict: press S, F or U")

    def _show_my_label(self, mine: dict | None = None) -> None:
        """The footer says the run's label (a step's own judgement is in the step's line above)."""
        mine = mine if mine is not None else self._my_label()
        self.status.setText(f"your label: {mine['verdict']}" if mine else "not labelled by you")

    def label(self, verdict: str) -> bool:
        if not self.run:
            return False
        if self.adjudicating:  # S / F pick the adjudicated verdict there; the annotator's own label stays
            pick = {"success": self.adjudication.success, "fail": self.adjudication.fail}.get(verdict)
            if pick is not None and pick.isEnabled():
                pick.setChecked(True)
            return False
        who = self._annotator()
        if not who:
            self.status.setText("Enter your annotator name first")
            self.annotator.setFocus()
            return False
        category = self.category.currentText().strip() if verdict == "fail" else ""
        # Blind means this verdict was formed before the others were shown: a first label in blind mode,
        # or the same verdict saved again (comment, category) after a blind one.
        # A run a blind batch gave this annotator was opened with the others' verdicts hidden, as with Blind.
        before = self._my_label()
        blind = (self.blind.isChecked() or self._opened_blind) and (not self._revealed or bool(
            before and before["blind"] and before["verdict"] == verdict))
        L.set_label(self.store, self.run["id"], who, verdict, category=category, comment=self.comment.text(),
                    seconds=time.monotonic() - self.opened_at, blind=blind,
                    side_effects=self._axis_answer("side_effects"), repetition=self._axis_answer("repetition"))
        self.status.setText(f"your label: {verdict}" + (f" ({category})" if category else ""))
        self._refresh_queue()  # the queue's progress; a blind batch's run now shows its claim
        self._update_claim()
        self._show_header()
        if self.steps and 0 <= self.index < len(self.steps):
            self._decorate(self.steps[self.index])
        self._update_row()
        self.labelled.emit(self.run["id"])
        return True

    def _resave(self) -> bool:
        mine = self._my_label()
        return bool(mine) and self.label(mine["verdict"])

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
        where = " (or the point it should have hit)" if _pixel(s) else ""
        self.status.setText(f"step {s['step']}: {judgement}" +
                            (f" — click the right box on the screenshot{where}" if self._pick_target else ""))
        self._decorate(s)

    def _on_view_point(self, point: tuple) -> None:
        """After W on a pixel step: "the click should have been here", kept as a point correction."""
        if not self._pick_target or not self.run or not _pixel(self.steps[self.index]):
            return
        s = self.steps[self.index]
        point = css_point(point, s.get("pointer"), self.view.image_size())  # image pixels -> the page's
        corrections.add(self.store, self.run["id"], s["step"], "point", point=point, by=self._annotator())
        self._pick_target = False
        self._decorate(s)
        self.view.set_pointer(f"Click ({point[0]}, {point[1]})", {"frame": (s.get("pointer") or {}).get("frame")},
                              "#2e7d32")
        self.status.setText(f"step {s['step']}: wrong target, the click should have been at {point[0]}, {point[1]}")

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
            self._update_claim()
            self._show_header()
            self._load_label()
            if self.steps and 0 <= self.index < len(self.steps):
                self._decorate(self.steps[self.index])

    def _refresh_queue(self) -> None:
        """The runs N goes through: the annotator's batch queue when they have runs assigned, else every
        run they have not labelled."""
        who = self._annotator()
        assigned = self._assigned_queue(who)
        self.queue = assigned if assigned is not None else L.unlabelled_runs(self.store, who) if who else []
        self._show_queue()

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
            self.model.rows[row]["human"] = self.store.human_verdicts_text(self.run["id"])
            idx = self.model.index(row, column("human"))
            self.model.dataChanged.emit(idx, idx)


def _pixel(step: dict) -> bool:
    """The step acted at a point (a pixel-grounded model's, or a human's click at a point)."""
    try:
        return bool(step.get("pointer")) or parse_action(step.get("action") or "").pixel
    except ActionParseError:
        return False
