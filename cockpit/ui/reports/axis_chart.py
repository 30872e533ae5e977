"""What every Reports chart shares: one row per item on one horizontal axis, drawn with QPainter.

QtCharts (PySide6 Addons) is not installed with Cockpit, so the charts are drawn here the way a chart library
draws them: a title, a label column left of the axis, a value column right of it (fixed widths, so two charts
side by side put the same value at the same place), ticks and gridlines to read a row against, and a tooltip
naming a row whole (the label column cuts a long name with "…"). A chart says what it draws on a row
(:meth:`draw_row`) and what its tooltip reads (:meth:`row_tip`).
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

LABEL_W, VALUE_W = 150, 96  # pixels: the label column left of the axis, the value column right of it
ROW, TOP, AXIS = 22, 26, 20  # row height, title band, axis band
INK = QColor("#222")


class AxisChart(QWidget):
    """Rows on one axis from `lo` to `hi`; subclasses keep their rows and draw each one."""

    empty_text = "no data yet"

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.title = title
        self.lo, self.hi = 0.0, 1.0
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setMinimumWidth(LABEL_W + VALUE_W + 80)

    # ---------- what a chart says ----------
    def row_count(self) -> int:
        raise NotImplementedError

    def row_label(self, i: int) -> str:
        raise NotImplementedError

    def row_tip(self, i: int) -> str:
        raise NotImplementedError

    def axis_ticks(self) -> list[float]:
        raise NotImplementedError

    def tick_label(self, value: float) -> str:
        raise NotImplementedError

    def label_colour(self, i: int) -> QColor:
        return INK

    def draw_row(self, p: QPainter, fm: QFontMetrics, i: int, y: float) -> None:
        raise NotImplementedError

    # ---------- geometry (also what the tests measure) ----------
    def fit_height(self) -> None:
        self.setFixedHeight(TOP + ROW * max(1, self.row_count()) + AXIS + 4)
        self.update()

    def plot_x(self) -> tuple[float, float]:
        """The axis's low end and its high end, in pixels from the left."""
        return float(LABEL_W), float(max(LABEL_W + 20, self.width() - VALUE_W))

    def x_of(self, value: float) -> float:
        x0, x1 = self.plot_x()
        return x0 + (x1 - x0) * min(max((value - self.lo) / (self.hi - self.lo), 0.0), 1.0)

    def row_at(self, y: float) -> int | None:
        """The row at `y` pixels from the top, or None."""
        i = math.floor((y - TOP) / ROW)
        return i if y >= TOP and 0 <= i < self.row_count() else None

    def value_rect(self, y: float) -> QRectF:
        """The value column on the row starting at `y`."""
        return QRectF(self.plot_x()[1] + 6, y, VALUE_W - 8, ROW - 2)

    def event(self, e) -> bool:
        if e.type() == QEvent.ToolTip:
            i = self.row_at(e.position().y() if hasattr(e, "position") else e.pos().y())
            if i is None:
                QToolTip.hideText()
                e.ignore()
            else:
                QToolTip.showText(e.globalPos(), self.row_tip(i), self)
            return True
        return super().event(e)

    # ---------- drawing ----------
    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        fm = QFontMetrics(self.font())
        p.drawText(4, 16, self.title)
        if not self.row_count():
            p.setPen(QColor("#777"))
            p.drawText(4, 38, self.empty_text)
            return
        bottom = TOP + ROW * self.row_count()
        for t in self.axis_ticks():  # gridlines and the axis's labels; the zero line solid
            x = round(self.x_of(t))
            p.setPen(QPen(QColor("#666" if t == 0 else "#bbb"), 1, Qt.SolidLine if t == 0 else Qt.DotLine))
            p.drawLine(x, TOP, x, bottom)
            p.setPen(QColor("#444"))
            p.drawText(QRectF(x - 30, bottom + 2, 60, AXIS - 4), Qt.AlignHCenter | Qt.AlignTop, self.tick_label(t))
        for i in range(self.row_count()):
            y = TOP + i * ROW
            p.setPen(self.label_colour(i))
            p.drawText(QRectF(4, y, LABEL_W - 12, ROW - 2), Qt.AlignVCenter | Qt.AlignRight,
                       fm.elidedText(self.row_label(i), Qt.ElideRight, LABEL_W - 12))
            self.draw_row(p, fm, i, y)
