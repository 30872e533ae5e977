"""Keeping a splitter's pane, or a label, tall enough for what it must show, on a short or narrow window.

A splitter knows its panes' minimum heights, but not how much taller word-wrapped text and wrapped rows of
buttons get on a narrow window (their height depends on the width). On a 1024x700 screen the approval panel's
Edit button was cut off that way (issue #20). RoomKeeper watches the pane and, when its contents need more
height than the splitter gives it, takes the difference from the pane below (down to that pane's minimum), and
gives it back when they need less.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSplitter, QWidget


class RoomKeeper(QObject):
    """`pane` may be a scroll area: its contents are what must be shown whole while there is room."""

    def __init__(self, splitter: QSplitter, pane: QWidget):
        super().__init__(splitter)
        self.splitter, self.pane = splitter, pane
        self.body = pane.widget() if isinstance(pane, QScrollArea) else pane
        self._pending = False
        self._before: list[int] | None = None  # the sizes before it grew the pane
        pane.installEventFilter(self)
        if self.body is not pane:
            self.body.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() in (QEvent.LayoutRequest, QEvent.Resize, QEvent.Show) and not self._pending:
            self._pending = True
            QTimer.singleShot(0, self, self.fit)  # dropped with this keeper if the window goes first
        return False

    def fit(self) -> None:
        """Grow the pane to what its contents want (the approval's evidence too), taking it from the pane below
        down to that one's minimum; give it back once they want less (the approval answered)."""
        self._pending = False
        lay = self.body.layout()
        i = self.splitter.indexOf(self.pane)
        if lay is None or not self.pane.isVisible() or i < 0 or i + 1 >= self.splitter.count():
            return
        width = self.pane.width()
        want = lay.totalHeightForWidth(width) if lay.hasHeightForWidth() else lay.totalSizeHint().height()
        want = max(want, lay.totalMinimumSize().height())  # all of it shown, none of it scrolled, where there is room
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


class TallScrollArea(QScrollArea):
    """A frameless scroll area that asks for all of its contents' height, and scrolls only when the window is
    shorter than that (a dialog on a 700-pixel screen, issue #20). QScrollArea's own size hint is capped at
    24 lines, which would make a dialog scroll on every screen."""

    def __init__(self, body: QWidget, parent=None):
        super().__init__(parent)
        self.setWidget(body)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        # A scroll area does not pass its contents' new size hint on to its own layout (a label's text set later).
        if obj is self.widget() and event.type() == QEvent.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(obj, event)

    def sizeHint(self) -> QSize:
        body, lay = self.widget().sizeHint(), self.widget().layout()
        height = lay.totalHeightForWidth(body.width()) if lay is not None and lay.hasHeightForWidth() else 0
        return QSize(body.width() + self.verticalScrollBar().sizeHint().width(), max(body.height(), height))

    def minimumSizeHint(self) -> QSize:
        body = self.widget().minimumSizeHint()
        return QSize(body.width() + self.verticalScrollBar().sizeHint().width(), min(body.height(), 120))


def fit_to_screen(window: QWidget, margin: int = 48) -> None:
    """Size a top-level window to its size hint, but no larger than its screen's free area (less `margin` for the
    title bar); a scroll area inside takes up the rest. Qt alone would cap a dialog at 2/3 of the screen's height,
    scrolling on screens where it fits."""
    for area in window.findChildren(TallScrollArea):  # their contents may have grown since the last layout
        area.updateGeometry()
    if window.layout() is not None:
        window.layout().activate()
    hint = window.sizeHint()
    resize_within_screen(window, max(window.width(), hint.width()), max(window.height(), hint.height()), margin)


def resize_within_screen(window: QWidget, width: int, height: int, margin: int = 48) -> None:
    """``window.resize(width, height)``, made smaller where its screen (less `margin` for the title bar) is, and,
    for a dialog, no larger than the window it belongs to (a window sized to a small screen is its measure)."""
    screen = window.screen()
    if screen is not None:
        free = screen.availableGeometry()
        width, height = min(width, free.width()), min(height, free.height() - margin)
    owner = window.parentWidget().window() if window.parentWidget() is not None else None
    if owner is not None and owner.isVisible():
        width, height = min(width, owner.width()), min(height, owner.height())
    window.resize(max(width, window.minimumSizeHint().width()), max(height, window.minimumSizeHint().height()))
