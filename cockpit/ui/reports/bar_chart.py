"""Horizontal bar charts for Reports, on a common scale with a labelled axis (plain QPainter).

QtCharts (PySide6 Addons) is not installed with Cockpit, so the charts are drawn here, the way a chart library
draws them: every bar of a chart on one axis, and every chart of rates on the same 0–100% axis. The label and
value columns have fixed widths, so two charts side by side in one column draw 1/2 the same length, and the
axis has ticks and gridlines to read a bar against (issue #20: two 1/2 bars were 200 and 163 px long).
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from cockpit.ui.plaintext import tip

LABEL_W, VALUE_W = 150, 96  # pixels: the label column left of the bars, the value column right of them
ROW, TOP, AXIS = 22, 26, 20  # row height, title band, axis band
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


class BarChart(QWidget):
    """Bars with a label and a value text each, on one axis: 0–100% for rates, 0 to a round count otherwise."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.title = title
        self.bars: list[tuple[str, float, str]] = []  # label, value, text
        self.percent = False
        self.ticks: list[float] = [0.0, 1.0]
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setMinimumWidth(LABEL_W + VALUE_W + 80)

    def set_bars(self, bars: list[tuple[str, float, str]], maximum: float | None = None) -> None:
        """`maximum` 1.0: the values are rates, drawn on 0–100%; None: counts, on 0 to a round number."""
        self.bars = bars
        self.percent = maximum == 1.0
        self.ticks = [0.0, 0.25, 0.5, 0.75, 1.0] if self.percent else count_ticks(
            max([v for _, v, _ in bars] + [maximum or 0, 1e-9]))
        self.setFixedHeight(TOP + ROW * max(1, len(bars)) + AXIS + 4)
        self.update()

    # ---------- geometry (also what the tests measure) ----------
    def plot_x(self) -> tuple[float, float]:
        """The axis's 0 and its end, in pixels from the left."""
        return float(LABEL_W), float(max(LABEL_W + 20, self.width() - VALUE_W))

    def x_of(self, value: float) -> float:
        x0, x1 = self.plot_x()
        return x0 + (x1 - x0) * min(max(value / self.ticks[-1], 0.0), 1.0)

    def tick_label(self, value: float) -> str:
        return f"{value:.0%}" if self.percent else f"{value:g}"

    def bar_rect(self, i: int) -> QRectF:
        x0 = self.plot_x()[0]
        return QRectF(x0, TOP + i * ROW + 3, max(self.x_of(self.bars[i][1]) - x0, 1.0), ROW - 8)

    def row_at(self, y: float) -> int | None:
        """The bar whose row is at `y` pixels from the top, or None."""
        i = math.floor((y - TOP) / ROW)
        return i if y >= TOP and 0 <= i < len(self.bars) else None

    def bar_tip(self, i: int) -> str:
        """A bar's label and value whole (the label column cuts a long site or category name with "…")."""
        label, _, text = self.bars[i]
        return tip(f"{label}: {text}")

    def event(self, e) -> bool:
        if e.type() == QEvent.ToolTip:
            i = self.row_at(e.position().y() if hasattr(e, "position") else e.pos().y())
            if i is None:
                QToolTip.hideText()
                e.ignore()
            else:
                QToolTip.showText(e.globalPos(), self.bar_tip(i), self)
            return True
        return super().event(e)

    # ---------- drawing ----------
    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        fm = QFontMetrics(self.font())
        p.drawText(4, 16, self.title)
        if not self.bars:
            p.setPen(QColor("#777"))
            p.drawText(4, 38, "no data yet")
            return
        bottom = TOP + ROW * len(self.bars)
        for t in self.ticks:  # gridlines and the axis's labels
            x = round(self.x_of(t))
            p.setPen(QPen(QColor("#bbb" if t else "#666"), 1, Qt.SolidLine if t == 0 else Qt.DotLine))
            p.drawLine(x, TOP, x, bottom)
            p.setPen(QColor("#444"))
            p.drawText(QRectF(x - 30, bottom + 2, 60, AXIS - 4), Qt.AlignHCenter | Qt.AlignTop, self.tick_label(t))
        for i, (label, _value, text) in enumerate(self.bars):
            y = TOP + i * ROW
            p.setPen(QColor("#222"))
            p.drawText(QRectF(4, y, LABEL_W - 12, ROW - 2), Qt.AlignVCenter | Qt.AlignRight,
                       fm.elidedText(label, Qt.ElideRight, LABEL_W - 12))
            rect = self.bar_rect(i)
            p.fillRect(rect, BAR)
            p.drawText(QRectF(self.plot_x()[1] + 6, y, VALUE_W - 8, ROW - 2), Qt.AlignVCenter | Qt.AlignLeft,
                       fm.elidedText(text, Qt.ElideRight, VALUE_W - 8))
