"""Breakpoints, set and cleared in the window while a run goes.

Edits the very list the running agent reads (AgentConfig.breakpoints), so a
change applies from the agent's next check on. Shows how often each one hit.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.agent.breakpoints import KINDS, Breakpoint
from cockpit.ui.elide import ElidedLabel, breakable, wrap_within

NEEDS_VALUE = {"action": "action kind, e.g. click or type", "text": "regex, e.g. delete|remove", "url": "regex, e.g. checkout|example.com",
               "step": "step number, e.g. 5"}


class BreakpointsPanel(QWidget):
    def __init__(self, breakpoints: list[Breakpoint], parent=None):
        super().__init__(parent)
        self.breakpoints = breakpoints
        self.kind = QComboBox()
        for k, text in KINDS.items():
            self.kind.addItem(k, k)
            self.kind.setItemData(self.kind.count() - 1, text, Qt.ToolTipRole)
        self.value = QLineEdit()
        self.add_btn = QPushButton("Add")
        self.remove_btn = QPushButton("Remove")
        self.error = wrap_within(QLabel())  # a bad regex is quoted: it wraps, never widens the window
        self.error.setTextFormat(Qt.PlainText)
        self.error.setStyleSheet("color:#b00020")
        self.error.setVisible(False)
        self.list = QListWidget()
        # A few rows at least, no more: on a 700-pixel screen this tab must not take the approval panel's room
        # (the Steps, Breakpoints and Plan tabs are as tall as the tallest one's minimum).
        self.list.setMinimumHeight(3 * self.list.fontMetrics().height())
        self.list.itemChanged.connect(self._on_item_changed)
        row = QHBoxLayout()
        for w in (self.kind, self.value, self.add_btn, self.remove_btn):
            row.addWidget(w)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 4, 2, 2)
        lay.addLayout(row)
        lay.addWidget(self.error)
        lay.addWidget(self.list, 1)
        # One line on a narrow window (cut with "…", whole in its tooltip): the pane keeps its width and height.
        # Short enough to be read whole at 1024 pixels (#38).
        self.help = ElidedLabel("A hit pauses before the action; F5 resumes, F10 steps.")
        lay.addWidget(self.help)
        self.kind.currentIndexChanged.connect(self._on_kind)
        self.add_btn.clicked.connect(self.add_from_form)
        self.value.returnPressed.connect(self.add_from_form)
        self.remove_btn.clicked.connect(self.remove_selected)
        self._on_kind()
        self.refresh()

    def _on_kind(self) -> None:
        k = self.kind.currentData()
        self.value.setEnabled(k in NEEDS_VALUE)
        self.value.setPlaceholderText(NEEDS_VALUE.get(k, "(no value needed)"))

    def add_from_form(self) -> Breakpoint | None:
        k = self.kind.currentData()
        try:
            bp = Breakpoint(k, self.value.text().strip() if k in NEEDS_VALUE else "")
            if k in NEEDS_VALUE and not bp.value:
                raise ValueError(f"a {k} breakpoint needs a value ({NEEDS_VALUE[k]})")
        except Exception as e:  # bad regex or step number: say so, keep the form
            self.error.setText(breakable(f"Not added: {e}"))
            self.error.setVisible(True)
            return None
        self.error.clear()
        self.error.setVisible(False)
        self.breakpoints.append(bp)
        self.value.clear()
        self.refresh()
        return bp

    def remove_selected(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.breakpoints):
            del self.breakpoints[row]
            self.refresh()

    def refresh(self) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for bp in self.breakpoints:
            it = QListWidgetItem(f"{bp.describe()}   (hit {bp.hits}×)")
            it.setFlags(it.flags() | Qt.ItemIsUserCheckable)
            it.setCheckState(Qt.Checked if bp.enabled else Qt.Unchecked)
            it.setToolTip(KINDS[bp.kind])
            self.list.addItem(it)
        self.list.blockSignals(False)

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        row = self.list.row(item)
        if 0 <= row < len(self.breakpoints):
            self.breakpoints[row].enabled = item.checkState() == Qt.Checked
