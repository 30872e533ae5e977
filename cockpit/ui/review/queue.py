"""Review's annotation batches: the annotator's queue, their progress, the guideline, and blind batches.

A widget above the label bar (cockpit.ui.review.label_bar). When the annotator has runs assigned
(cockpit.core.store.assignments), it says "Your queue: batch NAME — 7 / 20 done, median 41 s per run",
"Next unlabelled run (N)" opens their next assigned run they have not labelled, and "Guideline" shows the
batch's guideline text. On a run a blind batch gives them and they have not labelled yet, Review hides the
agent's own claim (the final answer, the status, the ANSWER step's thought, action, outcome and reply) and
every other verdict, as the HTML report does for them (blind_for).
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from cockpit.core.store import assignments as A
from cockpit.ui.flow_layout import flow_row

NEXT_TEXT = "Next unlabelled run (N)"


class QueueBar(QWidget):
    nextRequested = Signal()

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.store = store
        self.batch: dict | None = None  # the batch the queue line speaks of
        self.queue_label = QLabel()
        self.queue_label.setTextFormat(Qt.PlainText)  # a batch's name as typed; wraps, never widens the window
        self.queue_label.setWordWrap(True)
        self.queue_label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.queue_next_btn = QPushButton(NEXT_TEXT)
        self.queue_next_btn.setToolTip("Open your next assigned run you have not labelled (N)")
        self.queue_next_btn.clicked.connect(self.nextRequested)
        self.guideline_btn = QPushButton("Guideline")
        self.guideline_btn.setCheckable(True)
        self.guideline_btn.setToolTip("Show or hide the batch's labelling guideline")
        self.guideline = QPlainTextEdit()
        self.guideline.setReadOnly(True)
        self.guideline.setMaximumHeight(110)
        self.guideline.hide()
        self.guideline_btn.toggled.connect(self.guideline.setVisible)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.queue_label)
        lay.addWidget(flow_row((self.queue_next_btn, self.guideline_btn)))
        lay.addWidget(self.guideline)
        self.hide()

    def assigned(self, who: str) -> list[str] | None:
        """The annotator's queue over their batches, in batch order; None when they have no assignments.
        The line (and the guideline) then speak of the batch the next run is in."""
        rows = A.assignments(self.store, annotator=who) if who else []
        if not rows:
            self.batch = None
        else:
            todo = [r for r in rows if not r["labelled"]]
            self.batch = A.get_batch(self.store, (todo or rows)[0 if todo else -1]["batch"])
        self._show(who)
        return None if self.batch is None else list(dict.fromkeys(r["run_id"] for r in rows if not r["labelled"]))

    def _show(self, who: str) -> None:
        b = self.batch
        self.setVisible(b is not None)
        if b is None:
            self.guideline_btn.setChecked(False)
            return
        mine = next((p for p in A.progress(self.store, b["name"]) if p.annotator == who), None)
        done, assigned = (mine.done, mine.assigned) if mine else (0, 0)
        median = f", median {mine.median_seconds:.0f} s per run" if mine and mine.median_seconds else ""
        self.queue_label.setText(f"Your queue: batch {b['name']} — {done} / {assigned} done{median}"
                                 + (" · blind" if b["blind"] else ""))
        self.guideline.setPlainText(b["guideline"] or "(this batch has no guideline text)")

    def blind_runs(self, who: str) -> set[str]:
        """The runs a blind batch hides from `who` until they have labelled them (none without a batch)."""
        return set(A.blind_runs(self.store, who)) if self.batch is not None else set()

    @staticmethod
    def claim_hidden(store, run_id: str, who: str) -> bool:
        """The run's claim and verdicts are hidden from `who` (a blind batch's run they have not labelled)."""
        return A.blind_for(store, run_id, who)
