"""Review's layout on a small screen: a compact mode, and a one-key full-size screenshot.

A mixin of ReviewPanel (cockpit.ui.review.panel). Below COMPACT_BELOW pixels of height (a 1024x700 screen) the
run's header and final answer take one line each, the step's thought is cut short, the filmstrip hides (←/→
step) and the step's details move under the runs list, so the screenshot gets the room. Z shows the screenshot
alone, as large as the tab (the step keys still work there); Z or Esc brings the rest back. +/- zoom the
screenshot and 0 fits it, wherever the focus is in Review.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QSizePolicy

from cockpit.ui.plaintext import tip

COMPACT_BELOW = 820  # Review's own height, in pixels
FULL_KEY = "Z"


class ElidedLabel(QLabel):
    """One line of plain text, cut with "…" to the label's width; the whole text in the tooltip."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._full = ""
        self.setTextFormat(Qt.PlainText)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)

    def set_full_text(self, text: str, tooltip: str = "") -> None:
        self._full = " ".join(text.split())
        self.setToolTip(tooltip or tip(self._full))  # `tooltip`: markup the caller escaped; else shown literally
        self._elide()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        self.setText(self.fontMetrics().elidedText(self._full, Qt.ElideRight, max(20, self.width() - 4)))


class ReviewLayout:
    """Compact mode and the full-size view: ReviewPanel's small-screen half."""

    def _install_layout(self) -> None:
        self.compact: bool | None = None
        self.full_view = False
        self.header_line, self.answer_line = ElidedLabel(), ElidedLabel()
        self.header_line.setStyleSheet("font-weight: bold")
        self.answer_line.setStyleSheet("background:#eef6ee; padding:2px; border:1px solid #cfe3cf")
        lay = self.header.parentWidget().layout()
        lay.insertWidget(lay.indexOf(self.header), self.header_line)
        lay.insertWidget(lay.indexOf(self.answer), self.answer_line)
        self._full_keys = []
        for key, slot in ((FULL_KEY, self.toggle_full_view), ("Escape", lambda: self.set_full_view(False))):
            sc = QShortcut(QKeySequence(key), self)
            sc.setContext(Qt.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
            self._full_keys.append(sc)
        self._full_keys[1].setEnabled(False)  # Esc is the view's own key (leave add-mark) unless in full view
        for key, slot in (("+", self.view.zoom_in), ("=", self.view.zoom_in), ("-", self.view.zoom_out),
                          ("0", self.view.fit)):  # as in Live, wherever the focus is in Review (not only on the view)
            sc = QShortcut(QKeySequence(key), self)
            sc.setContext(Qt.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
        self._set_compact(False)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._set_compact(self.height() < COMPACT_BELOW)

    def _set_compact(self, on: bool) -> None:
        if on == self.compact:
            return
        self.compact = on
        if on:  # the details go under the runs list: the screenshot keeps the viewer's height
            self.side.addWidget(self.details)
            self.side.setSizes([300, 300])
            self.split.setSizes([380, max(self.width() - 380, 400)])
        else:
            self.vsplit.addWidget(self.details)
            total = max(sum(self.vsplit.sizes()), 400)
            self.vsplit.setSizes([int(total * 0.72), int(total * 0.28)])
        self._show_layout()
        if self.run:
            self._show_header()
            if self.steps and 0 <= self.index < len(self.steps):
                self._decorate(self.steps[self.index])

    def _show_layout(self) -> None:
        """Which parts show: all, compact (one-line header and answer), or the screenshot alone."""
        full, compact = self.full_view, bool(self.compact)
        for w in (self.header, self.answer):
            w.setVisible(not full and not compact)
        for w in (self.header_line, self.answer_line):
            w.setVisible(not full and compact)
        self.filmstrip.setVisible(not full and not compact)  # ←/→ and the step line stand in for it
        for w in (self.tools_row, self.step_info, self.details, self.side):
            w.setVisible(not full)
        self.label_bar.setVisible(not full and not self.adjudicating)  # adjudication mode: its own bar
        self.adjudication.setVisible(not full and self.adjudicating)
        if not full:
            self.image_note.setVisible(bool(self.image_note.text()))

    def toggle_full_view(self) -> None:
        self.set_full_view(not self.full_view)

    def set_full_view(self, on: bool) -> None:
        if on == self.full_view:
            return
        self.full_view = on
        self._full_keys[1].setEnabled(on)
        self._show_layout()
        self.view.setFocus()
