"""The hop strip: a multihop task's hops as a row of chips, and the memories a run was given.

A multihop task (MMInA) passes its hops in order. The strip shows one chip per
hop: passed (green, with the step it passed at), current (outlined), still to
come (grey), and "hops 1/3" at the end. Below it, when the run was given past
runs as examples (procedural memory), a line names them. Both hide themselves
for runs that have neither.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from cockpit.ui.plaintext import tip

PASSED = QColor("#2e7d32")
CURRENT = QColor("#f9a825")
PENDING = QColor("#9e9e9e")


class HopChips(QWidget):
    """Paints the chips; `state()` tells a test what a user sees."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.names: list[str] = []
        self.passed_at: dict[int, int] = {}  # hop (from 1) -> step it passed at
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)

    def set_hops(self, names: list[str], passed_at: dict[int, int] | None = None) -> None:
        self.names = list(names)
        self.passed_at = dict(passed_at or {})
        self._update_tip()
        self.update()

    def pass_hop(self, hop: int, step: int) -> None:
        self.passed_at[hop] = step
        self._update_tip()
        self.update()

    @property
    def passed(self) -> int:
        return len(self.passed_at)

    def state(self) -> list[str]:
        """Each hop's state in order: 'passed', 'current' or 'pending'."""
        return ["passed" if k in self.passed_at else "current" if k == self.passed + 1 else "pending"
                for k in range(1, len(self.names) + 1)]

    def summary(self) -> str:
        if not self.names:
            return ""
        done = " — all hops passed" if self.passed == len(self.names) else ""
        return f"hops {self.passed}/{len(self.names)}{done}"

    def _label(self, k: int) -> str:
        name = self.names[k - 1] or f"hop {k}"
        step = self.passed_at.get(k)
        return f"{k}. {name}" + (f" ✓ step {step}" if step is not None else "")

    def _update_tip(self) -> None:
        lines = [f"{self._label(k)}  ({s})" for k, s in enumerate(self.state(), 1)]
        self.setToolTip(tip("\n".join(lines)))

    def sizeHint(self) -> QSize:
        return QSize(400, QFontMetrics(self.font()).height() + 10)

    def paintEvent(self, _event) -> None:
        if not self.names:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        fm = QFontMetrics(self.font())
        h = fm.height() + 6
        x = 2.0
        summary = self.summary()
        room = self.width() - fm.horizontalAdvance(summary) - 16
        states = self.state()
        for k, st in enumerate(states, 1):
            text = fm.elidedText(self._label(k), Qt.ElideRight, 220)
            w = fm.horizontalAdvance(text) + 14
            if x + w > room:  # no room left: say how many more
                p.setPen(PENDING)
                p.drawText(QRectF(x, 2, 60, h), Qt.AlignVCenter, f"+{len(states) - k + 1}")
                break
            rect = QRectF(x, 2, w, h)
            color = {"passed": PASSED, "current": CURRENT, "pending": PENDING}[st]
            if st == "passed":
                p.setBrush(color)
                p.setPen(Qt.NoPen)
            else:
                p.setBrush(Qt.NoBrush)
                p.setPen(QPen(color, 2 if st == "current" else 1))
            p.drawRoundedRect(rect, 6, 6)
            p.setPen(QColor("white") if st == "passed" else self.palette().windowText().color())
            p.drawText(rect, Qt.AlignCenter, text)
            x += w + 6
        p.setPen(self.palette().windowText().color())
        p.drawText(QRectF(self.width() - fm.horizontalAdvance(summary) - 6, 2, fm.horizontalAdvance(summary) + 4, h),
                   Qt.AlignVCenter, summary)


class HopStrip(QWidget):
    """Hop chips plus the memories line; hidden until a run has hops or memories."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.chips = HopChips()
        self.memories = QLabel()
        self.memories.setTextFormat(Qt.PlainText)  # task texts come from the store: never rich text
        self.memories.setWordWrap(True)
        self.memories.setStyleSheet("color:#455a64")
        lay.addWidget(self.chips)
        lay.addWidget(self.memories)
        self.clear()

    def clear(self) -> None:
        self.chips.set_hops([])
        self.chips.setVisible(False)
        self.memories.clear()
        self.memories.setVisible(False)
        self._sync()

    def set_hops(self, names: list[str], passed_at: dict[int, int] | None = None) -> None:
        self.chips.set_hops(names, passed_at)
        self.chips.setVisible(bool(names))
        self._sync()

    def pass_hop(self, hop: int, step: int) -> None:
        self.chips.pass_hop(hop, step)

    def set_memories(self, runs: list[tuple[str, str]]) -> None:
        """`runs`: (run id, task text) of the past runs given as examples; [] = memory on, none found."""
        if runs:
            names = "; ".join(f"“{task[:70]}” ({rid[:12]})" for rid, task in runs)
            self.memories.setText(f"Memory: {len(runs)} past run{'s' if len(runs) > 1 else ''} given as examples: "
                                  f"{names}")
        else:
            self.memories.setText("Memory: no similar successful run found")
        self.memories.setVisible(True)
        self._sync()

    def _sync(self) -> None:
        self.setVisible(self.chips.isVisibleTo(self) or self.memories.isVisibleTo(self))
