"""Take-over controls: act by hand through the cockpit while the agent is paused.

Clicking a box on the screenshot picks the target; clicking where there is no box (or Alt+click)
picks that point, for a click or typing at the point as a pixel action; the buttons send actions
to the agent's thread, where they run and are recorded as human steps. Using
an action, or a new look at the page, forgets the target and the typed text:
box numbers are the old page's.

The panel holds still: picking a target changes texts, never where the buttons are (the Click button is as wide
as its widest text, the line above as tall as its longest), and the mouse wheel over it does nothing, where it
scrolled the panel away from under the pointer (#38).
"""
from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QLineEdit, QPushButton, QSizePolicy

from cockpit.core.actions.grammar import Action
from cockpit.ui.flow_layout import flow_row
from cockpit.ui.live.log_sight import KEEP_IN_SIGHT

LOOK_PATIENCE_MS = 20_000  # how long a take-over waits for its fresh look before the controls are given anyway


class TakeOverPanel(QFrame):
    act = Signal(object)  # Action
    handBack = Signal(str)  # note for the agent

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("takeOverPanel")
        self.setProperty(KEEP_IN_SIGHT, True)  # the newest log row is not scrolled into sight at its cost
        self.setFrameShape(QFrame.StyledPanel)
        self.setStyleSheet("#takeOverPanel { background: #e8f4fd; border: 2px solid #2196f3; border-radius: 4px; }")
        self.target: int | None = None
        self.point: tuple[int, int] | None = None  # a point picked instead of a box
        self.waiting = False  # taken, the fresh look at the page not in yet: the screenshot shown is the old one
        g = QGridLayout(self)
        self.info = _SteadyLabel("<b>You have the browser.</b> Click a box on the screenshot to pick a target.")
        self.click_btn = QPushButton("Click target")
        fm = self.click_btn.fontMetrics()  # as wide as "Click (1279, 1023)": the field beside it stays put
        self.click_btn.setMinimumWidth(fm.horizontalAdvance("Click (0000, 0000)") + 24)
        self.text = QLineEdit(placeholderText="text to type into the target")
        self.type_btn = QPushButton("Type")
        self.enter_btn = QPushButton("Press Enter")
        self.up_btn, self.down_btn = QPushButton("Scroll up"), QPushButton("Scroll down")
        self.back_btn = QPushButton("Go back")
        self.url = QLineEdit(placeholderText="https://…")
        self.goto_btn = QPushButton("Go to URL")
        self.note = QLineEdit(placeholderText="Note for the agent when you hand back (optional)")
        self.hand_btn = QPushButton("Hand back to the agent (F9)")
        self.hand_btn.setStyleSheet("font-weight: bold")
        # Rows that narrow with the window (1024 px): the fields stretch, the four page actions wrap.
        g.addWidget(self.info, 0, 0, 1, 3)
        g.addWidget(self.click_btn, 1, 0)
        g.addWidget(self.text, 1, 1)
        g.addWidget(self.type_btn, 1, 2)
        g.addWidget(flow_row((self.up_btn, self.down_btn, self.back_btn, self.enter_btn)), 2, 0, 1, 3)
        g.addWidget(self.url, 3, 0, 1, 2)
        g.addWidget(self.goto_btn, 3, 2)
        g.addWidget(self.note, 4, 0, 1, 3)
        g.addWidget(self.hand_btn, 5, 0, 1, 3)
        g.setColumnStretch(1, 1)
        self.click_btn.clicked.connect(lambda: self._targeted("click"))
        self.type_btn.clicked.connect(lambda: self._targeted("type", self.text.text()))
        self.text.returnPressed.connect(lambda: self._targeted("type", self.text.text()))
        self.enter_btn.clicked.connect(lambda: self.act.emit(Action("press", text="Enter")))
        self.up_btn.clicked.connect(lambda: self.act.emit(Action("scroll", self.target, "up")))
        self.down_btn.clicked.connect(lambda: self.act.emit(Action("scroll", self.target, "down")))
        self.back_btn.clicked.connect(lambda: self.act.emit(Action("back")))
        self.goto_btn.clicked.connect(self._goto)
        self.url.returnPressed.connect(self._goto)
        self.hand_btn.clicked.connect(self.hand_back)
        self.set_target(None)
        self.setVisible(False)

    def set_human(self, human: bool) -> None:
        """A person's own attempt (cockpit.ui.live.attempt): no agent to hand back to, nor a note for it."""
        self.hand_btn.setVisible(not human)
        self.note.setVisible(not human)

    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """The wheel over the panel's buttons and fields: nothing moves (it scrolled the panel under the pointer)."""
        event.accept()

    def start_looking(self) -> None:
        """The browser is being taken: until the page is looked at anew (the agent first ends the model call or
        action it is in), the shown boxes are the old numbering, so nothing can be picked or run yet."""
        self.set_target(None)
        self.waiting = True
        self.set_busy(True)
        self.info.setText("<b>Taking the browser…</b> waiting for the agent to finish what it is doing, then "
                          "looking at the page as it is now.")
        QTimer.singleShot(LOOK_PATIENCE_MS, self, self._gave_up_looking)

    def _gave_up_looking(self) -> None:
        """No fresh look came (a page that does not answer): the controls are the person's anyway, said so."""
        if self.waiting:
            self.forget_target()
            self.info.setText("<b>You have the browser.</b> The page could not be looked at anew: the boxes shown "
                              "may be out of date (Go to URL or Go back work without them).")

    def set_target(self, mark_id: int | None, label: str = "") -> None:
        if self.waiting and mark_id is not None:
            return
        self.target, self.point = mark_id, None
        has = mark_id is not None
        self.click_btn.setEnabled(has)
        self.type_btn.setEnabled(has)
        self.click_btn.setText(f"Click [{mark_id}]" if has else "Click target")
        self.info.setText("<b>You have the browser.</b> " + (
            f"Target: [{mark_id}] {html.escape(label[:60])}" if has else
            "Click a box on the screenshot to pick a target, or anywhere else to pick a point."))

    def set_point(self, point: tuple[int, int], label: str = "") -> None:
        """Act at a point of the page (viewport pixels): Click (x, y), or Type (x, y); text."""
        if self.waiting:
            return
        self.target, self.point = None, (int(point[0]), int(point[1]))
        self.click_btn.setEnabled(True)
        self.type_btn.setEnabled(True)
        self.click_btn.setText(f"Click ({self.point[0]}, {self.point[1]})")
        on = f" on {html.escape(label[:60])}" if label else ""
        self.info.setText(f"<b>You have the browser.</b> Target: the point ({self.point[0]}, {self.point[1]}){on}")

    def forget_target(self) -> None:
        """The page changed or an action was used: the box number and the text no longer mean the same thing."""
        if self.waiting:  # the fresh look a take-over waits for
            self.waiting = False
            self.set_busy(False)
        self.set_target(None)
        self.text.clear()

    def set_busy(self, busy: bool) -> None:
        for b in (self.click_btn, self.type_btn, self.enter_btn, self.up_btn, self.down_btn, self.back_btn,
                  self.goto_btn):
            b.setEnabled(not busy and (b not in (self.click_btn, self.type_btn) or self.target is not None
                                       or self.point is not None))

    def _targeted(self, kind: str, text: str = "") -> None:
        if self.point is not None:
            action = Action(kind, text=text if kind == "type" else "", point=self.point)
            self.forget_target()
            self.act.emit(action)
        elif self.target is not None:
            action = Action(kind, self.target, text)
            self.forget_target()
            self.act.emit(action)

    def _goto(self) -> None:
        if self.url.text().strip():
            self.act.emit(Action("goto", text=self.url.text().strip()))

    def hand_back(self) -> None:
        note = self.note.text()
        self.note.clear()
        self.handBack.emit(note)


class _SteadyLabel(QLabel):
    """A wrapped label as tall as its longest text needs (three lines), whatever it says now: the rows below it
    keep their place when a target is picked."""

    LINES = 3

    def __init__(self, text: str):
        super().__init__(text)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return False

    def _height(self) -> int:
        return self.LINES * self.fontMetrics().lineSpacing() + 2 * self.margin() + 2

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(super().sizeHint().width(), self._height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(super().minimumSizeHint().width(), self._height())
