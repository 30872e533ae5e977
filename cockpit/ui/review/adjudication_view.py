"""Review's adjudication mode: the runs to settle, every verdict and reason side by side, the adjudicated verdict.

"To adjudicate" (above the runs list) narrows the runs list to the runs
cockpit.core.review.to_adjudicate.to_adjudicate returns: the annotators gave both success and fail, or their
consensus and a judge differ ("open only": those not adjudicated yet). In place of the label bar, the
AdjudicationView lists each annotator's and judge's verdict with its reason (category and comment; the judge's
reply), and records an adjudicated verdict with its rationale under the annotator's name
(cockpit.core.store.adjudications). The runs list's Human column shows "→ adjudicated success" on such runs.
The annotators' own labels are left as they were.

A batch's QA reviewer (named with ``cockpit annotate assign --qa``) sees, under their name, every run of the batch
in that list, not only the disputed ones; for each, the annotators' key-point ticks side by side
(FinalKeyPoints) and the final verdict to settle: success, fail, or not executable with its reason (D), and the
final key points.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.errors import CockpitError
from cockpit.core.review.to_adjudicate import to_adjudicate
from cockpit.core.store import labels as L
from cockpit.core.store.adjudications import adjudications, set_adjudication
from cockpit.core.store.assignments import assignments, qa_batches
from cockpit.core.words import plural
from cockpit.ui.flow_layout import flow_row
from cockpit.ui.plaintext import tip
from cockpit.ui.review.final_key_points import FinalKeyPoints


def verdict_rows(item: dict) -> list[tuple[str, str, str]]:
    """(who, verdict, reason) for each annotator, then each judge, of a to_adjudicate item."""
    rows = [(f"{name} (annotator)", lab["verdict"], " — ".join(x for x in (lab["category"], lab["comment"]) if x))
            for name, lab in sorted(item["labels"].items())]
    rows += [(f"{j['judge']} k={j['k_label']} (judge)", j["verdict"], " ".join(j["reason"].split()))
             for j in item["judges"]]
    return rows


class AdjudicationView(QWidget):
    """One run's verdicts side by side, and the form that records its adjudicated verdict."""
    recorded = Signal(str)  # run id

    def __init__(self, store, who, parent=None):
        super().__init__(parent)
        self.store, self.who = store, who  # who(): the adjudicator's name
        self.item: dict | None = None
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.PlainText)  # names and reasons people typed: shown as typed
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Who", "Verdict", "Reason"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        self.table.setWordWrap(True)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        head.setSectionResizeMode(1, QHeaderView.ResizeToContents)
        head.setStretchLastSection(True)
        self.table.setMaximumHeight(120)
        self.success = QRadioButton("Success")
        self.fail = QRadioButton("Fail")
        self.not_executable = QRadioButton("Not executable")
        self.why = QComboBox()  # why the task could not be attempted (not executable only)
        self.why.setEditable(True)
        self.why.addItems(["", *L.NOT_EXECUTABLE_REASONS])
        self.why.setToolTip("Why the task could not be attempted (pick one or type your own)")
        self.why.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.why.setMinimumContentsLength(10)
        self.why.hide()
        self.not_executable.toggled.connect(self.why.setVisible)  # asked only for not executable
        self.points = FinalKeyPoints()
        self.points.message.connect(self._say_ok)
        self.rationale = QLineEdit(placeholderText="rationale (why this verdict; required)")
        self.rationale.returnPressed.connect(self.record)
        self.record_btn = QPushButton("Record adjudicated verdict")
        self.record_btn.clicked.connect(self.record)
        self.message = QLabel()
        self.message.setTextFormat(Qt.PlainText)
        self.message.setStyleSheet("color:#b00020")
        self.message.setWordWrap(True)
        self._build()
        self.show_item(None)

    def _build(self) -> None:
        form = QHBoxLayout()
        form.addWidget(self.rationale, 1)
        seen = QWidget()  # what the annotators said: scrolls on a short screen, the form below stays whole
        sl = QVBoxLayout(seen)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.summary)
        side = QHBoxLayout()  # the verdicts and the key points side by side: the screenshot keeps its room
        side.addWidget(self.table, 1)
        side.addWidget(self.points, 1)
        sl.addLayout(side)
        self.said = QScrollArea()
        self.said.setWidgetResizable(True)
        self.said.setFrameShape(QFrame.NoFrame)
        self.said.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.said.setWidget(seen)
        self.said.setMinimumHeight(60)
        self.said.setMaximumHeight(160)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 4, 0, 0)
        lay.addWidget(self.said, 1)
        lay.addWidget(flow_row((QLabel("Adjudicated verdict:"), self.success, self.fail, self.not_executable,
                                self.why, self.record_btn)))
        lay.addLayout(form)
        lay.addWidget(self.message)

    def show_item(self, item: dict | None, run_open: bool = True) -> None:
        """Show a to_adjudicate item (None: the open run has nothing to adjudicate, or no run is open)."""
        self.item = item
        self.message.setStyleSheet("color:#b00020")
        self.message.setText("")
        for w in (self.success, self.fail, self.not_executable, self.rationale, self.record_btn):
            w.setEnabled(item is not None)
        self.points.show_item(item)
        if item is None:
            self.summary.setText("Nothing to adjudicate on this run: its annotators and judges agree." if run_open
                                 else "No run open: pick one in the list to see its verdicts.")
            self.table.setRowCount(0)
            return
        why = [w for w, on in (("annotators disagree", item["annotators_disagree"]),
                               ("consensus and a judge disagree", item["judge_disagrees"])) if on]
        done = item["adjudication"]
        state = (f"adjudicated: {done['verdict'].replace('_', ' ')}" + (f" ({done['category']})" if done.get(
            "category") else "") + f" by {done['by']} — {done['reason']}" if done else "not adjudicated yet")
        self.summary.setText(f"Run {item['run_id']}: {', '.join(why) or 'QA review'} · {state}")
        rows = verdict_rows(item)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                cell = QTableWidgetItem(text.replace("\n", " ")[:300])
                cell.setToolTip(tip(text, "the whole reply is in Reports"))
                if c == 1:
                    cell.setForeground(Qt.darkGreen if text == "success" else Qt.darkRed if text == "fail"
                                       else Qt.darkGray)
                self.table.setItem(r, c, cell)
        self.table.resizeRowsToContents()
        for button, verdict in self._buttons():  # no verdict picked until the adjudicator picks one
            button.setAutoExclusive(False)
            button.setChecked(done is not None and done["verdict"] == verdict)
            button.setAutoExclusive(True)
        self.why.setCurrentText((done or {}).get("category") or "")
        self.why.setVisible(self.not_executable.isChecked())
        self.rationale.setText(done["reason"] if done else "")

    def _buttons(self):
        return ((self.success, "success"), (self.fail, "fail"), (self.not_executable, L.NOT_EXECUTABLE))

    def _say_ok(self, text: str) -> None:
        self.message.setStyleSheet("color:#1b5e20")
        self.message.setText(text)

    def set_step(self, step: int | None) -> None:
        """The step on screen: where a final key point ticked now was met."""
        self.points.set_step(step)

    def pick(self, verdict: str) -> None:
        """S / F / D pick the adjudicated verdict (the annotator's own label stays as it was); D then asks why."""
        button = dict((v, b) for b, v in self._buttons()).get(verdict)
        if button is not None and button.isEnabled():
            button.setChecked(True)
            if verdict == L.NOT_EXECUTABLE:
                self.why.setFocus()

    def record(self) -> bool:
        """Store the picked verdict with its rationale under the adjudicator's name."""
        if self.item is None:
            return False
        verdict = next((v for b, v in self._buttons() if b.isChecked()), "")
        self.message.setStyleSheet("color:#b00020")
        if not verdict:
            self.message.setText("Pick Success, Fail or Not executable first.")
            return False
        try:
            set_adjudication(self.store, self.item["run_id"], verdict, self.rationale.text(), self.who(),
                             category=self.why.currentText(), key_points=self.points.final_points())
        except CockpitError as e:
            self.message.setText(str(e))
            return False
        self.recorded.emit(self.item["run_id"])
        return True


class AdjudicationBar(QWidget):
    """"To adjudicate" and "open only", above the runs list: the mode, and the runs it narrows the list to."""
    modeChanged = Signal(bool)
    onlyChanged = Signal(object)  # the run ids to list (None: all the filter lets through)

    def __init__(self, store, who=lambda: "", parent=None):
        super().__init__(parent)
        self.store, self.who = store, who  # who(): the person; a batch's QA reviewer gets all its runs
        self.adjudicating = False
        self.to_settle: dict[str, dict] = {}  # run id -> its to_adjudicate item
        self.adj_toggle = QPushButton("To adjudicate")
        self.adj_toggle.setCheckable(True)
        self.adj_toggle.setToolTip("List the runs whose annotators disagree, or whose consensus and a judge "
                                   "disagree, and settle them")
        self.adj_toggle.toggled.connect(self.set_adjudicating)
        self.adj_open = QCheckBox("open only")
        self.adj_open.setChecked(True)
        self.adj_open.setToolTip("Only the runs not adjudicated yet")
        self.adj_open.toggled.connect(lambda _: self.adjudicating and self.reload())
        self.adj_open.hide()
        self.qa_note = QLabel()  # "QA reviewer of pilot: 2 of 5 runs adjudicated"
        self.qa_note.setTextFormat(Qt.PlainText)
        self.qa_note.setWordWrap(True)
        self.qa_note.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(flow_row((self.adj_toggle, self.adj_open)))
        lay.addWidget(self.qa_note)

    def set_adjudicating(self, on: bool) -> None:
        """Adjudication mode on or off: the runs list, and the adjudication bar in place of the label bar."""
        self.adjudicating = on
        if self.adj_toggle.isChecked() != on:
            self.adj_toggle.setChecked(on)  # (calls back here, with nothing left to do)
            return
        self.adj_open.setVisible(on)
        self.qa_note.setVisible(on and bool(self.qa_note.text()))
        if on:
            self.reload()
        else:
            self.onlyChanged.emit(None)
        self.modeChanged.emit(on)

    def reload(self) -> None:
        """The runs to settle again (new labels or verdicts may add some, or settle some)."""
        qa = qa_batches(self.store, self.who())  # the QA reviewer's pass: every run of their batches
        self.to_settle = {i["run_id"]: i for i in to_adjudicate(self.store, whole=qa)}
        settled = {a["run_id"] for a in adjudications(self.store)} if qa else set()
        notes = []
        for batch in qa:
            runs = {a["run_id"] for a in assignments(self.store, batch)}
            notes.append(f"QA reviewer of {batch}: {len(runs & settled)} of {plural(len(runs), 'run')} adjudicated")
        self.qa_note.setText("; ".join(notes))
        self.qa_note.setVisible(self.adjudicating and bool(notes))
        open_only = self.adj_open.isChecked()
        self.onlyChanged.emit([r for r, i in self.to_settle.items() if not (open_only and i["adjudication"])])

    def item(self, run_id: str | None) -> dict | None:
        return self.to_settle.get(run_id) if run_id else None
