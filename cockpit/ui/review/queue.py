"""Review's annotation batches: the annotator's queue, their progress, the guideline, and blind batches.

A mixin of ReviewPanel (cockpit.ui.review.panel). When the annotator has runs assigned
(cockpit.core.store.assignments), a line above the label bar says "Your queue: batch NAME — 7 / 20 done,
median 41 s per run", "Next unlabelled run (N)" opens their next assigned run they have not labelled, and
"Guideline" shows the batch's guideline text. On a run a blind batch gives them and they have not labelled
yet, Review hides the agent's own claim (the final answer, the status, the ANSWER step's thought, action,
outcome and reply) and every other verdict, as the HTML report does for them (blind_for).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QPushButton

from cockpit.core.review.reports import BLIND_NOTE, blind_step
from cockpit.core.store import assignments as A
from cockpit.ui.flow_layout import flow_row
from cockpit.ui.plaintext import tip

NEXT_TEXT = "Next unlabelled run (N)"


class ReviewQueue:
    """The annotator's batch queue: ReviewPanel's assignments half."""

    def _build_queue_bar(self) -> None:
        self.claim_hidden = False  # the open run's claim and verdicts are hidden (blind batch, not labelled)
        self._opened_blind = False  # ... and were when it was opened
        self.queue_batch: dict | None = None
        self.queue_label = QLabel()
        self.queue_label.setTextFormat(Qt.PlainText)
        self.queue_next_btn = QPushButton(NEXT_TEXT)
        self.queue_next_btn.setToolTip("Open your next assigned run you have not labelled (N)")
        self.queue_next_btn.clicked.connect(self.next_unlabelled)
        self.guideline_btn = QPushButton("Guideline")
        self.guideline_btn.setCheckable(True)
        self.guideline_btn.setToolTip("Show or hide the batch's labelling guideline")
        self.guideline = QPlainTextEdit()
        self.guideline.setReadOnly(True)
        self.guideline.setMaximumHeight(110)
        self.guideline.hide()
        self.guideline_btn.toggled.connect(self.guideline.setVisible)
        self.queue_bar = flow_row((self.queue_label, self.queue_next_btn, self.guideline_btn))
        self.queue_bar.hide()

    def _assigned_queue(self, who: str) -> list[str] | None:
        """The annotator's queue over their batches, in batch order; None when they have no assignments."""
        rows = A.assignments(self.store, annotator=who) if who else []
        if not rows:
            self.queue_batch = None
            return None
        todo = [r for r in rows if not r["labelled"]]
        name = (todo or rows)[0 if todo else -1]["batch"]
        self.queue_batch = A.get_batch(self.store, name)
        return list(dict.fromkeys(r["run_id"] for r in todo))

    def _show_queue(self) -> None:
        """The queue line, the guideline, the label bar's own "next" button, and the runs a blind batch hides."""
        who, b = self._annotator(), self.queue_batch
        self.queue_bar.setVisible(b is not None)  # (in the label bar: hidden with it)
        self.btn_next.setVisible(b is None)  # the queue's button stands in for it
        if b is None:
            self.guideline_btn.setChecked(False)
            self.model.set_hidden_runs(set())
            return
        mine = next((p for p in A.progress(self.store, b["name"]) if p.annotator == who), None)
        done, assigned = (mine.done, mine.assigned) if mine else (0, 0)
        median = f", median {mine.median_seconds:.0f} s per run" if mine and mine.median_seconds else ""
        self.queue_label.setText(f"Your queue: batch {b['name']} — {done} / {assigned} done{median}"
                                 + (" · blind" if b["blind"] else ""))
        self.guideline.setPlainText(b["guideline"] or "(this batch has no guideline text)")
        self.model.set_hidden_runs(A.blind_runs(self.store, who))

    def _update_claim(self) -> None:
        """Hide or show the open run's claim: the answer, the status, the ANSWER step (blind batch, not labelled)."""
        self.claim_hidden = bool(self.run) and A.blind_for(self.store, self.run["id"], self._annotator())
        for i, s in enumerate(self.steps):
            if i < self.filmstrip.count():
                shown = self._shown_step(s)
                self.filmstrip.item(i).setText(f"{s['step']} {(shown['action'] or shown['action_text'] or '')[:18]}")
                self.filmstrip.item(i).setToolTip(tip(shown["action"] or shown["action_text"] or ""))

    def _shown_step(self, s: dict) -> dict:
        """Step `s` as the annotator may see it now."""
        if not self.claim_hidden:
            return s
        shown = blind_step(s)
        return dict(shown, status="(hidden)") if shown is not s else s

    def _shown_run(self) -> dict:
        """The open run as the annotator may see it now (no answer, no status while the claim is hidden)."""
        return dict(self.run, status="(hidden)", answer=BLIND_NOTE, error=None) if self.claim_hidden else self.run
