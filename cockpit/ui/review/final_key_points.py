"""The adjudicator's key points: the run's key points, each annotator's ticks side by side ("step 3" where they
saw it met), and the final column the QA reviewer or adjudicator settles.

The final column starts as the stored adjudication left it, else as the annotators' majority (a key point more
than half of them ticked, at the step most of them named; on a tie the earliest). A click on a final cell, or
Ctrl+1…9, marks the point met at the step on screen, or not met. AdjudicationView stores the final points with
the verdict (cockpit.core.store.adjudications).
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.review.key_points import majority, suggested_verdict, suggestion_text
from cockpit.core.store.adjudications import final_key_points
from cockpit.ui.plaintext import tip

NOT_MET = "–"


class FinalKeyPoints(QWidget):
    message = Signal(str)  # what a click did, or what is missing

    def __init__(self, parent=None):
        super().__init__(parent)
        self.points: list[str] = []
        self.final: dict[int, int | None] = {}
        self.step: int | None = None
        self.enabled_for_run = False
        self.source = ""
        self.note = QLabel()
        self.note.setTextFormat(Qt.PlainText)
        self.note.setWordWrap(True)
        self.table = QTableWidget(0, 2)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        self.table.setMaximumHeight(110)
        self.table.cellClicked.connect(lambda row, col: col == self.table.columnCount() - 1 and self.toggle(row))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.note)
        lay.addWidget(self.table)

    def set_step(self, step: int | None) -> None:
        self.step = step

    def show_item(self, item: dict | None) -> None:
        """A to_adjudicate item's key points and ticks (None: nothing to settle)."""
        self.points = list(item["key_points"]) if item else []
        ticks = item["ticks"] if item else {}
        people = sorted(set(item["labels"]) | set(ticks)) if item else []
        stored = final_key_points(item["adjudication"]) if item else None
        if stored is not None:
            self.final = {p["position"]: p.get("step") for p in stored if p["position"] < len(self.points)}
            source = "as adjudicated"
        else:
            self.final = majority(self.points, ticks, len(people))
            source = "the annotators' majority until you change it"
        self.enabled_for_run = bool(item) and bool(self.points)
        self.source = source if self.points else ("none for this task (type them in Review with K)" if item else "")
        self.table.setVisible(bool(self.points))
        self.table.setColumnCount(len(people) + 2)
        self.table.setHorizontalHeaderLabels(["Key point", *people, "Final"])
        self.table.setRowCount(len(self.points))
        for r, point in enumerate(self.points):
            cell = QTableWidgetItem(f"{r + 1}. {' '.join(point.split())}")
            cell.setToolTip(tip(point))
            self.table.setItem(r, 0, cell)
            for c, who in enumerate(people, 1):
                step = (ticks.get(who) or {}).get(r)
                self.table.setItem(r, c, QTableWidgetItem(NOT_MET if step is None else f"step {step}"))
            self._show_final(r)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.Stretch)
        for c in range(1, len(people) + 2):
            head.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        self.table.resizeRowsToContents()
        self._say()

    def _show_final(self, r: int) -> None:
        step = self.final.get(r)
        cell = QTableWidgetItem(f"✓ step {step}" if step is not None else "not met")
        cell.setForeground(Qt.darkGreen if step is not None else Qt.darkRed)
        cell.setToolTip("Click (or Ctrl+%d) to mark it met at the step shown, or not met" % (r + 1) if r < 9 else
                        "Click to mark it met at the step shown, or not met")
        self.table.setItem(r, self.table.columnCount() - 1, cell)
        self._say()

    def _say(self) -> None:
        if not self.points:
            self.note.setText(f"Key points: {self.source}" if self.source else "")
            return
        self.note.setText(f"Key points, each annotator's ticks and the final ones ({self.source}; a click on a final "
                          f"cell or Ctrl+1…9 marks it met at the step shown). Final: "
                          f"{suggestion_text(self.met(), len(self.points))} (A takes it)")

    def suggested(self) -> str | None:
        """The verdict the final key points suggest (None without key points)."""
        return suggested_verdict(self.met(), len(self.points))

    def toggle(self, i: int) -> None:
        """Key point i met at the step shown, or (met already) not met."""
        if not self.enabled_for_run or not 0 <= i < len(self.points):
            return
        if self.final.get(i) is not None:
            self.final[i] = None
            self.message.emit(f"final: key point {i + 1} not met")
        elif self.step is None:
            self.message.emit("Pick the step where it was met first")
            return
        else:
            self.final[i] = self.step
            self.message.emit(f"final: key point {i + 1} met at step {self.step}")
        self._show_final(i)

    def final_points(self) -> list[dict] | None:
        """The final key points to store (None when the run has none)."""
        if not self.points:
            return None
        return [{"position": i, "point": p, "step": self.final.get(i)} for i, p in enumerate(self.points)]

    def met(self) -> int:
        return sum(self.final.get(i) is not None for i in range(len(self.points)))
