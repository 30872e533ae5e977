"""Small widgets the settings dialog's sections share: a message line that wraps and never widens the dialog,
a button with a busy state that does not move the focus, and the form's labelled rows."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from cockpit.core.settings import MODEL_HELP
from cockpit.ui.elide import breakable
from cockpit.ui.plaintext import tip
from cockpit.ui.room import WrappedLabel


class MessageLabel(WrappedLabel):
    """A plain-text message from data (a server's error, a URL, model names): all its lines, wrapped to the width
    the layout gives; a long URL or name wraps too. It never makes the dialog wider. ``fullText()`` is the message
    as set; ``text()`` what is shown (the same, with invisible break points in long words)."""

    def __init__(self, text: str = "", parent=None):
        super().__init__("", parent)
        self._full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        # Ignored: its width is what the layout gives, never its text's (no minimum width either: QLabel would
        # then size its hint at that width, one word a line).
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def fullText(self) -> str:  # noqa: N802 (Qt's naming)
        return self._full

    def setText(self, text: str) -> None:  # noqa: N802
        self._full = text or ""
        shown = breakable(self._full)
        super().setText(shown)
        self.setToolTip(tip(self._full) if shown != self._full else "")
        self.updateGeometry()


class BusyButton(QPushButton):
    """A push button that says it is busy and is disabled meanwhile (a background call), without moving the focus
    into the next field: the focus waits on the button's parent and comes back to the button when it is idle."""

    def __init__(self, idle: str, busy: str, tooltip: str, parent=None):
        super().__init__(idle, parent)
        self._idle, self._busy = idle, busy
        self.setToolTip(tooltip)
        self.setAutoDefault(False)

    def set_busy(self, busy: bool) -> None:
        park = self.parentWidget()
        focused = self.window().focusWidget()  # the window's, active or not: the one Qt would move on
        if busy:
            if focused is self and park is not None:
                park.setFocus(Qt.FocusReason.OtherFocusReason)  # disabling a focused button would pass it on
            self.setText(self._busy)
            self.setEnabled(False)
            return
        self.setText(self._idle)
        self.setEnabled(True)
        if park is not None and focused is park:
            self.setFocus(Qt.FocusReason.OtherFocusReason)


def form() -> QFormLayout:
    lay = QFormLayout()
    lay.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
    return lay


def label(text: str, buddy: QWidget, help_name: str | None) -> QLabel:
    """A form row's label with its buddy (Alt+letter), and both with the setting's help as their tooltip."""
    lbl = QLabel(text)
    lbl.setBuddy(buddy)
    if help_name:
        buddy.setToolTip(MODEL_HELP.get(help_name, ""))
        lbl.setToolTip(MODEL_HELP.get(help_name, ""))
    return lbl


def row(*widgets: QWidget) -> QWidget:
    """The widgets side by side, the first one stretching."""
    box = QWidget()
    lay = QHBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(widgets[0], 1)
    for w in widgets[1:]:
        lay.addWidget(w)
    return box


def align_labels(*forms: QFormLayout) -> None:
    """Give the label columns of forms stacked one above the other the same width, so their fields line up."""
    labels = [item.widget() for f in forms for r in range(f.rowCount())
              if (item := f.itemAt(r, QFormLayout.ItemRole.LabelRole)) is not None and item.widget() is not None]
    width = max((w.sizeHint().width() for w in labels), default=0)
    for w in labels:
        w.setMinimumWidth(width)
