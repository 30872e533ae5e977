"""Two runs of the same task side by side, steps aligned (see cockpit.core.review.compare).

Texts from the runs (the task, ids, model names, answers, actions, thoughts) are elided on one line and whole in
their tooltips, and the table's action columns share the width: however long they are, the dialog fits a
1024x700 screen, with both runs and the Close button in view (issue #38).
"""
from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.errors import CockpitError
from cockpit.core.page.marks import marks_from_json
from cockpit.core.review.compare import align, same_action, same_page, target_of
from cockpit.core.store import Store
from cockpit.ui.elide import ElidedLabel
from cockpit.ui.plaintext import tip
from cockpit.ui.room import resize_within_screen
from cockpit.ui.screenshot.view import ScreenshotView


class CompareDialog(QDialog):
    def __init__(self, store: Store, run_a: str, run_b: str, parent=None):
        super().__init__(parent)
        self.store = store
        self.setWindowTitle("Compare runs")
        self.runs = [store.run(run_a), store.run(run_b)]
        self.steps = [store.steps(run_a, with_request=False), store.steps(run_b, with_request=False)]
        self.pairs = align(*self.steps)
        self.targets = [[target_of(s, self._marks(s)) for s in steps] for steps in self.steps]  # by element
        self.table = self._table()
        self.table.currentCellChanged.connect(lambda r, *_: self.show_pair(r))
        self.views = [ScreenshotView(), ScreenshotView()]
        self.labels = [ElidedLabel(), ElidedLabel()]  # the step's action and thought
        self.heads = []
        shots = QSplitter(Qt.Horizontal)
        for k in range(2):
            w = QWidget()
            v = QVBoxLayout(w)
            run = self.runs[k]
            self.heads.append(ElidedLabel(f"{'AB'[k]}: {run['id']} · {run['model']} · {run['status']} · "
                                          f"answer: {run['answer'] or '—'}"))
            v.addWidget(self.heads[k])
            v.addWidget(self.labels[k])
            v.addWidget(self.views[k], 1)
            shots.addWidget(w)
        shots.setSizes([1, 1])  # A and B get the same room
        split = QSplitter(Qt.Vertical)
        split.addWidget(shots)
        split.addWidget(self.table)
        split.setSizes([560, 240])
        lay = QVBoxLayout(self)
        lay.addWidget(ElidedLabel(f"Task: {self.runs[0]['task']}"))
        lay.addWidget(split, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)  # (and Esc)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        resize_within_screen(self, 1280, 800)  # no larger than a small screen (#20)
        if self.pairs:
            self.table.selectRow(0)
            self.show_pair(0)

    def _table(self) -> QTableWidget:
        """A row per aligned pair: both steps and actions, and whether they did the same action on the same page."""
        table = QTableWidget(len(self.pairs), 6)
        table.setHorizontalHeaderLabels(["A step", "A action", "B step", "B action", "same action?", "same page?"])
        for col, text in ((4, "Did both steps do the same thing to the same element? Compared by the element each acted "
                               "on where it is known (its box number or point may differ), else as written ('Click "
                               "[13]' and 'Click [5]' differ). Rows whose actions differ are shaded."),
                          (5, "Were both steps taken on the same page (its address, without the #part)?")):
            table.horizontalHeaderItem(col).setToolTip(text)
        table.setSelectionBehavior(QTableWidget.SelectRows)
        table.setEditTriggers(QTableWidget.NoEditTriggers)
        for row, (i, j) in enumerate(self.pairs):
            a = self.steps[0][i] if i is not None else None
            b = self.steps[1][j] if j is not None else None
            targets = (self.targets[0][i] if i is not None else None, self.targets[1][j] if j is not None else None)
            same = same_action(a, b, targets)
            cells = [str(a["step"]) if a else "—", _act(a), str(b["step"]) if b else "—", _act(b),
                     _yes(lambda *_, same=same: same, a, b), _yes(same_page, a, b)]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tip(text))
                if not same:
                    item.setBackground(QColor("#fff3e0"))
                table.setItem(row, col, item)
        head = table.horizontalHeader()
        for col in range(6):  # the steps and the "same …?" columns as wide as their text, the two actions share the rest
            head.setSectionResizeMode(col, QHeaderView.Stretch if col in (1, 3) else QHeaderView.ResizeToContents)
        return table

    def _marks(self, s: dict) -> list:
        """Step `s`'s marks ([] when it has none or they cannot be read)."""
        try:
            return marks_from_json(json.loads(self.store.read_file(s["marks_file"], "marks"))) if s["marks_file"] else []
        except (CockpitError, ValueError):
            return []

    def show_pair(self, row: int) -> None:
        if not 0 <= row < len(self.pairs):
            return
        for k, idx in enumerate(self.pairs[row]):
            view, label = self.views[k], self.labels[k]
            if idx is None:
                view.clear("no matching step")
                label.setText("")
                continue
            s = self.steps[k][idx]
            try:
                png = self.store.read_file(s["screenshot_clean"] or s["screenshot"], "screenshot")
                view.set_screenshot(png, self._marks(s))
                if s.get("target"):
                    view.set_highlight(s["target"])
            except (CockpitError, ValueError) as e:
                view.clear(str(e))
            label.setText(f"step {s['step']}: {s.get('action') or s.get('action_text') or '(none)'} — "
                          f"{s.get('thought') or ''}")


def _yes(test, a: dict | None, b: dict | None) -> str:
    """'yes' / 'differs', or '—' where one run has no step in this row."""
    if a is None or b is None:
        return "—"
    return "yes" if test(a, b) else "differs"


def _act(step: dict | None) -> str:
    if step is None:
        return ""
    text = step.get("action") or step.get("action_text") or "(no action)"
    flags = step.get("flags") or []
    return text + (f"  [{', '.join(flags)}]" if flags else "")
