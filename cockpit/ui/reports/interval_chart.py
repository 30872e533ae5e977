"""A chart of figures with their intervals (a dot on a whisker), one row per judge, for Reports' judge audit.

Drawn like the other Reports charts (:mod:`axis_chart`): one axis for every row, 0–100% for rates and -1 to 1
for kappa and the success-rate gap, ticks and gridlines to read against. A row whose judge the canaries flagged
is drawn in red and says so.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QPen

from cockpit.ui.plaintext import tip
from cockpit.ui.reports.axis_chart import INK, ROW, VALUE_W, AxisChart

DOT = QColor("#4a79c4")
FLAGGED = QColor("#c0392b")


class IntervalChart(AxisChart):
    """Rows of (label, value, interval or None, text, flagged) on one axis from `lo` to `hi`."""

    empty_text = "no judge verdicts on labelled runs yet"

    def __init__(self, title: str, parent=None):
        super().__init__(title, parent)
        self.rows: list[tuple[str, float | None, tuple[float, float] | None, str, bool]] = []
        self.percent = True
        self.set_rows([])

    def set_rows(self, rows: list, *, signed: bool = False, percent: bool = True, title: str | None = None) -> None:
        """`signed`: the axis runs from -1 to 1 (kappa, gap), else 0 to 1; `percent`: ticks read as percent."""
        self.rows = rows
        self.lo, self.hi, self.percent = (-1.0 if signed else 0.0), 1.0, percent
        if title is not None:
            self.title = title
        self.fit_height()

    def row_count(self) -> int:
        return len(self.rows)

    def row_label(self, i: int) -> str:
        return self.rows[i][0]

    def axis_ticks(self) -> list[float]:
        step = 0.5 if self.lo < 0 else 0.25
        n = round((self.hi - self.lo) / step)
        return [self.lo + i * step for i in range(n + 1)]

    def tick_label(self, value: float) -> str:
        return f"{value:.0%}" if self.percent else f"{value:+.1f}".replace("+0.0", "0")

    def whisker(self, i: int) -> tuple[float, float] | None:
        """The pixels from the interval's low end to its high end on row i (None: no interval)."""
        ci = self.rows[i][2]
        return None if ci is None else (self.x_of(ci[0]), self.x_of(ci[1]))

    def row_tip(self, i: int) -> str:
        label, _v, _ci, text, flagged = self.rows[i]
        return tip(f"{label}: {text}" + (" (FLAGGED by the canaries)" if flagged else ""))

    def label_colour(self, i: int) -> QColor:
        return FLAGGED if self.rows[i][4] else INK

    def draw_row(self, p, fm, i: int, y: float) -> None:
        _label, value, _ci, text, flagged = self.rows[i]
        mid = y + ROW / 2 - 1
        colour = FLAGGED if flagged else DOT
        if (w := self.whisker(i)) is not None:
            p.setPen(QPen(colour, 2))
            p.drawLine(QPointF(w[0], mid), QPointF(w[1], mid))
            for x in w:
                p.drawLine(QPointF(x, mid - 5), QPointF(x, mid + 5))
        if value is not None:
            p.setPen(Qt.NoPen)
            p.setBrush(colour)
            p.drawEllipse(QPointF(self.x_of(value), mid), 4.5, 4.5)
            p.setBrush(Qt.NoBrush)
        p.setPen(colour)
        p.drawText(self.value_rect(y), Qt.AlignVCenter | Qt.AlignLeft, fm.elidedText(text, Qt.ElideRight, VALUE_W - 8))
