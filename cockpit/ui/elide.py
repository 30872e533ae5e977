"""Text from data on one line that never widens the window: it is shortened with "…" and whole in the tooltip.

The API, all of it:

- ``ElidedLabel(text="", parent=None, mode=Qt.ElideRight)``: a one-line, plain-text QLabel. ``setText(text)``
  keeps the full text (``fullText()``) and shows as much of it as the label's width allows, cut with "…" at
  the right (``Qt.ElideMiddle`` for URLs and paths, ``Qt.ElideLeft``…). Line breaks are shown as spaces.
  When the text is cut, the tooltip is the full text (wrapped, see below); when it fits, the tooltip is the
  one given with ``setToolTip`` (if any). ``text()`` is what is shown (Qt paints it), ``fullText()`` what was
  set. Its size hint is the full text's width (it takes the room when there is some), its minimum size hint
  a few characters: it never makes a layout, and so the window, wider.
- ``elide_to(label, text, mode=Qt.ElideRight)``: the same for a plain QLabel made elsewhere (a status bar's,
  a form's): shows `text` elided to the label's width from now on (it is re-elided when the label is resized,
  and a later ``label.setText`` is taken as the new full text), the full text in the tooltip when cut. The
  label takes the width its layout gives it (horizontal policy Ignored,
  minimum width 1 px): give it a stretch factor, or it gets no room.
- ``elided(text, metrics, width, mode=Qt.ElideRight)``: the one-line, elided text (for painting, table cells).

Tooltips go through :func:`cockpit.ui.plaintext.tip` (shown literally, wrapped when long);
:func:`cockpit.ui.plaintext.shown_text` reads one back as a person sees it.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QSizePolicy

from cockpit.ui.plaintext import tip

ELLIPSIS = "…"
_MIN_CHARS = 3  # the minimum size hint: about this many characters and the ellipsis


def one_line(text: str) -> str:
    return " ".join(text.split("\n")).replace("\r", "").replace("\t", " ")


def elided(text: str, metrics: QFontMetrics, width: int, mode=Qt.ElideRight) -> str:
    """`text` on one line, cut with "…" to at most `width` pixels in `metrics`' font."""
    return metrics.elidedText(one_line(text), mode, max(0, width))


def _room(label: QLabel) -> int:
    """The pixels the label's text may take."""
    return label.contentsRect().width() - 2 * max(label.margin(), 0) - max(label.indent(), 0)


class ElidedLabel(QLabel):
    """A one-line label for text from data: elided to its width, whole in its tooltip (see the module)."""

    def __init__(self, text: str = "", parent=None, mode=Qt.ElideRight):
        super().__init__(parent)
        self._full = ""
        self._own_tip = ""
        self._mode = mode
        self.setTextFormat(Qt.PlainText)
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self.setText(text)

    def fullText(self) -> str:  # noqa: N802 (Qt's naming)
        return self._full

    def setText(self, text: str) -> None:  # noqa: N802
        self._full = text or ""
        self.updateGeometry()
        self._show()

    def setElideMode(self, mode) -> None:  # noqa: N802
        self._mode = mode
        self._show()

    def setToolTip(self, text: str) -> None:  # noqa: N802
        self._own_tip = text or ""
        self._show()

    def isElided(self) -> bool:  # noqa: N802
        return super().text() != one_line(self._full)

    def sizeHint(self) -> QSize:  # noqa: N802
        h = super().sizeHint()
        extra = self.contentsMargins().left() + self.contentsMargins().right() + 2 * max(self.margin(), 0)
        return QSize(self.fontMetrics().horizontalAdvance(one_line(self._full)) + extra + 1, h.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        fm = self.fontMetrics()
        w = min(fm.horizontalAdvance("x" * _MIN_CHARS + ELLIPSIS), self.sizeHint().width())
        return QSize(w, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._show()

    def _show(self) -> None:
        shown = elided(self._full, self.fontMetrics(), _room(self), self._mode)
        if shown != super().text():
            super().setText(shown)
        super().setToolTip(tip(self._full) if shown != one_line(self._full) else self._own_tip)


class _Elider(QObject):
    """elide_to's helper: re-elides its label when the label is resized."""

    def __init__(self, label: QLabel):
        super().__init__(label)
        self.setObjectName("_elider")
        self.full, self.mode, self.own_tip, self.shown = "", Qt.ElideRight, label.toolTip(), ""
        label.installEventFilter(self)

    def apply(self, label: QLabel) -> None:
        if label.text() != self.shown:  # set with QLabel.setText since: that is the text now
            self.full = label.text()
        self.shown = elided(self.full, label.fontMetrics(), _room(label), self.mode)
        if self.shown != label.text():
            label.setText(self.shown)
        label.setToolTip(tip(self.full) if self.shown != one_line(self.full) else self.own_tip)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Resize:
            self.apply(obj)
        return False


def elide_to(label: QLabel, text: str, mode=Qt.ElideRight) -> None:
    """Show `text` in a plain QLabel elided to its width, now and whenever it is resized (see the module)."""
    if isinstance(label, ElidedLabel):
        label.setElideMode(mode)
        label.setText(text)
        return
    elider = label.findChild(_Elider, "_elider", Qt.FindDirectChildrenOnly)
    if elider is None:
        elider = _Elider(label)
        label.setTextFormat(Qt.PlainText)
        label.setWordWrap(False)
        label.setMinimumWidth(1)
        label.setSizePolicy(QSizePolicy.Ignored, label.sizePolicy().verticalPolicy())
    elider.full, elider.mode = text or "", mode
    elider.shown = label.text()
    elider.apply(label)


_LONG_WORD = 24  # a run of this many characters without a space gets places to break
_ZWSP = "\u200b"  # a zero-width space: a place to break a line, invisible
_BREAK_AFTER = re.compile(r"([/?&=.,_:;@-])")


def breakable(text: str, run: int = _LONG_WORD) -> str:
    """`text` with invisible break opportunities inside words longer than `run` (URLs, model names, paths):
    after their punctuation, and every `run` characters where there is none, so a wrapped label can wrap them."""
    def split(m: re.Match) -> str:
        word = _BREAK_AFTER.sub("\\1" + _ZWSP, m.group(0))
        return re.sub(f"([^{_ZWSP}]{{{run}}})(?=[^{_ZWSP}])", "\\1" + _ZWSP, word)
    return re.sub(rf"\S{{{run + 1},}}", split, text or "")


def fit_words(text: str, fm, width: int) -> str:
    """`text` for a cell `width` pixels wide that wraps at spaces (Qt's word wrap): only a word too wide for a line
    gets invisible places to break, after its punctuation first ("finished(" "content='deleted"), and within what
    is still too wide, anywhere. Every other word stays whole on its line (walkthrough 8: "con / tent",
    "recommendati / on" when every word of 12 characters or more was broken)."""
    def split(m: re.Match) -> str:
        word = m.group(0)
        if fm.horizontalAdvance(word) <= width:
            return word
        parts = [p for p in _PUNCT_END.split(word) if p]
        return _ZWSP.join(p if fm.horizontalAdvance(p) <= width else _ZWSP.join(p) for p in parts)
    return re.sub(r"[^\s\u200b]+", split, text or "")


_PUNCT_END = re.compile(r"(?<=[/?&=.,_:;@(\[{'\"-])")  # after these a too-long word breaks first


def wrap_within(label: QLabel) -> QLabel:
    """Make `label` wrap to the width its layout gives it, never asking for more (its text's longest word may
    be cut; give it text through `breakable`). Returns the label."""
    label.setWordWrap(True)
    policy = label.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Ignored)
    policy.setHeightForWidth(True)
    label.setSizePolicy(policy)
    label.setMinimumWidth(0)
    return label
