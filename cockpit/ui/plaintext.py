"""Text from pages, models and task files, shown literally in Qt widgets.

Qt guesses whether a string is rich text (``Qt.mightBeRichText``) for tooltips,
item tooltips and QLabels in the default AutoText format: a page title or a
model's thought starting with ``<b>`` or ``<img src=...>`` would be rendered as
markup. Data goes through :func:`tip` before ``setToolTip`` (or a label is set to
``Qt.PlainText``), so it shows as the characters it is.

A long line wraps: Qt word-wraps only rich-text tooltips, so text with a line
longer than WRAP_CHARS goes as escaped rich text whose spaces stay breakable
(``white-space: pre-wrap``); Qt's own escaping turns them into non-breaking
spaces, which made a long thought one tooltip line wider than the screen.

A tooltip is also kept short: a model's 200 KB thought would otherwise become
a 200 KB tooltip, slow to lay out and taller than the screen. :func:`tip`
shows the beginning and says how much more there is.
"""
from __future__ import annotations

import html

from PySide6.QtGui import Qt

TIP_CHARS = 2000  # at most this many characters of the text in a tooltip
TIP_LINES = 40  # and at most this many lines
WRAP_CHARS = 100  # a tooltip with a longer line wraps


def tip(text: str | None, where: str = "") -> str:
    """`text` as a tooltip that shows it literally (escaped only when Qt would read it as markup).

    Long text is cut to its first TIP_CHARS characters and TIP_LINES lines, followed
    by a line saying how many characters were left out and, with `where`, where to
    read all of it ("see the step's details").
    """
    text = _capped(text or "", where)
    if not Qt.mightBeRichText(text) and all(len(line) <= WRAP_CHARS for line in text.split("\n")):
        return text
    return f'<p style="white-space:pre-wrap">{html.escape(text, quote=False)}</p>'


def _capped(text: str, where: str) -> str:
    shown = text[:TIP_CHARS]
    cut = -1
    for _ in range(TIP_LINES):
        cut = shown.find("\n", cut + 1)
        if cut < 0:
            break
    if cut >= 0:  # more than TIP_LINES lines
        shown = shown[:cut]
    rest = text[len(shown):]
    if not rest.strip():  # nothing cut, or only trailing blank space
        return shown if rest else text
    return f"{shown}\n… ({len(text) - len(shown):,} more characters{'; ' + where if where else ''})"


def shown_text(text: str, fmt=Qt.AutoText) -> str:
    """What a person sees for `text` in a widget of format `fmt` (rich text rendered to plain; the zero-width
    break opportunities of :func:`cockpit.ui.elide.breakable` are invisible, so left out)."""
    if fmt == Qt.PlainText or (fmt == Qt.AutoText and not Qt.mightBeRichText(text)):
        return text.replace("\u200b", "")
    from PySide6.QtGui import QTextDocument
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText().replace("\u200b", "")
