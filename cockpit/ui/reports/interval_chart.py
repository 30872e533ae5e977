"""A chart of figures with their intervals (a dot on a whisker), one row per judge, for Reports' judge audit.

Drawn with QPainter like :mod:`cockpit.ui.reports.bar_chart` (no QtCharts): one axis for every row, 0–100% for
rates and -1 to 1 for kappa and the success-rate gap, ticks and gridlines to read against. A row whose judge
the canaries flagged is drawn in red and says so.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from cockpit.ui.plaintext import tip
from cockpit.ui.reports.bar_chart import AXIS, LABEL_W, ROW, TOP, VALUE_W

DOT = QColor("#4a79c4")
FLAGGED = QColor("#c0392b")


class IntervalChart(QWidget):
    """Rows of (label, value, interval or None, text, flagged) on one axis from `lo` to `hi`."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.title = title
        self.rows: list[tuple[str, float | None, tuple[float, float] | None, str, bool]] = []
        self.lo, self.hi, self.percent = 0.0, 1.0, True
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setMinimumWidth(LABEL_W + VALUE_W + 80)
        self.set_rows([])

    def set_rows(self, rows: list, *, signed: bool = False, percent: bool = True, title: str | None = None) -> None:
        """`signed`: the axis runs from -1 to 1 (kappa, gap), else 0 to 1; `percent`: ticks read as percent."""
        self.rows = rows
        self.lo, self.hi, self.percent = (-1.0 if signed else 0.0), 1.0, percent
        if title is not None:
            self.title = title
        self.setFixedHeight(TOP + ROW * max(1, len(rows)) + AXIS + 4)
        self.update()

    # ---------- geometry (also what the tests measure) ----------
    def ticks(self) -> list[float]:
        step = 0.5 if self.lo < 0 else 0.25
        n = round((self.hi - self.lo) / step)
        return [self.lo + i * step for i in range(n + 1)]

    def x_of(self, value: float) -> float:
        x0, x1 = float(LABEL_W), float(max(LABEL_W + 20, self.width() - VALUE_W))
        return x0 + (x1 - x0) * min(max((value - self.lo) / (self.hi - self.lo), 0.0), 1.0)

    def whisker(self, i: int) -> tuple[float, float] | None:
        """The pixels from the interval's low end to its high end on row i (None: no interval)."""
        ci = self.rows[i][2]
        return None if ci is None else (self.x_of(ci[0]), self.x_of(ci[1]))

    def row_at(self, y: float) -> int | None:
        i = math.floor((y - TOP) / ROW)
        return i if y >= TOP and 0 <= i < len(self.rows) else None

    def tick_label(self, value: float) -> str:
        return f"{value:.0%}" if self.percent else f"{value:+.1f}".replace("+0.0", "0")

    def event(self, e) -> bool:
        if e.type() == QEvent.ToolTip:
            i = self.row_at(e.position().y() if hasattr(e, "position") else e.pos().y())
            if i is None:
                QToolTip.hideText()
                e.ignore()
            else:
                label, _v, _ci, text, flagged = self.rows[i]
                QToolTip.showText(e.globalPos(), tip(f"{label}: {text}" + (" (FLAGGED by the canaries)"
                                                                           if flagged else "")), self)
            return True
        return super().event(e)

    # ---------- drawing ----------
    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        fm = QFontMetrics(self.font())
        p.drawText(4, 16, self.title)
        if not self.rows:
            p.setPen(QColor("#777"))
            p.drawText(4, 38, "no judge verdicts on labelled runs yet")
            return
        bottom = TOP + ROW * len(self.rows)
        for t in self.ticks():
            x = round(self.x_of(t))
            p.setPen(QPen(QColor("#666" if t == 0 else "#bbb"), 1, Qt.SolidLine if t == 0 else Qt.DotLine))
            p.drawLine(x, TOP, x, bottom)
            p.setPen(QColor("#444"))
            p.drawText(QRectF(x - 30, bottom + 2, 60, AXIS - 4), Qt.AlignHCenter | Qt.AlignTop, self.tick_label(t))
        for i, (label, value, _ci, text, flagged) in enumerate(self.rows):
            y = TOP + i * ROW
            mid = y + ROW / 2 - 1
            colour = FLAGGED if flagged else DOT
            p.setPen(FLAGGED if flagged else QColor("#222"))
            p.drawText(QRectF(4, y, LABEL_W - 12, ROW - 2), Qt.AlignVCenter | Qt.AlignRight,
                       fm.elidedText(label, Qt.ElideRight, LABEL_W - 12))
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
            p.drawText(QRectF(self.width() - VALUE_W + 6, y, VALUE_W - 8, ROW - 2), Qt.AlignVCenter | Qt.AlignLeft,
                       fm.elidedText(text, Qt.ElideRight, VALUE_W - 8))
