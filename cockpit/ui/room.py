"""Keeping a splitter's pane, or a label, tall enough for what it must show, on a short or narrow window.

A splitter knows its panes' minimum heights, but not how much taller word-wrapped text and wrapped rows of
buttons get on a narrow window (their height depends on the width). On a 1024x700 screen the approval panel's
Edit button was cut off that way (issue #20). RoomKeeper watches the pane and, when its contents need more
height than the splitter gives it, takes the difference from the pane below (down to that pane's minimum), and
gives it back when they need less.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, QTimer
from PySide6.QtWidgets import QLabel, QSplitter, QWidget


class RoomKeeper(QObject):
    def __init__(self, splitter: QSplitter, pane: QWidget):
        super().__init__(splitter)
        self.splitter, self.pane = splitter, pane
        self._pending = False
        self._before: list[int] | None = None  # the sizes before it grew the pane
        pane.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() in (QEvent.LayoutRequest, QEvent.Resize, QEvent.Show) and not self._pending:
            self._pending = True
            QTimer.singleShot(0, self.fit)
        return False

    def fit(self) -> None:
        """Grow the pane to what its contents want (the approval's evidence too), taking it from the pane below
        down to that one's minimum; give it back once they want less (the approval answered)."""
        self._pending = False
        lay = self.pane.layout()
        i = self.splitter.indexOf(self.pane)
        if lay is None or not self.pane.isVisible() or i < 0 or i + 1 >= self.splitter.count():
            return
        want = lay.totalHeightForWidth(self.pane.width()) if lay.hasHeightForWidth() else 0
        sizes = self.splitter.sizes()
        if self._before is not None and want <= self._before[i]:
            self.splitter.setSizes(self._before)  # as the human left them
            self._before = None
            return
        spare = sizes[i + 1] - self.splitter.widget(i + 1).minimumSizeHint().height()
        give = min(want - sizes[i], spare)
        if give > 0:
            self._before = self._before or list(sizes)
            sizes[i] += give
            sizes[i + 1] -= give
            self.splitter.setSizes(sizes)


class WrappedLabel(QLabel):
    """A word-wrapped label that asks its layout for the height of all its lines at its width.

    A form layout sizes a row by its label's one-line minimum, so the lines below were cut off or drawn under
    the next row (the model dialog's keyring note and test result, issue #20)."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(True)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        if self.width() < 60 or not self.text():
            return hint
        return QSize(hint.width(), max(hint.height(), self.heightForWidth(self.width())))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()
