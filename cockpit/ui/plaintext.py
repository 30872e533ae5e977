"""Text from pages, models and task files, shown literally in Qt widgets.

Qt guesses whether a string is rich text (``Qt.mightBeRichText``) for tooltips,
item tooltips and QLabels in the default AutoText format: a page title or a
model's thought starting with ``<b>`` or ``<img src=...>`` would be rendered as
markup. Data goes through :func:`tip` before ``setToolTip`` (or a label is set to
``Qt.PlainText``), so it shows as the characters it is.
"""
from __future__ import annotations

from PySide6.QtGui import Qt


def tip(text: str | None) -> str:
    """`text` as a tooltip that shows it literally (escaped only when Qt would read it as markup)."""
    text = text or ""
    return Qt.convertFromPlainText(text) if Qt.mightBeRichText(text) else text


def shown_text(text: str, fmt=Qt.AutoText) -> str:
    """What a person sees for `text` in a widget of format `fmt` (rich text rendered to plain)."""
    if fmt == Qt.PlainText or (fmt == Qt.AutoText and not Qt.mightBeRichText(text)):
        return text
    from PySide6.QtGui import QTextDocument
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()
