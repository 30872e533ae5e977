"""Review's layout on a small screen: a compact mode, and a one-key full-size screenshot.

A controller ReviewPanel (cockpit.ui.review.panel) composes. Below COMPACT_BELOW pixels of height (a 1024x700
screen) the run's header and final answer take one line each, the step's thought is cut short, the filmstrip hides (←/→
step) and the step's details move under the runs list, so the screenshot gets the room. Z shows the screenshot
alone, as large as the tab (the step keys still work there); Z or Esc brings the rest back. +/- zoom the
screenshot and 0 fits it, wherever the focus is in Review.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QSplitter, QWidget

COMPACT_BELOW = 820  # Review's own height, in pixels
FULL_KEY = "Z"
SIDE = 460  # the runs list's width: Started, Run, Status and some of the Task
SIDE_COMPACT = 440


class ReviewLayout(QObject):
    """Which of Review's parts show: all, compact (a small screen), or the screenshot alone (Z).

    It watches the panel's height, and moves the step's details between the viewer and the side (under the runs
    list); it owns no data, only which parts are on screen.
    """

    def __init__(self, panel: QWidget, viewer, side: QSplitter, split: QSplitter, bars: tuple[QWidget, QWidget]):
        super().__init__(panel)
        self.panel, self.viewer, self.side, self.split = panel, viewer, side, split
        self.label_bar, self.adjudication = bars
        self.compact: bool | None = None
        self._sized = False  # shown at a real size yet (the splitters' sizes are set for it)
        self.full_view = False
        self.adjudicating = False
        self._full_keys = []
        for key, slot in ((FULL_KEY, self.toggle_full_view), ("Escape", lambda: self.set_full_view(False))):
            self._full_keys.append(_shortcut(panel, key, slot))
        self._full_keys[1].setEnabled(False)  # Esc is the view's own key (leave add-mark) unless in full view
        v = viewer.view
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
        """`again`: the panel's first real size; the runs list's width is set for it."""
        if on == self.compact and not again:
            return
        self.compact = on
        v = self.viewer
        if on:  # the details go under the runs list: the screenshot keeps the viewer's height
            self.side.addWidget(v.details)
            self.side.setSizes([300, 300])
            self.split.setSizes([SIDE_COMPACT, max(self.panel.width() - SIDE_COMPACT, 400)])
        else:
            v.vsplit.addWidget(v.details)
            total = max(sum(v.vsplit.sizes()), 400)
            v.vsplit.setSizes([int(total * 0.72), int(total * 0.28)])
        v.compact = on
        self.show_parts()
        at = v
        while at is not None and at is not self.panel.parentWidget():  # a hidden tab's layouts keep old sizes
            if at.layout() is not None:
                at.layout().invalidate()
            at.updateGeometry()
            at = at.parentWidget()
        if v.run:
            v.decorate()

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
