"""A layout that wraps its widgets onto the next line when the row is full, like words in a paragraph.

For rows of buttons that must stay whole on a narrow window (issue #20: the approval panel, Review's tools
and label bar at 1024x700): a button never gets narrower than its text, the row gets taller instead.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QSizePolicy, QWidget, QWidgetItem


class FlowLayout(QLayout):
    def __init__(self, parent=None, *, spacing: int = 6):
        super().__init__(parent)
        self._items: list = []
        self._gap = spacing
        self.setContentsMargins(0, 0, 0, 0)

    # ---------- QLayout's item list ----------
    def addItem(self, item) -> None:
        self._items.append(item)

    def addWidget(self, widget) -> None:  # noqa: N802 (Qt's name)
        self.addChildWidget(widget)
        self.addItem(QWidgetItem(widget))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    # ---------- sizes ----------
    def expandingDirections(self):
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        """All on one line."""
        m = self.contentsMargins()
        shown = [i.sizeHint() for i in self._items if not i.isEmpty()]
        w = sum(s.width() for s in shown) + self._gap * max(0, len(shown) - 1)
        h = max((s.height() for s in shown), default=0)
        return QSize(w + m.left() + m.right(), h + m.top() + m.bottom())

    def minimumSize(self) -> QSize:
        """One item a line: as narrow as the widest item."""
        m = self.contentsMargins()
        size = QSize()
        for i in self._items:
            if not i.isEmpty():
                size = size.expandedTo(i.minimumSize()).expandedTo(QSize(i.sizeHint().width(), 0))
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _place(self, rect: QRect, *, move: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line = area.x(), area.y(), 0
        for item in self._items:
            if item.isEmpty():
                continue
            hint = item.sizeHint()
            if x + hint.width() > area.right() + 1 and line > 0:
                x, y, line = area.x(), y + line + self._gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._gap
            line = max(line, hint.height())
        return y + line - rect.y() + m.bottom()


class FlowRow(QWidget):
    """The widget flow_row makes: its minimum height is what its lines need at its width (a layout that only
    asked for one line squeezed the text above a wrapped row of buttons, issue #38)."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().minimumSizeHint()
        lay = self.layout()
        if lay is None or self.width() < 40:
            return hint
        return QSize(hint.width(), max(hint.height(), lay.heightForWidth(self.width())))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()


def flow_row(widgets, parent=None) -> FlowRow:
    """A widget holding `widgets` in a FlowLayout, that takes the height its lines need."""
    holder = FlowRow(parent)
    lay = FlowLayout(holder)
    for w in widgets:
        lay.addWidget(w)
    sp = holder.sizePolicy()
    sp.setHeightForWidth(True)
    sp.setVerticalPolicy(QSizePolicy.Preferred)
    holder.setSizePolicy(sp)
    return holder


def labelled(text: str, field: QWidget) -> QWidget:
    """`field` with its label before it, as one item of a flow row: they wrap onto the next line together."""
    from PySide6.QtWidgets import QHBoxLayout, QLabel
    pair = QWidget()
    lay = QHBoxLayout(pair)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(4)
    label = QLabel(text)
    label.setBuddy(field)
    lay.addWidget(label)
    lay.addWidget(field)
    return pair
