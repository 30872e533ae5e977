"""The planning table: a step's candidate actions, how each was simulated and scored, and which one runs.

Fed by PlanMade events while a run goes (and by a stored step's ``plan`` when
a past step is opened). One row per candidate: number, action, kept or why it
was dropped, risk, the world model's simulated outcome (short; in full in the
tooltip), the scorer's verdicts and scores, their mean. The row that runs
(the planner's choice, or the human's pick) is highlighted.

While the run waits at the approval gate, double-clicking a kept candidate
(or "Run selected instead") asks for it to run instead: the table only
emits :attr:`PlanTable.candidatePicked`; the approval panel sends the decision.
Every cell is plain text (items never render markup) and tooltips go through
:func:`~cockpit.ui.plaintext.tip`, so page and model text stays inert.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cockpit.ui.plaintext import tip

COLS = ("#", "Action", "Kept", "Risk", "Simulated outcome", "Scores", "Mean")
CHOSEN_COLOR = "#c8e6c9"  # the row that runs
DROPPED_COLOR = "#9e9e9e"
SHORT = 200  # characters of the simulated outcome shown in the cell (wrapped)


def _short(text: str, n: int = SHORT) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[:n - 1] + "…"


class PlanTable(QWidget):
    candidatePicked = Signal(int)  # the human asks for this candidate (its 1-based index) instead

    def __init__(self, parent=None):
        super().__init__(parent)
        self.step: int | None = None
        self.plan: dict = {}
        self.pickable: set[int] = set()  # candidates the human may pick now (approval gate open)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.PlainText)
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, len(COLS))
        self.table.setHorizontalHeaderLabels(list(COLS))
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)  # the simulated outcome wraps; the rows grow to fit
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(QHeaderView.Interactive)
        h.setStretchLastSection(False)
        h.setSectionResizeMode(4, QHeaderView.Stretch)
        for col, width in ((0, 40), (1, 150), (2, 56), (3, 84), (5, 56), (6, 48)):
            self.table.setColumnWidth(col, width)
        h.sectionResized.connect(lambda *_: self.table.resizeRowsToContents())
        self.table.itemDoubleClicked.connect(lambda it: self._pick_row(it.row()))
        self.table.currentCellChanged.connect(lambda *_: self._update_button())
        self.pick_btn = QPushButton("Run selected candidate instead")
        self.pick_btn.setToolTip("At the approval gate: run the selected (kept) candidate instead of the "
                                 "planner's choice (or double-click its row; Alt+number)")
        self.pick_btn.clicked.connect(lambda: self._pick_row(self.table.currentRow()))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.summary)
        lay.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.pick_btn)
        lay.addLayout(row)
        self.clear()

    # ---------- filling ----------
    def clear(self) -> None:
        self.step, self.plan, self.pickable = None, {}, set()
        self.table.setRowCount(0)
        self.summary.setText("No plan yet. Tick Plan in the toolbar to let the agent rank candidate actions "
                             "by their simulated outcome before each step.")
        self._update_button()

    def show_plan(self, step: int, plan: dict | None) -> None:
        """Show `plan` (PlanResult.to_dict, as in PlanMade and in a stored step) for `step`."""
        if not plan:
            self.clear()
            self.summary.setText(f"Step {step}: no plan (planning was off for this step).")
            return
        self.step, self.plan, self.pickable = step, plan, set()
        cands = plan.get("candidates") or []
        self.table.setRowCount(len(cands))
        for r, c in enumerate(cands):
            self._fill_row(r, c)
        self._paint()
        self.table.resizeRowsToContents()
        self._update_summary()
        self._update_button()

    def _fill_row(self, r: int, c: dict) -> None:
        sim = c.get("simulation") or []
        outcome = sim[0].get("change", "") if sim else ""
        rollout = "\n".join(f"{i}. {s.get('action', '')}: {s.get('change', '')}" for i, s in enumerate(sim, 1))
        scores = ", ".join(f"{s:g}" for s in c.get("scores") or [])
        verdicts = ", ".join(c.get("verdicts") or [])
        mean = c.get("mean")
        cells = (str(c.get("index", r + 1)), c.get("action") or "",
                 "kept" if c.get("kept") else f"dropped: {c.get('dropped') or '?'}", c.get("risk") or "?",
                 _short(outcome) if sim else ("(not simulated)" if c.get("kept") else ""), scores or "-",
                 f"{mean:.2f}" if mean is not None else "-")
        tips = (None, (c.get("action") or "") + (f"\n\nThought: {c['thought']}" if c.get("thought") else ""),
                c.get("dropped") or None, None, rollout or None, verdicts or None, None)
        for col, (text, tooltip) in enumerate(zip(cells, tips)):
            it = QTableWidgetItem(text)  # plain text: items never render markup
            it.setData(Qt.UserRole, c.get("index"))
            if tooltip:
                it.setToolTip(tip(tooltip))
            if col in (0, 6):
                it.setTextAlignment(Qt.AlignCenter)
            self.table.setItem(r, col, it)

    def running_index(self) -> int | None:
        """The candidate that runs (or ran): the human's pick, else the planner's choice."""
        return self.plan.get("picked", self.plan.get("chosen")) if self.plan else None

    def highlighted_row(self) -> int | None:
        """The row drawn as the one that runs (None: no row)."""
        for r in range(self.table.rowCount()):
            if self.table.item(r, 0).background().color() == QColor(CHOSEN_COLOR):
                return r
        return None

    def _paint(self) -> None:
        run = self.running_index()
        for r in range(self.table.rowCount()):
            index = self.table.item(r, 0).data(Qt.UserRole)
            kept = (self.plan["candidates"][r] or {}).get("kept")
            for col in range(self.table.columnCount()):
                it = self.table.item(r, col)
                font = QFont(it.font())
                font.setBold(index == run)
                it.setFont(font)
                it.setBackground(QBrush(QColor(CHOSEN_COLOR)) if index == run else QBrush())
                it.setForeground(QBrush(QColor(DROPPED_COLOR)) if not kept else QBrush())
            self.table.item(r, 0).setText(f"➜ {index}" if index == run else str(index))

    def _update_summary(self) -> None:
        p = self.plan
        cands = p.get("candidates") or []
        kept = sum(1 for c in cands if c.get("kept"))
        head = (f"Step {self.step}: {len(cands)} candidate{'s' if len(cands) != 1 else ''}, {kept} kept "
                f"(k {p.get('k')}, horizon {p.get('horizon')}, {p.get('samples')} score sample"
                f"{'s' if p.get('samples') != 1 else ''}). ")
        chosen, picked = p.get("chosen"), p.get("picked")
        if chosen is None:
            head += "No usable candidate."
        else:
            head += f"The planner chose {chosen}."
        if picked is not None and picked != chosen:
            head += f" {str(p.get('picked_by') or 'the human').split(':', 1)[-1]} picked {picked} instead."
        if p.get("note"):
            head += f" Note: {p['note']}"
        if self.pickable:
            head += " Double-click a kept candidate (or press Alt+its number) to run it instead."
        self.summary.setText(head)

    # ---------- picking at the approval gate ----------
    def set_pickable(self, step: int | None, indices) -> None:
        """The approval gate for `step` is open and offers `indices` (empty: closed)."""
        self.pickable = set(indices) if step is not None and step == self.step else set()
        if self.plan:
            self._update_summary()
        self._update_button()

    def set_picked(self, step: int, index: int, by: str = "") -> None:
        """The human picked candidate `index` at `step`'s gate: it is the row that runs now."""
        if step != self.step or not self.plan or index == self.running_index():
            return
        self.plan = dict(self.plan, picked=index, picked_by=by or self.plan.get("picked_by"))
        self._paint()
        self._update_summary()

    def _pick_row(self, row: int) -> None:
        it = self.table.item(row, 0) if row >= 0 else None
        index = it.data(Qt.UserRole) if it is not None else None
        if index in self.pickable:
            self.candidatePicked.emit(int(index))

    def _update_button(self) -> None:
        it = self.table.item(self.table.currentRow(), 0) if self.table.currentRow() >= 0 else None
        self.pick_btn.setVisible(bool(self.pickable))
        self.pick_btn.setEnabled(it is not None and it.data(Qt.UserRole) in self.pickable)
