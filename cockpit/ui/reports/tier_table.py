"""Reports' human attempts: each task's difficulty tier from a person's own attempt, and each agent run's
agent/human step ratio (cockpit.core.review.tiers). Double-click a row to open the agent's run (or, for a task no
agent ran, the person's attempt) in Review."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from cockpit.core.review.tiers import tier_report
from cockpit.core.store import Store
from cockpit.core.words import plural
from cockpit.ui.reports.tables import fill_table, report_table

HEADERS = ["task", "tier", "human steps", "agent run", "model", "agent steps", "agent / human"]


class TierTable(QWidget):
    openRun = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.table = report_table(HEADERS)
        self.table.cellDoubleClicked.connect(self._open)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.summary)
        lay.addWidget(self.table)

    def refresh(self, store: Store) -> dict:
        rep = tier_report(store)
        rows = []
        for t in rep["tasks"]:
            human = "" if t["human_steps"] is None else str(t["human_steps"])
            tier = t["tier"] or f"none ({plural(t['gave_up'], 'attempt')} given up)"
            for a in t["agents"] or [None]:
                if a is None:
                    rows.append((t["task"], tier, human, "", "", "", "", t["attempts"][0]))
                else:
                    ratio = "" if a["ratio"] is None else f"{a['ratio']:.2f}"
                    rows.append((t["task"], tier, human, a["run_id"], a["model"], str(a["steps"]), ratio,
                                 a["run_id"]))
        fill_table(self.table, [row[:-1] for row in rows], data=[row[-1] for row in rows])
        counts = ", ".join(f"{plural(n, 'task')} {name}" for name, n in rep["tiers"].items())
        ratios = "; ".join(f"{m}: {r:.2f}" for m, r in rep["mean_ratio"].items())
        self.summary.setText(
            f"By the steps of a person's own attempt (5 or fewer easy, 6–10 medium, 11 or more hard): {counts}."
            + (f" Mean agent/human step ratio: {ratios}." if ratios else "")
            if rep["tasks"] else "No human attempt yet: Run ▸ Attempt it yourself… (Ctrl+Shift+H), or Review's "
            "\"Attempt this task yourself\" on an agent's run.")
        return rep

    def _open(self, row: int, _col: int) -> None:
        item = self.table.item(row, 0)
        if item is not None and item.data(Qt.UserRole):
            self.openRun.emit(item.data(Qt.UserRole))
