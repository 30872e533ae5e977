"""Two runs side by side (of the same task, or of two from one start page or site), steps aligned (see
cockpit.core.review.compare).

Texts from the runs (the task, ids, model names, answers, actions, thoughts) are elided on one line and whole in
their tooltips, and the table's action columns share the width: however long they are, the dialog fits a
1024x700 screen, with both runs and the Close button in view (issue #38).

A run and a branch of it (either as A) are paired by step number (cockpit.core.review.compare.align_branch): the
parent's steps before the branch point head the table as the prelude both share, the row where they part is
marked, and the branch's steps say which of the parent's steps they stand beside. A pixel step's point is drawn
on its screenshot, as Review's step view draws it (issue #38).
"""
from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.errors import CockpitError
from cockpit.core.page.marks import marks_from_json
from cockpit.core.review.compare import align, align_branch, branch_point, same_action, same_page, target_of
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
        self.branch = branch_point(*self.runs)  # (which run is the parent, the step the other goes on from)
        self.pairs = self._align()
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
        a, b = (r["task"] for r in self.runs)  # runs of two tasks from one start page or site: each its own
        lay.addWidget(ElidedLabel(f"Task: {a}" if a == b else f"A's task: {a}   ·   B's task: {b}"))
        if self.branch is not None:
            self.branch_note = QLabel(self._branch_words())
            self.branch_note.setWordWrap(True)
            lay.addWidget(self.branch_note)
        lay.addWidget(split, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)  # (and Esc)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        resize_within_screen(self, 1280, 800)  # no larger than a small screen (#20)
        if self.pairs:
            first = self.branch_row() or 0  # a branch: where it parts from its parent
            self.table.selectRow(first)
            self.show_pair(first)

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
        for row in range(len(self.pairs)):
            cells, same = self._cells(row)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tip(text))
                if not same:
                    item.setBackground(QColor("#fff3e0"))
                table.setItem(row, col, item)
        if self.branch is not None:
            self._mark_branch(table)
        head = table.horizontalHeader()
        for col in range(6):  # the steps and the "same …?" columns as wide as their text, the two actions share the rest
            head.setSectionResizeMode(col, QHeaderView.Stretch if col in (1, 3) else QHeaderView.ResizeToContents)
        return table

    def _align(self) -> list[tuple[int | None, int | None]]:
        """(A, B) step index pairs: by what the steps did, or a run and its branch by step number."""
        if self.branch is None:
            return align(*self.steps)
        parent, at = self.branch
        pairs = align_branch(self.steps[parent], self.steps[1 - parent], at)
        return pairs if parent == 0 else [(j, i) for i, j in pairs]

    def branch_row(self) -> int | None:
        """The row where a run and its branch part (the first after their shared prelude); None for other runs."""
        if self.branch is None:
            return None
        return next((row for row in range(len(self.pairs)) if not self._shared(row)), None)

    def _cells(self, row: int) -> tuple[list[str], bool]:
        """The row's six cells, and whether its two steps did the same thing (shared prelude rows: yes)."""
        i, j = self.pairs[row]
        a = self.steps[0][i] if i is not None else None
        b = self.steps[1][j] if j is not None else None
        if self._shared(row):
            cells = [self._step_text(0, a), _act(a), self._step_text(1, b), _act(b)]
            other = 1 - self.branch[0]
            cells[2 * other:2 * other + 2] = ["shared", f"(as {'AB'[self.branch[0]]}: before the branch)"]
            return cells + ["shared", "shared"], True
        targets = (self.targets[0][i] if i is not None else None, self.targets[1][j] if j is not None else None)
        same = same_action(a, b, targets)
        return [self._step_text(0, a), _act(a), self._step_text(1, b), _act(b),
                _yes(lambda *_: same, a, b), _yes(same_page, a, b)], same

    def _shared(self, row: int) -> bool:
        """A row of the prelude a run and its branch share (the parent's steps before the branch point)."""
        if self.branch is None:
            return False
        parent, at = self.branch
        idx = self.pairs[row][parent]
        return self.pairs[row][1 - parent] is None and idx is not None and self.steps[parent][idx]["step"] < at

    def _step_text(self, k: int, s: dict | None) -> str:
        """Run k's step number; a branch's with the parent's number for the same point ("1 (A's 3)")."""
        if s is None:
            return "—"
        if self.branch is None or k == self.branch[0]:
            return str(s["step"])
        parent, at = self.branch
        return f"{s['step']} ({'AB'[parent]}'s {at + s['step'] - 1})"

    def _branch_words(self) -> str:
        parent, at = self.branch
        p, b = "AB"[parent], "AB"[1 - parent]
        shared = (f"{p}'s steps 1–{at - 1} are the prelude both share ({b} did not record them again); "
                  if at > 2 else f"{p}'s step 1 is the prelude both share; " if at == 2 else "")
        return (f"{b} is a branch of {p}: it goes on from {p}'s step {at}. {shared}from there each row pairs the "
                f"two runs at the same point, and the row headed 'branch point' is where they part.")

    def _mark_branch(self, table: QTableWidget) -> None:
        """The prelude's rows headed "shared", the branch point's (the first after them) "branch point", in bold."""
        bold = QFont(table.font())
        bold.setBold(True)
        point = self.branch_row()
        for row in range(len(self.pairs)):
            head = "shared" if self._shared(row) else "branch point" if row == point else ""
            table.setVerticalHeaderItem(row, QTableWidgetItem(head))
        for col in range(table.columnCount()) if point is not None else ():
            item = table.item(point, col)
            item.setFont(bold)
            item.setToolTip(tip(f"Where the runs part: {'AB'[1 - self.branch[0]]}'s step 1 is "
                                f"{'AB'[self.branch[0]]}'s step {self.branch[1]}, asked again. {item.text()}"))

    def _missing(self, row: int) -> str:
        """What the screenshot pane says for a run with no step in `row`."""
        if self._shared(row):
            parent, at = self.branch
            return f"shared with {'AB'[parent]}: {'AB'[1 - parent]} goes on from {'AB'[parent]}'s step {at}"
        return "no matching step"

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
                view.clear(self._missing(row))
                label.setText("")
                continue
            s = self.steps[k][idx]
            try:
                png = self.store.read_file(s["screenshot_clean"] or s["screenshot"], "screenshot")
                view.set_screenshot(png, self._marks(s))
                if s.get("target"):
                    view.set_highlight(s["target"])
                view.set_pointer(s.get("action") or s.get("action_text"), s.get("pointer"))  # a pixel step's point
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
