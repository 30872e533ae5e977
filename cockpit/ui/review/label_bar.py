"""Review's label bar: the annotator's name, Blind, the verdict buttons, the two axes, category and comment,
and the footer line saying what was stored or what to do next.

A widget that owns these fields and says what the person asked for (signals); cockpit.ui.review.labelling
stores the labels. The footer line ("step 3: wrong target — click the right box on the screenshot", "your
label: fail (Unsafe action attempted)") has a line of its own and wraps: it never makes the window wider and
never squeezes the comment field.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.review.key_points import suggested_verdict, suggestion_text
from cockpit.core.store import labels as L
from cockpit.ui.flow_layout import flow_row, labelled
from cockpit.ui.review.queue import QueueBar

#: The key of Online-Mind2Web's third label, not executable (the task could not be attempted; Review asks why).
NOT_EXECUTABLE_KEY = "D"
#: The keys that step through the side effects and repetition answers (E and R judge steps).
AXIS_KEYS = {"side_effects": "X", "repetition": "L"}
AXIS_CHOICES = ("–", "no", "yes", "unsure")  # the first: not answered
#: The key that takes the verdict the key points' ticks suggest (all met: success; any unmet: fail).
SUGGESTION_KEY = "A"
#: The label bar keeps room for the suggestion of a task with this many key points ("9 of 10 key points met: …").
LONGEST_POINTS = 10


class LabelBar(QWidget):
    verdictRequested = Signal(str)  # success, fail, unsure, not_executable (then Review asks why)
    nextRequested = Signal()
    annotatorChanged = Signal(str)
    blindToggled = Signal(bool)
    axisPicked = Signal()
    categoryPicked = Signal()
    commentEdited = Signal()

    def __init__(self, store, annotator: str, parent=None):
        super().__init__(parent)
        self.annotator = QComboBox()
        self.annotator.setEditable(True)
        self.annotator.addItems(L.annotators(store))
        self.annotator.setCurrentText(annotator)
        self.annotator.lineEdit().setCursorPosition(0)  # a long name: its beginning in view
        self.annotator.setToolTip("Your annotator name; labels are stored under it")
        self.annotator.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)  # a long name: no wider
        self.annotator.setMinimumContentsLength(10)
        self.blind = QCheckBox("Blind")
        self.blind.setToolTip("Hide other verdicts (judges, other annotators) until you have labelled the run")
        self.btn_success = QPushButton("Success (S)")
        self.btn_fail = QPushButton("Fail (F)")
        self.btn_unsure = QPushButton("Unsure (U)")
        self.btn_not_executable = QPushButton(f"Not executable ({NOT_EXECUTABLE_KEY})")
        self.btn_not_executable.setToolTip("The task could not be attempted (a CAPTCHA, the site down, a login wall, "
                                           "a blocked region): asks why; never counted as a failure")
        self.suggested: str | None = None  # the verdict the key points suggest (None: the task has none)
        self.btn_suggestion = QPushButton()  # "3 of 4 key points met: suggests failure (A)"; a click takes it
        self.btn_suggestion.setFlat(True)
        self.btn_suggestion.setToolTip(f"What your key-point ticks suggest; you decide ({SUGGESTION_KEY} or a click "
                                       "takes it)")
        self.btn_suggestion.hide()
        self.btn_next = QPushButton("Next unlabelled (N)")
        self.category = QComboBox()
        self.category.setEditable(True)
        self.category.addItems(["", *L.CATEGORIES])
        self.category.setToolTip(CATEGORY_TIP)
        self.category.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.category.setMinimumContentsLength(12)
        self.comment = QLineEdit(placeholderText="comment (optional)")
        self.comment.setMinimumWidth(220)
        self.status = QLabel()  # what was stored, or what to do next
        self.status.setTextFormat(Qt.PlainText)
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.axes = {}
        for axis, key in AXIS_KEYS.items():
            box = QComboBox()
            box.addItems(AXIS_CHOICES)
            box.setToolTip(f"{L.AXIS_QUESTIONS[axis]} ({key} steps through {' / '.join(AXIS_CHOICES[1:])})")
            box.activated.connect(lambda _i: self.axisPicked.emit())
            self.axes[axis] = box
        self.queue_bar = QueueBar(store)  # the annotator's batch, above their label
        self.queue_bar.nextRequested.connect(self.nextRequested)
        self._build()
        self._hold_widths()

    def _build(self) -> None:
        r1 = flow_row((labelled("Annotator:", self.annotator), self.blind, self.btn_success, self.btn_fail,
                       self.btn_unsure, self.btn_not_executable, self.btn_suggestion, labelled(f"Side effects ({AXIS_KEYS['side_effects']}):", self.axes["side_effects"]),
                       labelled(f"Loop ({AXIS_KEYS['repetition']}):", self.axes["repetition"]),
                       self.btn_next, labelled("Category:", self.category), self.comment))
        # wraps on a narrow window, each label with its field; Category and the comment on the same lines (one row
        # fewer under Review's screenshot, #38 walkthrough A2)
        bl = QVBoxLayout(self)
        bl.setContentsMargins(0, 4, 0, 0)
        bl.addWidget(self.queue_bar)
        bl.addWidget(r1)
        bl.addWidget(self.status)
        self.annotator.currentTextChanged.connect(self.annotatorChanged)
        self.blind.toggled.connect(self.blindToggled)
        self._verdict_buttons = ((self.btn_success, "success"), (self.btn_fail, "fail"), (self.btn_unsure, "unsure"),
                                 (self.btn_not_executable, L.NOT_EXECUTABLE))
        for btn, verdict in self._verdict_buttons:
            btn.clicked.connect(lambda _=False, v=verdict: self.verdictRequested.emit(v))
        self.btn_next.clicked.connect(self.nextRequested)
        self.btn_suggestion.clicked.connect(self.accept_suggestion)
        self.category.activated.connect(lambda _: self.categoryPicked.emit())
        self.category.currentIndexChanged.connect(self._category_from_start)
        self.category.lineEdit().editingFinished.connect(self._category_from_start)
        self.comment.editingFinished.connect(self.commentEdited)

    def _category_from_start(self, _i=0) -> None:
        """A category longer than its box is seen from its start, the whole in the tooltip (walkthrough 8: a
        digit or the list left "sual grounding issue" in view); not while one types in it."""
        edit, text = self.category.lineEdit(), self.category.currentText()
        if not edit.hasFocus():
            edit.setCursorPosition(0)
        self.category.setToolTip(f"{text}\n\n{CATEGORY_TIP}" if text else CATEGORY_TIP)

    def _hold_widths(self) -> None:
        """The fields keep their room whatever they say: a verdict button its room for "✓ ", the key points'
        suggestion its room for the longest when hidden or shorter, so the row never wraps differently and the
        bar keeps its height as one labels (issue #38: it jumped a row when S ticked a button or a task's key
        points showed the suggestion)."""
        for btn, _verdict in self._verdict_buttons:
            text = btn.text()
            btn.setText(f"✓ {text}")
            btn.setMinimumWidth(btn.sizeHint().width())
            btn.setText(text)
        self.btn_suggestion.setText(f"{suggestion_text(LONGEST_POINTS - 1, LONGEST_POINTS)} ({SUGGESTION_KEY})")
        self.btn_suggestion.setMinimumWidth(self.btn_suggestion.sizeHint().width())
        self.btn_suggestion.setText("")
        held = self.btn_suggestion.sizePolicy()
        held.setRetainSizeWhenHidden(True)
        self.btn_suggestion.setSizePolicy(held)

    def who(self) -> str:
        """The annotator's name."""
        return self.annotator.currentText().strip()

    def set_suggestion(self, met: int, total: int) -> None:
        """The key points' count: the verdict it suggests beside the verdict buttons (hidden without key points)."""
        self.suggested = suggested_verdict(met, total)
        self.btn_suggestion.setText(f"{suggestion_text(met, total)} ({SUGGESTION_KEY})")
        self.btn_suggestion.setVisible(self.suggested is not None)

    def accept_suggestion(self) -> bool:
        """A: the suggested verdict, as if its own key were pressed."""
        if self.suggested is None:
            self.say("No suggestion: this task has no key points (K types them)")
            return False
        self.verdictRequested.emit(self.suggested)
        return True

    def say(self, text: str) -> None:
        self.status.setText(text)

    def load(self, mine: dict | None) -> None:
        """The fields as the annotator's label on the open run left them (blank: not labelled)."""
        self.category.setCurrentText(mine["category"] if mine and mine["verdict"] == "fail" else "")
        self.category.lineEdit().setCursorPosition(0)  # a long category: its beginning in view
        self.comment.setText(mine["comment"] if mine else "")
        for axis, box in self.axes.items():
            box.setCurrentText((mine or {}).get(axis) or AXIS_CHOICES[0])
        self.show_label(mine)

    def show_label(self, mine: dict | None) -> None:
        """The footer says the run's label (a step's own judgement is in the step's line above), and its verdict's
        button is ticked (walkthrough 6: only the footer said it)."""
        self.say(label_text(mine["verdict"], mine["category"]) if mine else "not labelled by you")
        self.mark_verdict(mine["verdict"] if mine else None)

    def mark_verdict(self, verdict: str | None) -> None:
        """✓ on the button of `verdict` (the annotator's label), none on the others."""
        for btn, v in self._verdict_buttons:
            text = btn.text().removeprefix("✓ ")
            btn.setText(f"✓ {text}" if v == verdict else text)

    def axis_answer(self, axis: str) -> str | None:
        text = self.axes[axis].currentText()
        return None if text == AXIS_CHOICES[0] else text

    def step_axis(self, axis: str) -> None:
        """No, then yes, then unsure, then no again."""
        box = self.axes[axis]
        box.setCurrentIndex(box.currentIndex() % (len(AXIS_CHOICES) - 1) + 1)

    def category_text(self) -> str:
        return self.category.currentText().strip()

    def set_queue_mode(self, queued: bool) -> None:
        """With a batch queue, the queue's own Next button stands in for the bar's."""
        self.btn_next.setVisible(not queued)


CATEGORY_TIP = "Failure category (digits 1–8 pick one; type to add your own)"


def label_text(verdict: str, category: str = "") -> str:
    """"your label: fail (Hallucination)", "your label: not executable (CAPTCHA)": a failure's category, or why
    the task could not be attempted."""
    kept = category and verdict in ("fail", L.NOT_EXECUTABLE)
    return f"your label: {verdict.replace('_', ' ')}" + (f" ({category})" if kept else "")
