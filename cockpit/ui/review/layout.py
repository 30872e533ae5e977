"""Review's layout on a small screen: a compact mode, and a one-key full-size screenshot.

A controller ReviewPanel (cockpit.ui.review.panel) composes. The step's details sit under the runs list, in the side's
splitter (sized once, as Review first shows: the list LIST_SHARE of the side's height, at least LIST_ROWS rows;
the person's drag of the handle is kept after), so the screenshot keeps the viewer's height. Below
COMPACT_BELOW pixels of height (a 1024x700 screen) the run's header and final answer share one line, the step's thought
is cut short, the filmstrip hides (←/→ step) and the filter boxes fold behind a button (issue #38, walkthrough A2). Z shows the screenshot
alone, as large as the tab (the step keys still work there); Z or Esc brings the rest back. +/- zoom the
screenshot and 0 fits it, wherever the focus is in Review.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QSplitter, QWidget

COMPACT_BELOW = 820  # Review's own height, in pixels
FULL_KEY = "Z"
SIDE = 460  # the runs list's width: Started, Run, Status and some of the Task
SIDE_COMPACT = 440
LIST_ROWS = 9  # runs in view in compact mode (a 1024x700 screen), when the height allows
LIST_SHARE = 0.66  # of the side's height on a taller window, the rest for the step's details
DETAILS_MIN = 150  # the step's details under the list, when the side is sized
VIEW_MIN = 150  # the step's screenshot, at the window's smallest


class ReviewLayout(QObject):
    """Which of Review's parts show: all, compact (a small screen), or the screenshot alone (Z).

    It watches the panel's height and puts the step's details under the runs list (once); it owns no data, only
    which parts are on screen.
    """

    def __init__(self, panel: QWidget, viewer, side: QSplitter, split: QSplitter, bars: tuple[QWidget, QWidget]):
        super().__init__(panel)
        self.panel, self.viewer, self.side, self.split = panel, viewer, side, split
        self.label_bar, self.adjudication = bars
        self.compact: bool | None = None
        self._sized = False  # shown at a real size yet (the splitters' sizes are set for it)
        self._side_sized = False  # the runs list and the details under it sized (once)
        self.full_view = False
        self.adjudicating = False
        self._full_keys = []
        for key, slot in ((FULL_KEY, self.toggle_full_view), ("Escape", lambda: self.set_full_view(False))):
            self._full_keys.append(_shortcut(panel, key, slot))
        self._full_keys[1].setEnabled(False)  # Esc is the view's own key (leave add-mark) unless in full view
        v = viewer.view
        # at the window's smallest: a screenshot one can read and a few runs (a 50-px screenshot and one run row
        # were left, #38 walkthrough A13); the window's minimum height follows, within a 1024x700 screen
        v.setMinimumHeight(VIEW_MIN)
        table = side.widget(0).table
        table.setMinimumHeight(table.horizontalHeader().sizeHint().height() + 4 * table.verticalHeader().defaultSectionSize() + 20)
        side.setCollapsible(0, False)
        # the details under the runs list, whatever the size: the screenshot keeps the viewer's height (under it
        # they left a 1600x1000 screen a 400x300 screenshot, #38 walkthrough A2); the list has room to share
        side.addWidget(viewer.details)
        for key, slot in (("+", v.zoom.zoom_in), ("=", v.zoom.zoom_in), ("-", v.zoom.zoom_out), ("0", v.zoom.fit)):
            _shortcut(panel, key, slot)  # as in Live, wherever the focus is in Review (not only on the view)
        panel.installEventFilter(self)
        # compact until its height is known: Review, a hidden tab, asked the window for its full layout's height
        # (560 px), and the window's minimum on a 700-px screen left no room for a title bar (issue #38)
        self.set_compact(True)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        if obj is self.panel and event.type() == QEvent.Resize:
            sized, self._sized = self._sized, self.panel.isVisible()
            self.set_compact(self.panel.height() < COMPACT_BELOW, again=not sized and self._sized)
        return False

    def set_compact(self, on: bool, *, again: bool = False) -> None:
        """`again`: the panel's first real size; the side's list and details are sized for it."""
        if on == self.compact and not again:
            return
        self.compact = on
        v = self.viewer
        if on:
            self.split.setSizes([SIDE_COMPACT, max(self.panel.width() - SIDE_COMPACT, 400)])
        if again or not self._side_sized:  # once: after it the list and the details keep what the person dragged
            QTimer.singleShot(0, self.size_side)  # once the list's parts have their heights
        v.compact = on
        self.side.widget(0).set_compact(on)  # the runs browser: its filter boxes fold behind a button
        self.show_parts()
        at = v
        while at is not None and at is not self.panel.parentWidget():  # a hidden tab's layouts keep old sizes
            if at.layout() is not None:
                at.layout().invalidate()
            at.updateGeometry()
            at = at.parentWidget()
        if v.run:
            v.decorate()

    def size_side(self) -> None:
        """The runs list LIST_ROWS rows high or LIST_SHARE of the side, the step's details under it the rest (at
        least DETAILS_MIN); the person may drag the handle between them."""
        sizes, table = self.side.sizes(), self.panel_table()
        total = sum(sizes)
        if total < 2 * DETAILS_MIN:
            return
        need = sizes[0] - table.viewport().height() + LIST_ROWS * table.verticalHeader().defaultSectionSize() + 2
        list_h = max(min(max(need, int(total * LIST_SHARE)), total - DETAILS_MIN), total // 2)
        self.side.setSizes([list_h, total - list_h])
        self._side_sized = True

    def panel_table(self):
        return self.side.widget(0).table  # the runs browser's table

    def set_adjudicating(self, on: bool) -> None:
        self.adjudicating = on
        self.show_parts()

    def show_parts(self) -> None:
        """Which parts show: all, compact (one-line header and answer), or the screenshot alone."""
        full, compact, v = self.full_view, bool(self.compact), self.viewer
        for w in (v.header, v.answer):
            w.setVisible(not full and not compact)
        for w in (v.header_line, v.answer_line):
            w.setVisible(not full and compact)
        v.filmstrip.setVisible(not full and not compact)  # ←/→ and the step line stand in for it
        for w in (v.tools, v.step_info, v.details, self.side):
            w.setVisible(not full)
        self.label_bar.setVisible(not full and not self.adjudicating)  # adjudication mode: its own bar
        self.adjudication.setVisible(not full and self.adjudicating)
        if not full:
            v.image_note.setVisible(bool(v.image_note.text()))

    def toggle_full_view(self) -> None:
        self.set_full_view(not self.full_view)

    def set_full_view(self, on: bool) -> None:
        if on == self.full_view:
            return
        self.full_view = on
        self._full_keys[1].setEnabled(on)
        self.show_parts()
        self.viewer.view.setFocus()


def _shortcut(widget: QWidget, key: str, slot) -> QShortcut:
    sc = QShortcut(QKeySequence(key), widget)
    sc.setContext(Qt.WidgetWithChildrenShortcut)
    sc.activated.connect(slot)
    return sc
