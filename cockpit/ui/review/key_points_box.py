"""Review's key points, a tab of the step's details: the open run's task's key points as checkboxes (Online-Mind2Web's human evaluation ticks
them one by one, each with the step where it was met).

A tick is the annotator's and binds the key point to the step on screen ("met at step 3"); ticking it again on
another step moves it there, unticking removes it. Ctrl+1…9 tick or untick key point 1…9 from the keyboard; K
types the task's key points (one a line, for every run of the task). The points are typed ones, else those of
WebJudge's first stage (cockpit.core.review.key_points). The line before them counts the ticks: a suggestion for
the verdict, which the annotator decides.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QInputDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from cockpit.core.errors import CockpitError
from cockpit.core.review.key_points import of_run
from cockpit.core.store import key_points as KP
from cockpit.core.words import plural
from cockpit.ui.flow_layout import flow_row
from cockpit.ui.plaintext import tip

TYPE_KEY = "K"
#: Characters of a key point shown on its checkbox (the whole point in its tooltip).
SHOWN_CHARS = 48


class KeyPointsBox(QWidget):
    message = Signal(str)  # what a tick did, or what is missing (the label bar's footer says it)
    counted = Signal(int, int, bool)  # points met, points, whether the annotator just ticked or typed them

    def __init__(self, store, who: Callable[[], str], parent=None):
        super().__init__(parent)
        self.store, self.who = store, who
        self.run: dict | None = None
        self.step: int | None = None
        self.points: list[str] = []
        self.boxes: list[QCheckBox] = []
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.PlainText)
        self.type_btn = QPushButton(f"Type key points… ({TYPE_KEY})")
        self.type_btn.setToolTip("The task's key points, one a line, for every run of the task (WebJudge's are used "
                                 "until some are typed)")
        self.type_btn.clicked.connect(self.type_points)
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(4, 4, 4, 4)
        self._lay.addStretch(1)
        self.row: QWidget | None = None
        self._fill()

    # ---------- what is shown ----------
    def show_run(self, run: dict | None) -> None:
        self.run = run
        self.points = of_run(self.store, run).points if run else []
        self._fill()

    def set_step(self, step: int | None) -> None:
        self.step = step

    def refresh(self) -> None:
        """Another annotator, or labels from elsewhere: the ticks again."""
        self.show_run(self.run)

    def _ticks(self) -> dict[int, dict]:
        if not self.run or not self.who():
            return {}
        return {t["position"]: t for t in KP.ticks(self.store, self.run["id"], self.who())}

    def _fill(self, acted: bool = False) -> None:
        if self.row is not None:
            self._lay.removeWidget(self.row)
            self.row.hide()
            self.row.deleteLater()
        ticks = self._ticks()
        self.boxes = []
        for i, point in enumerate(self.points):
            box = QCheckBox(_box_text(i, point, ticks.get(i)))
            box.setToolTip(tip(f"{point}\n(Ctrl+{i + 1} ticks it at the step shown)" if i < 9 else point))
            box.setChecked(i in ticks)
            box.clicked.connect(lambda on, i=i: self.set_tick(i, on))
            self.boxes.append(box)
        self._say_summary(ticks)
        self.counted.emit(len(ticks), len(self.points), acted)
        self.row = flow_row([self.summary, *self.boxes, self.type_btn])
        self._lay.insertWidget(0, self.row)
        self.row.show()  # (added to a shown box: not shown until told)
        self.type_btn.setEnabled(self.run is not None)

    def _say_summary(self, ticks: dict) -> None:
        if not self.points:
            self.summary.setText("Key points: none yet" if self.run else "Key points:")
            return
        source = of_run(self.store, self.run).source if self.run else ""
        self.summary.setText(f"Key points ({source}): {len(ticks)} of {len(self.points)} met")

    # ---------- the annotator's ticks ----------
    def toggle(self, i: int) -> None:
        """Ctrl+N: tick key point N at the step shown, or untick it."""
        if 0 <= i < len(self.boxes):
            self.set_tick(i, not self.boxes[i].isChecked())

    def set_tick(self, i: int, on: bool) -> None:
        who = self.who()
        if not self.run or not who or (on and self.step is None):
            self.message.emit("Enter your annotator name first" if self.run and not who else
                              "Open a run and pick a step first")
            self._fill()
            return
        if on:
            KP.tick(self.store, self.run["id"], who, i, self.points[i], self.step)
            self.message.emit(f"key point {i + 1} met at step {self.step}")
        else:
            KP.untick(self.store, self.run["id"], who, i)
            self.message.emit(f"key point {i + 1} not met")
        self._fill(acted=True)

    def type_points(self) -> bool:
        """K: type the task's key points, one a line (an empty text goes back to WebJudge's, if any)."""
        if not self.run:
            return False
        text, ok = QInputDialog.getMultiLineText(self, "Key points", "The task's key points, one a line (for every "
                                                 "run of this task):", "\n".join(self.points))
        if not ok:
            return False
        try:
            KP.set_typed(self.store, KP.task_key(self.run), text.splitlines(), self.who() or "someone")
        except CockpitError as e:
            self.message.emit(str(e))
            return False
        self.points = of_run(self.store, self.run).points
        self._fill(acted=True)
        self.message.emit(f"{plural(len(self.points), 'key point')} for this task")
        return True


def _box_text(i: int, point: str, tick: dict | None) -> str:
    shown = " ".join(point.split())
    shown = shown if len(shown) <= SHOWN_CHARS else shown[:SHOWN_CHARS - 1] + "…"
    return f"{i + 1}. {shown}" + (f" (step {tick['step']})" if tick else "")
