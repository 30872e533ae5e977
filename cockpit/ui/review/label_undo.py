"""Ctrl+Z in Review: the annotator's last label changes undone, one at a time (walkthrough 3, A4).

Before the Labeller (cockpit.ui.review.labelling) writes a run label (verdict, category, axis, comment, not
executable) or a step judgement, it hands the row it replaces here; undo puts the newest such row of the shown
run back exactly as it was stored (cockpit.core.store.labels.restore_label), or removes the label when there was
none. Up to DEPTH changes are kept, for every run, for this window's session only.
"""
from __future__ import annotations

from dataclasses import dataclass

from cockpit.core.store import labels as L

DEPTH = 50


@dataclass(frozen=True)
class Change:
    run_id: str
    annotator: str
    step: int | None  # None: the run's label; a step number: that step's judgement
    before: dict | None  # the row as it was (None: there was none)


class LabelHistory:
    def __init__(self, store):
        self.store = store
        self.changes: list[Change] = []

    def remember(self, run_id: str, annotator: str, step: int | None = None) -> None:
        """Keep the label (or the step's judgement) as it is now, before it is changed."""
        if step is None:
            rows = L.labels(self.store, run_id, annotator)
        else:
            rows = [r for r in L.step_labels(self.store, run_id, annotator) if r["step"] == step]
        self.changes.append(Change(run_id, annotator, step, rows[0] if rows else None))
        del self.changes[:-DEPTH]

    def undo(self, run_id: str) -> Change | None:
        """Put back the newest change's earlier label on `run_id`; the change undone (None: nothing to undo)."""
        for i in range(len(self.changes) - 1, -1, -1):
            c = self.changes[i]
            if c.run_id == run_id:
                del self.changes[i]
                if c.step is None:
                    L.restore_label(self.store, c.run_id, c.annotator, c.before)
                else:
                    L.restore_step_label(self.store, c.run_id, c.step, c.annotator, c.before)
                return c
        return None

    def left(self, run_id: str) -> int:
        return sum(1 for c in self.changes if c.run_id == run_id)
