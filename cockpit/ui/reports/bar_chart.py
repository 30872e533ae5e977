"""Horizontal bar charts for Reports, on a common scale with a labelled axis (:mod:`axis_chart`).

Every bar of a chart on one axis, and every chart of rates on the same 0–100% axis; the label and value columns
have fixed widths, so two charts side by side in one column draw 1/2 the same length (issue #20: two 1/2 bars
were 200 and 163 px long).
"""
from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor

from cockpit.ui.plaintext import tip
from cockpit.ui.reports.axis_chart import ROW, TOP, VALUE_W, AxisChart

BAR = QColor("#4a79c4")


def count_ticks(maximum: float) -> list[float]:
    """Round tick values from 0 to at least `maximum` (1, 2 or 5 times a power of ten apart, whole numbers: they
    count runs), at most 6."""
    if maximum <= 0:
        return [0.0, 1.0]
    raw = maximum / 4
    base = 10 ** math.floor(math.log10(raw))
    step = max(1, next(m * base for m in (1, 2, 5, 10) if m * base >= raw))
    return [i * step for i in range(int(math.ceil(maximum / step - 1e-9)) + 1)]


class BarChart(AxisChart):
    """Bars with a label and a value text each, on one axis: 0–100% for rates, 0 to a round count otherwise."""

    def __init__(self, title: str, parent=None):
        super().__init__(title, parent)
        self.bars: list[tuple[str, float, str]] = []  # label, value, text
        self.percent = False
        self.ticks: list[float] = [0.0, 1.0]

    def set_bars(self, bars: list[tuple[str, float, str]], maximum: float | None = None) -> None:
        """`maximum` 1.0: the values are rates, drawn on 0–100%; None: counts, on 0 to a round number."""
        self.bars = bars
        self.percent = maximum == 1.0
        self.ticks = [0.0, 0.25, 0.5, 0.75, 1.0] if self.percent else count_ticks(
            max([v for _, v, _ in bars] + [maximum or 0, 1e-9]))
        self.lo, self.hi = 0.0, self.ticks[-1]
        self.fit_height()

    def row_count(self) -> int:
        return len(self.bars)

    def row_label(self, i: int) -> str:
        return self.bars[i][0]

    def axis_ticks(self) -> list[float]:
        return self.ticks

    def tick_label(self, value: float) -> str:
        return f"{value:.0%}" if self.percent else f"{value:g}"

    def bar_rect(self, i: int) -> QRectF:
        x0 = self.plot_x()[0]
        return QRectF(x0, TOP + i * ROW + 3, max(self.x_of(self.bars[i][1]) - x0, 1.0), ROW - 8)

    def bar_tip(self, i: int) -> str:
        """A bar's label and value whole (the label column cuts a long site or category name with "…")."""
        label, _, text = self.bars[i]
        return tip(f"{label}: {text}")

    row_tip = bar_tip

    def draw_row(self, p, fm, i: int, y: float) -> None:
        p.fillRect(self.bar_rect(i), BAR)
        p.drawText(self.value_rect(y), Qt.AlignVCenter | Qt.AlignLeft,
                   fm.elidedText(self.bars[i][2], Qt.ElideRight, VALUE_W - 8))
