"""Why a run is not executable: the question Review asks when an annotator presses D (Online-Mind2Web's third
label, the task could not be attempted).

Keyboard first: 1–4 pick one of the four reasons and close the dialog at once; or Tab to the text field and
type your own words (or details of the reason picked with ↑/↓), then Enter. Esc asks nothing and labels nothing.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QVBoxLayout,
)

from cockpit.core.store.labels import NOT_EXECUTABLE_REASONS


class ReasonDialog(QDialog):
    """Asks why the task could not be attempted; :meth:`reason` is the answer once accepted."""

    def __init__(self, parent=None, before: str = ""):
        super().__init__(parent)
        self.setWindowTitle("Not executable: why?")
        intro = QLabel("The task could not be attempted, so the run says nothing about the agent. Why? "
                       "1–4 pick a reason; or type your own words below (details of the reason picked "
                       "with ↑/↓ go there too), then Enter.")
        intro.setWordWrap(True)
        self.choices = QListWidget()
        self.choices.addItems([f"{i}  {r}" for i, r in enumerate(NOT_EXECUTABLE_REASONS, 1)])
        self.choices.setMaximumHeight(self.choices.sizeHintForRow(0) * (len(NOT_EXECUTABLE_REASONS) + 1))
        self.text = QLineEdit(placeholderText="your own words, or details (optional)")
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.button(QDialogButtonBox.Ok).setText("Label not executable")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addWidget(self.choices)
        lay.addWidget(self.text)
        lay.addWidget(self.buttons)
        self.choices.installEventFilter(self)
        self.choices.itemDoubleClicked.connect(lambda _item: self.accept())
        self.choices.itemSelectionChanged.connect(self._update)
        self.text.textChanged.connect(lambda _t: self._update())
        self._preset(before)
        self._update()
        self.choices.setFocus()

    def _preset(self, before: str) -> None:
        """The annotator's earlier reason, picked again (a listed reason) or in the text field (their own)."""
        head, _, rest = before.partition(": ")
        if head in NOT_EXECUTABLE_REASONS:
            self.choices.setCurrentRow(NOT_EXECUTABLE_REASONS.index(head))
            self.text.setText(rest)
        else:
            self.choices.clearSelection()
            self.text.setText(before)

    def reason(self) -> str:
        """"CAPTCHA", "CAPTCHA: details", or the annotator's own words; '' when nothing was said."""
        chosen = self.choices.selectedIndexes()  # (the list's focus makes a row current, not chosen)
        picked = NOT_EXECUTABLE_REASONS[chosen[0].row()] if chosen else ""
        own = self.text.text().strip()
        return f"{picked}: {own}" if picked and own else picked or own

    def _update(self) -> None:
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(bool(self.reason()))

    def accept(self) -> None:
        if self.reason():
            super().accept()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        """A digit on the list (before the list's own type-to-search sees it) picks that reason and closes."""
        if obj is self.choices and event.type() == QEvent.KeyPress \
                and event.modifiers() in (Qt.NoModifier, Qt.KeypadModifier):
            n = event.key() - Qt.Key_1
            if 0 <= n < len(NOT_EXECUTABLE_REASONS):
                self.choices.setCurrentRow(n)
                self.accept()
                return True
        return super().eventFilter(obj, event)
