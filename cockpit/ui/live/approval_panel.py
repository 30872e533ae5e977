"""The approval panel: what the agent wants to do, why it was flagged, and the human's answer.

Not modal: it sits in the window while everything else stays usable. It
never decides anything itself; it emits a Decision for the bridge to deliver.
"""
from __future__ import annotations

import dataclasses
import html
import re

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.agent.approval import ApprovalRequest, Decision, off_screenshot
from cockpit.core.agent.gate import HELD
from cockpit.core.errors import ActionParseError
from cockpit.ui.elide import breakable, wrap_within
from cockpit.ui.enter_keys import ctrl_enter
from cockpit.ui.flow_layout import flow_row
from cockpit.ui.plaintext import tip
from cockpit.ui.room import WrappedLabel

APPROVE_KEY = "Ctrl+Return"
REJECT_KEY = "Ctrl+Backspace"
CANCEL_EDIT_KEY = "Esc"  # in the edit field: the agent's action again, the field closed
EDIT_TEXT = "Edit the action"  # in the panel, no dialog: no "…"
PICK_KEY = "Alt+{}"  # planning mode: run candidate N instead (1-9)
EDIT_HINT = ("Approve runs the action as written here, not the agent's. Click a box on the screenshot to aim "
             "the action at that box instead.")


class ApprovalPanel(QFrame):
    decided = Signal(object)  # Decision
    backRequested = Signal()  # "Show the action asked about": the pane shows another step meanwhile

    def __init__(self, parent=None, *, user: str = "human"):
        super().__init__(parent)
        self.user = user
        self.request: ApprovalRequest | None = None
        self.setObjectName("approvalPanel")
        self.setFrameShape(QFrame.StyledPanel)
        self.setStyleSheet("#approvalPanel { background: #fff4e5; border: 2px solid #f0a020; border-radius: 4px; }")
        self._build()
        self.setVisible(False)

    def _build(self) -> None:
        lay = QVBoxLayout(self)
        # Texts from the agent and the page wrap to the panel's width and never widen it (a long address in a
        # Goto breaks at its slashes: elide.breakable); the title, the hint and the error keep the height of all
        # their lines (WrappedLabel: the risk line and the error's last line were clipped at 1024x700, #38),
        # the evidence scrolls instead.
        self.title = wrap_within(WrappedLabel())
        self.title.setTextFormat(Qt.RichText)
        self.evidence = wrap_within(QLabel())
        self.evidence.setTextFormat(Qt.RichText)
        self.prediction = wrap_within(QLabel())  # the world model's forecast; plain text, never markup
        self.prediction.setTextFormat(Qt.PlainText)
        self.prediction.setVisible(False)
        self.message = QLineEdit(placeholderText="Message to the agent if you reject (optional)")
        self.edit = QLineEdit(placeholderText="Edit the action, e.g. Click [7] — or click a box on the screenshot")
        self.edit.setVisible(False)
        self.edit.returnPressed.connect(self._on_edit_run)
        self.edit.textChanged.connect(lambda _t: self._check_edit())  # as it is typed, or a box clicked
        self.edit.installEventFilter(self)  # Esc in the field cancels the edit
        self.edit_hint = wrap_within(WrappedLabel(EDIT_HINT))  # what Approve does with an edited action, and the boxes
        self.edit_hint.setVisible(False)
        self.back_btn = QPushButton("Show the action asked about")
        self.back_btn.setToolTip("The screenshot shows another step; go back to the page and the box the "
                                 "agent wants to act on")
        self.back_btn.clicked.connect(self.backRequested)
        self.back_btn.setVisible(False)
        self.error = wrap_within(WrappedLabel())  # a parse error quotes the action
        self.error.setTextFormat(Qt.PlainText)
        self.error.setStyleSheet("color: #b00020")
        self.error.setVisible(False)
        self.approve_btn = QPushButton(f"Approve ({QKeySequence(APPROVE_KEY).toString(QKeySequence.NativeText)})")
        self.reject_btn = QPushButton(f"Reject ({QKeySequence(REJECT_KEY).toString(QKeySequence.NativeText)})")
        self.edit_btn = QPushButton(EDIT_TEXT)
        self.edit_btn.setToolTip("Change the action in the field that opens here, or click a box on the screenshot")
        self.revert_btn = QPushButton("Revert")
        self.revert_btn.setToolTip("Put the agent's action back in the field")
        self.revert_btn.clicked.connect(self.revert_edit)
        self.cancel_btn = QPushButton(f"Cancel edit ({CANCEL_EDIT_KEY})")
        self.cancel_btn.setToolTip("Close the field: Approve runs the agent's action as proposed")
        self.cancel_btn.clicked.connect(self.cancel_edit)
        self.approve_btn.setStyleSheet("font-weight: bold")
        self.approve_btn.clicked.connect(self.approve)
        self.reject_btn.clicked.connect(self.reject)
        self.edit_btn.clicked.connect(self._on_edit_clicked)
        # A narrow window (1024 px, the step log beside): the buttons wrap onto a second line, never cut.
        buttons = flow_row((self.approve_btn, self.reject_btn, self.edit_btn))
        editing = QWidget()  # the field, and beside it the ways back to the agent's action
        el = QHBoxLayout(editing)
        el.setContentsMargins(0, 0, 0, 0)
        el.addWidget(self.edit, 1)
        el.addWidget(self.revert_btn)
        el.addWidget(self.cancel_btn)
        self.alternatives = flow_row(())  # planning mode: the other kept candidates, one button each
        self.alternatives.setVisible(False)
        self.pick_buttons: dict[int, QPushButton] = {}
        # The forecast, the evidence and the thought scroll when the window is short (700 px); the title, the
        # fields and the buttons stay in view.
        why = QWidget()
        wl = QVBoxLayout(why)
        wl.setContentsMargins(0, 0, 0, 0)
        wl.addWidget(self.prediction)
        wl.addWidget(self.evidence)
        wl.addStretch(1)
        self.why = _AsTallAsItHolds()
        self.why.setWidget(why)
        self.why.setWidgetResizable(True)
        self.why.setFrameShape(QFrame.NoFrame)
        self.why.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.why.setMinimumHeight(48)
        self.why.setStyleSheet("QScrollArea, QScrollArea > QWidget > QWidget { background: transparent; }")
        for w in (self.title, self.back_btn, self.why, editing, self.edit_hint, self.error, self.message):
            lay.addWidget(w)
        lay.addWidget(buttons)
        lay.addWidget(self.alternatives)
        self._set_editing(False)

    def install_shortcuts(self, window) -> None:
        """Window-wide keys, so the human need not focus the panel first."""
        ctrl_enter(window, lambda: self.isVisible() and self.approve())  # APPROVE_KEY, or the keypad's Enter
        sc = QShortcut(QKeySequence(REJECT_KEY), window)
        sc.setContext(Qt.WindowShortcut)
        sc.activated.connect(lambda: self.isVisible() and self.reject())
        for n in range(1, 10):
            sc = QShortcut(QKeySequence(PICK_KEY.format(n)), window)
            sc.setContext(Qt.WindowShortcut)
            sc.activated.connect(lambda n=n: self.isVisible() and n in self.pickable() and self.pick(n))

    # ---------- showing ----------
    def show_request(self, req: ApprovalRequest, step_label: str = "") -> None:
        """`step_label`: the window's numbering of the step ("row 11 · agent step 9/15"), else "Step N"."""
        self.request = req
        target = ""
        if req.mark is not None:
            label = html.escape(breakable(repr(req.mark.label[:80])))
            target = f" on [{req.mark.id}] &lt;{html.escape(req.mark.tag)}&gt; {label}"
        where = html.escape(step_label[:1].upper() + step_label[1:]) if step_label else f"Step {req.step}"
        held = next((e for e in req.risk.evidence if e.endswith(HELD)), "")  # paused while the model wrote it
        self.title.setText(f"<b>{where}: the agent wants to run</b> "
                           f"<code>{html.escape(breakable(req.display))}</code>{target}"
                           f"<br>risk: <b>{html.escape(req.risk.level)}</b> ("
                           + (f"held because {html.escape(held[:-len(HELD)].strip())}" if held else
                              f"asked because the policy is '{html.escape(req.policy)}'") + ")")
        items = "".join(f"<li>{html.escape(breakable(e))}</li>" for e in req.risk.evidence) or "<li>(no evidence)</li>"
        cut = req.thought[:400] + ("…" if len(req.thought) > 400 else "")
        thought = f"<br><i>Agent's thought:</i> {html.escape(breakable(cut))}" if req.thought else ""
        self.evidence.setToolTip(tip(req.thought) if len(req.thought) > 400 else "")
        self.evidence.setText(f"Why it was flagged:<ul style='margin:0'>{items}</ul>{thought}")
        self.prediction.setText(f"If you approve: {breakable(req.prediction[:600])}" if req.prediction else "")
        self.why.updateGeometry()  # its height is what it now holds
        self.prediction.setVisible(bool(req.prediction))
        self.message.clear()
        self.back_btn.setVisible(False)
        self.cancel_edit()
        self._show_alternatives(req)
        self.setVisible(True)
        self.approve_btn.setFocus()

    def _show_alternatives(self, req: ApprovalRequest) -> None:
        """Planning mode: a "Run candidate N instead" button for each other kept candidate."""
        lay = self.alternatives.layout()
        while lay.count():
            w = lay.takeAt(0).widget()
            if w is not None:
                w.deleteLater()
        self.pick_buttons = {}
        for c in req.candidates:
            n = c.get("index")
            if not c.get("kept") or n == req.chosen or not c.get("action"):
                continue
            key = f" ({QKeySequence(PICK_KEY.format(n)).toString(QKeySequence.NativeText)})" if n <= 9 else ""
            action = c["action"] if len(c["action"]) <= 40 else c["action"][:39] + "…"
            b = QPushButton(f"Run candidate {n} instead: {action}{key}".replace("&", "&&"))  # no mnemonics
            sim = (c.get("simulation") or [{}])[0].get("change", "")
            mean = f"score {c['mean']:.2f}" if c.get("mean") is not None else "not scored"
            b.setToolTip(tip(f"{c['action']}\nrisk: {c.get('risk') or '?'}, {mean}"
                             + (f"\nsimulated: {sim}" if sim else "")))
            b.clicked.connect(lambda _=False, n=n: self.pick(n))
            lay.addWidget(b)
            self.pick_buttons[n] = b
        self.alternatives.setVisible(bool(self.pick_buttons))

    def pickable(self) -> list[int]:
        """The candidates the human may run instead of the planner's choice (none outside planning)."""
        return list(self.pick_buttons) if self.request is not None else []

    def close_request(self) -> None:
        self.request = None
        self.setVisible(False)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        """No: a box layout would hold the panel at the height of all its evidence and squeeze it with the step
        log when the window is short (the planning gate at 1024x700 cut its title and buttons, #38). Its minimum
        (the title, fields, hint or error and button rows whole, the evidence's least) is what it must get; the
        evidence scrolls in what is left (cockpit.ui.room.RoomKeeper gives it more when there is some)."""
        return False

    def set_compact(self, on: bool) -> None:
        """During a take-over at the gate: the title, the action and the buttons only (the take-over's controls
        need the room below; the evidence comes back on handing back)."""
        self.why.setVisible(not on)
        self.message.setVisible(not on)

    def set_away(self, away: bool) -> None:
        """The screenshot shows another step than the one asked about: offer the way back."""
        self.back_btn.setVisible(away and self.request is not None)

    @property
    def editing(self) -> bool:
        return self.isVisible() and self.edit.isVisible()

    def retarget(self, mark_id: int) -> None:
        """A box clicked on the screenshot while editing: put its number in the action."""
        if not self.isVisible():
            return
        if not self.edit.isVisible():
            self._on_edit_clicked()
        text = self.edit.text().strip()
        try:
            parse_action(text)
        except ActionParseError:  # what is typed is no action (an error may say so): aim the agent's at the box
            text = self.request.display
        if re.search(r"\[\s*\d+\s*\]", text):
            text = re.sub(r"\[\s*\d+\s*\]", f"[{mark_id}]", text, count=1)
        else:
            text = f"Click [{mark_id}]"
        self.edit.setText(text)  # checked again: an old error was about the text before this box
        self.edit.setFocus()  # Enter approves it, Esc goes back to the agent's action

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        if obj is self.edit and event.type() == QEvent.KeyPress and event.key() == Qt.Key_Escape:
            self.cancel_edit()
            return True
        return super().eventFilter(obj, event)

    # ---------- answering ----------
    def approve(self) -> None:
        if self.request is None:
            return
        if self.edit.isVisible() and self.edit.text().strip() != self.request.display:
            self._on_edit_run()
            return
        self._decide(Decision(True, f"human:{self.user}"))

    def reject(self) -> None:
        if self.request is not None:
            self._decide(Decision(False, f"human:{self.user}", self.message.text().strip()))

    def pick(self, index: int) -> None:
        """Planning mode: run candidate `index` instead of the planner's choice."""
        if self.request is not None and index in self.pickable():
            self._decide(Decision(True, f"human:{self.user}", candidate=index))

    def _on_edit_clicked(self) -> None:
        self._set_editing(True)
        self.edit.setFocus()
        self.edit.selectAll()

    def cancel_edit(self) -> None:
        """Close the edit field: the agent's action, as proposed, is what Approve runs."""
        self.revert_edit()
        self._set_editing(False)
        if self.isVisible():
            self.approve_btn.setFocus()

    def revert_edit(self) -> None:
        """The agent's action back in the edit field."""
        self.edit.setText(self.request.display if self.request is not None else "")
        self._check_edit()

    def _show_error(self, text: str) -> None:
        """What is wrong with the edited action, in place of the hint (the panel keeps its height at 700 px)."""
        self.error.setText(text)
        self.error.setVisible(True)
        self.edit_hint.setVisible(False)

    def _clear_error(self) -> None:
        self.error.setVisible(False)
        self.edit_hint.setVisible(self.edit.isVisible())
        self.approve_btn.setEnabled(True)
        self.approve_btn.setToolTip("")

    def _check_edit(self) -> None:
        """While the action is typed: a box not on the screenshot (or an answer) is said under the field at once,
        and Approve waits until it is fixed (#38: it was said only on Approve). Text that is not an action yet
        (half typed) is left alone; Approve says what is wrong with it."""
        self._clear_error()
        if not self.edit.isVisibleTo(self) or self.request is None:
            return
        try:
            why = _edit_problem(parse_action(self.edit.text()), self.request.boxes)
        except ActionParseError:
            return
        if why:
            self._show_error(why)
            self.approve_btn.setEnabled(False)
            self.approve_btn.setToolTip(f"Fix the action first: {why}")

    def _set_editing(self, on: bool) -> None:
        for w in (self.edit, self.edit_hint, self.revert_btn, self.cancel_btn):
            w.setVisible(on)
        self.edit_btn.setVisible(not on)
        self._check_edit()

    def _on_edit_run(self) -> None:
        if self.request is not None and self.edit.text().strip() == self.request.display:
            self._decide(Decision(True, f"human:{self.user}"))  # unchanged: the action as proposed
            return
        try:
            action: Action = parse_action(self.edit.text())
        except ActionParseError as e:
            self._show_error(str(e))
            return
        if why := _edit_problem(action, self.request.boxes if self.request is not None else None):
            self._show_error(why)  # it would fail and spend a step
            return
        self._decide(Decision(True, f"human:{self.user}", action=action))

    def _decide(self, decision: Decision) -> None:
        if self.request is not None:  # the answer names its question: it can reach no other run or step
            decision = dataclasses.replace(decision, key=self.request.key)
        self.close_request()
        self.decided.emit(decision)


def _edit_problem(action: Action, boxes: int | None) -> str:
    """Why an edited action cannot be approved ("" when it can): it answers, or names a box not on the screenshot."""
    if action.kind == "answer":
        return "use Reject with a message to end the run; an edited action cannot answer"
    return off_screenshot(action, boxes)


class _AsTallAsItHolds(QScrollArea):
    """The gate's reasons: as tall as they are at its width and never taller (walkthrough 5: at 1280x800 the panel
    was mostly blank and the step log showed three rows), shrinking to scroll on a short screen."""

    def __init__(self):
        super().__init__()
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Maximum)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        body = self.widget()
        if body is None:
            return super().sizeHint()
        width = max(self.viewport().width(), 100)
        height = body.heightForWidth(width) if body.hasHeightForWidth() else body.sizeHint().height()
        return QSize(super().sizeHint().width(), max(height, self.minimumHeight()) + 2 * self.frameWidth())
