"""The thought/action log: a row per step, fed by core events while a run goes (the step details are
:mod:`cockpit.ui.live.step_details`).

Fed by core events while a run goes, and by the store when a step is opened.
All text from pages and models is shown as plain text or escaped HTML: a
page title like ``<img onerror=...>`` stays inert.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHeaderView,
    QStyledItemDelegate,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
)

from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import STOPPED_BY, decided
from cockpit.core.agent.gate import TOOK_OVER
from cockpit.core.page.effects import in_words
from cockpit.core.store.records import outcome_warning
from cockpit.core.words import plural
from cockpit.ui.elide import fit_words
from cockpit.ui.live.log_sight import bring_into_sight_soon
from cockpit.ui.live.step_details import WARN_COLOR, resolved_desc
from cockpit.ui.plaintext import shown_text, tip

COLS = ("step", "action", "decision", "outcome", "time", "tokens")
ACTION_SHARE = 0.42  # of the room the step, decision, time and tokens leave: the action's at most; the outcome the rest
ACTION_MIN = 110  # pixels
NARROW = 480  # pixels: a log narrower than this shows no time and tokens columns
_STATUS_COLOR = {"ok": "#1b5e20", "answered": "#0d47a1", "error": "#b00020", "format_error": "#b00020",
                 "refused": "#e65100", "changed": "#e65100", "stopped": "#616161", "failed": "#b00020"}


class _WrappedRows(QStyledItemDelegate):
    """Every cell wraps within its column, and a row is as tall as its tallest cell: what the step did (the
    action, who decided, the outcome) is read whole on a 1024-pixel screen, not cut with "…" (issue #38). An
    expanded row's text (thought, outcome, effect) wraps across the whole row. Lines break at spaces; only a word
    too wide for its column breaks within (elide.fit_words; walkthrough 8: "finished(con / tent='deleted…')")."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 (Qt's name)
        super().initStyleOption(option, index)
        if option.text:
            option.text = fit_words(option.text, self.parent().fontMetrics(), self._text_width(index))

    def _text_width(self, index) -> int:
        """The pixels a cell's text wraps within: its column's (an expanded row's text: the row's)."""
        tree = self.parent()
        if index.parent().isValid():
            return max(80, tree.viewport().width() - 2 * tree.indentation() - 8)
        return max(20, tree.header().sectionSize(index.column()) - _PAD
                   - (tree.indentation() if index.column() == 0 else 0))

    def sizeHint(self, option, index):
        size = super().sizeHint(option, index)
        tree = self.parent()
        if index.parent().isValid() and index.column() != 0:
            return size
        fm, width = tree.fontMetrics(), self._text_width(index)
        text = fit_words(index.data(Qt.DisplayRole) or "", fm, width)
        height = fm.boundingRect(QRect(0, 0, width, 100_000), Qt.TextWordWrap, text).height()
        if not index.parent().isValid() and index.column() in _MAX_LINES:  # a long answer: its first lines, "…"
            height = min(height, _MAX_LINES[index.column()] * fm.lineSpacing())
        return QSize(size.width(), max(size.height(), height + 4))

    def cut(self, index) -> bool:
        """A row's action or outcome is longer than the lines its cell shows (_MAX_LINES)."""
        if index.parent().isValid() or index.column() not in _MAX_LINES:
            return False
        fm, width = self.parent().fontMetrics(), self._text_width(index)
        text = fit_words(index.data(Qt.DisplayRole) or "", fm, width)
        return fm.boundingRect(QRect(0, 0, width, 100_000), Qt.TextWordWrap, text).height() > \
            _MAX_LINES[index.column()] * fm.lineSpacing()

    def helpEvent(self, event, view, option, index) -> bool:  # noqa: N802 (Qt's name)
        """A cut cell's tooltip has its whole text, before what the tooltip says otherwise (an action's thought)."""
        if event.type() != QEvent.ToolTip or not self.cut(index):
            return super().helpEvent(event, view, option, index)
        whole, other = index.data(Qt.DisplayRole) or "", index.data(Qt.ToolTipRole) or ""
        other = shown_text(other, Qt.AutoText)
        QToolTip.showText(event.globalPos(), tip(whole if whole in other else f"{whole}\n\n{other}".strip()), view)
        return True


_PAD = 8  # pixels of a cell that are not its text's
_MAX_LINES = {1: 3, 3: 4}  # the action and the outcome: at most this many lines a row (whole in the details)


class StepLogPanel(QTreeWidget):
    stepSelected = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setColumnCount(len(COLS))
        self.setHeaderLabels([c.capitalize() for c in COLS])
        self.setRootIsDecorated(True)
        self.setAlternatingRowColors(True)
        # Time and tokens as wide as their text; the decision as wide as "waiting for you" (an annotator's long
        # name wraps below it); the action a share of the rest (fit_columns), the outcome what is left. Cells wrap
        # (_WrappedRows), so rows are not all one line high.
        self.setWordWrap(True)
        self.setItemDelegate(_WrappedRows(self))
        h = self.header()
        h.setStretchLastSection(False)
        for c in range(len(COLS)):
            h.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        h.setSectionResizeMode(3, QHeaderView.Stretch)
        for c in (0, 1, 2):  # to its contents would take the expanded rows' width (0), or one line's (1, 2)
            h.setSectionResizeMode(c, QHeaderView.Interactive)
        self.setColumnWidth(0, self.indentation() + self.fontMetrics().horizontalAdvance("00 (you)") + 12)
        self.setColumnWidth(2, self.fontMetrics().horizontalAdvance("waiting for you") + 16)
        self._action_fitted, self._fitting = True, False  # the action follows the width until the human drags it
        h.sectionResized.connect(self._on_section_resized)
        self.items: dict[int, QTreeWidgetItem] = {}
        self.currentItemChanged.connect(self._on_current)
        # The newest row stays in view as rows come and grow (a take-over's, the run's end), unless the person
        # scrolled up to read: scrolling back to the bottom follows again (#38).
        self.setVerticalScrollMode(QTreeWidget.ScrollPerPixel)
        self.at_end = True
        bar = self.verticalScrollBar()
        bar.actionTriggered.connect(lambda _a: setattr(self, "at_end", bar.sliderPosition() >= bar.maximum() - 4))
        bar.rangeChanged.connect(lambda *_: self.at_end and self.scrollToBottom())

    def _on_section_resized(self, column: int, _old: int, _new: int) -> None:
        if column == 1 and not self._fitting:
            self._action_fitted = False  # the human sized it
        self.scheduleDelayedItemsLayout()  # the wrapped rows' heights follow their columns

    def fit_columns(self) -> None:
        """The action: its share of what the step, decision, time and tokens leave (no wider than its text);
        the outcome stretches over the rest."""
        if not self._action_fitted:
            return
        h = self.header()
        room = self.viewport().width() - sum(h.sectionSize(c) for c in (0, 2, 4, 5) if not self.isColumnHidden(c))
        self._fitting = True
        h.resizeSection(1, max(ACTION_MIN, min(self.sizeHintForColumn(1) + _PAD, int(room * ACTION_SHARE))))
        self._fitting = False

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        narrow = self.viewport().width() < NARROW  # a 1024-pixel screen: the action and outcome need the room
        for c in (4, 5):  # time and tokens: in the step's details, and the run's tokens in the status bar
            self.setColumnHidden(c, narrow)
        self.fit_columns()
        if event.size().width() != event.oldSize().width():
            self.scheduleDelayedItemsLayout()  # the wrapped rows' heights follow the width

    def clear_run(self) -> None:
        self.clear()
        self.items.clear()
        self.at_end = True

    def item(self, step: int) -> QTreeWidgetItem:
        if step not in self.items:
            following = self.following()
            it = QTreeWidgetItem([str(step), "", "", "", "", ""])
            it.setData(0, Qt.UserRole, step)
            self.addTopLevelItem(it)
            self.items[step] = it
            if following:
                # The newest row becomes current, silently (the window shows it once its texts are in); a row
                # the human picked stays picked. Focus arriving in the list must not jump to step 1 either.
                where = self.verticalScrollBar().value()
                self.blockSignals(True)
                self.setCurrentItem(it)  # which scrolls to it: not when the person scrolled up to read
                self.blockSignals(False)
                if not self.at_end:
                    self.verticalScrollBar().setValue(where)
            if self.at_end:
                self.scrollToBottom()
                bring_into_sight_soon(self, it)  # on the screen too: the take-over panel pushes the log down
        return self.items[step]

    def current_step(self) -> int | None:
        it = self.currentItem()
        return None if it is None or it.data(0, Qt.UserRole) is None else int(it.data(0, Qt.UserRole))

    def following(self) -> bool:
        """No row picked, or the newest one: new rows take the highlight as they come."""
        step = self.current_step()
        return step is None or not self.items or step == max(self.items)

    def row_facts(self, step: int) -> list[tuple[str, str]]:
        """What the row says so far (thought, action, decision, outcome): the details of a step not yet stored."""
        it = self.items.get(step)
        if it is None:
            return []
        thought = next((it.child(i).data(2, Qt.UserRole) for i in range(it.childCount())
                        if it.child(i).data(1, Qt.UserRole) == "thought"), "")
        return ([("Thought", thought)] if thought else []) + [(COLS[c].capitalize(), it.text(c)) for c in (1, 2, 3)
                                                              if it.text(c)]

    def add_event(self, e: ev.Event) -> None:
        if isinstance(e, ev.StepStarted):
            it = self.item(e.step)
            if e.actor == "human":
                it.setText(0, f"{e.step} (you)")
            it.setText(3, "observing…")
        elif isinstance(e, ev.ModelStreaming):  # the reply as it is written: the thought, then the action
            self._streaming(self.item(e.step), e)
        elif isinstance(e, ev.ModelReplied):
            it = self.item(e.step)
            _set_action(it, e.action_text or "(no action)")
            if e.thought:  # the thought behind the action (the action's own text: in the details)
                it.setToolTip(1, tip(e.thought, "see the step's details"))
            it.setText(5, str(e.prompt_tokens + e.completion_tokens))
            it.setText(3, "")
            self._thought(it, e.thought or "(none)")
        elif isinstance(e, ev.ActionProposed):  # in Cockpit's grammar; a pixel action: and what it hit
            self._proposed(self.item(e.step), e)
        elif isinstance(e, ev.ObservationReady) and e.stored:
            self.item(e.step).setText(3, "waiting for the model…")
        elif isinstance(e, ev.ApprovalRequested):
            self._decision(self.item(e.step), "waiting for you")
        elif isinstance(e, ev.ApprovalDecided):
            self._decided(self.item(e.step), e)
        elif isinstance(e, ev.ActionExecuted):
            self._executed(self.item(e.step), e)
        elif isinstance(e, ev.StepFinished):
            it = self.item(e.step)
            it.setText(4, f"{e.seconds:.1f} s")
            if not it.text(3) or _in_progress(it.text(3)):
                it.setText(3, e.status.replace("_", " "))  # "format error", not format_error
                self.fit_columns()
            warned = e.status == "ok" and it.data(3, Qt.ItemDataRole.UserRole)
            it.setForeground(3, QColor(WARN_COLOR if warned else _STATUS_COLOR.get(e.status, "#000000")))
        elif isinstance(e, ev.BreakpointHit):
            it = self.item(e.step)
            self._child(it, "⏸ breakpoint", e.reason)
            it.setForeground(0, QColor("#6a1b9a"))
        elif isinstance(e, ev.EffectMeasured) and e.step in self.items:
            it = self.items[e.step]
            flags = [f for f in e.flags if not f.startswith("breakpoint")]
            text = in_words(e.effect)  # "page changed a little (1% of pixels), same address, same marks"
            self._child(it, "effect", text + (f" [{', '.join(flags)}]" if flags else ""))
            if e.effect.get("noop") or any(f.startswith(("loop", "repeated")) for f in flags):
                it.setForeground(1, QColor("#e65100"))
                it.setToolTip(1, "no-op or repeated action: the agent may be stuck")
        elif isinstance(e, (ev.PredictionMade, ev.PredictionChecked, ev.PlanMade)) and e.step in self.items:
            self._lookahead(self.items[e.step], e)  # hook: world-model preview and planning
        elif isinstance(e, (ev.RunFailed, ev.RunFinished)):
            self._cut_short("failed" if isinstance(e, ev.RunFailed) else e.status)
        self.scheduleDelayedItemsLayout()  # a row's texts changed: its wrapped height is measured again

    def _decided(self, it: QTreeWidgetItem, e: ev.ApprovalDecided) -> None:
        verdict = ("edited" if e.approved and e.action and e.action != _action(it)
                   else "approved" if e.approved else "rejected" if e.by.startswith("human:") else "refused")
        # "refused by policy", "rejected by ada", "stopped before anyone decided"
        self._decision(it, decided({"approved": e.approved, "by": e.by, "edited_action": verdict == "edited"}))
        if verdict == "edited":  # the row shows the action that runs; the expanded row what the agent proposed
            self._child(it, "agent proposed", _action(it))
            _set_action(it, e.action)
        if e.message:
            self._child(it, "message", e.message)
        said = {TOOK_OVER: f"rejected: {TOOK_OVER}", STOPPED_BY: f"not run: {decided({'by': STOPPED_BY})}"}
        if outcome := said.get(e.message) or said.get(e.by):  # what happened to it, in the outcome column too
            it.setText(3, outcome)  # (walkthrough 8: Stop at the gate left the outcome empty)
            it.setToolTip(3, outcome)

    def _cut_short(self, status: str) -> None:
        """A step the run ended in the middle of (a failure, Stop) says so, not what it was doing."""
        last = self.items.get(max(self.items)) if self.items else None
        cut = last is not None and (_in_progress(last.text(3)) or not last.text(3) and status in ("stopped", "failed"))
        if cut and last.text(3).startswith("writing…") and (partial := _action(last)):  # a reply cut off: no
            self._child(last, "written so far", partial)  # action was recorded, as the details say (walkthrough 10)
            _set_action(last, "(none: the reply was cut off)")
        if cut:  # (an empty outcome: its reply was in, nothing had run)
            last.setText(3, status.replace("_", " "))
            last.setForeground(3, QColor(_STATUS_COLOR.get(status, "#000000")))

    def _streaming(self, it: QTreeWidgetItem, e: ev.ModelStreaming) -> None:
        _set_action(it, e.action or "")
        rate = f" {e.tokens_per_second:.0f} tok/s" if e.tokens_per_second else ""  # the strip says it in words
        it.setText(3, f"writing…{rate}" if e.first_token is not None else f"waiting for the model… {e.seconds:.0f} s")
        it.setText(5, str(e.tokens) if e.tokens else "")
        if e.thought:
            self._thought(it, e.thought)

    @staticmethod
    def _decision(it: QTreeWidgetItem, text: str) -> None:
        it.setText(2, text)
        it.setToolTip(2, text)

    def _proposed(self, it: QTreeWidgetItem, e: ev.ActionProposed) -> None:
        """``Click (600, 475) → <button> "Place order"``, ``ANSWER; done`` for a pixel dialect's
        ``finished(content='done')``; what the model wrote goes into the expanded row."""
        wrote = _action(it)
        if e.pointer:
            _set_action(it, e.action)
            _name_hit(it, e.action, resolved_desc({"pointer": e.pointer}))
        elif wrote != e.action:  # the thought stays the cell's tooltip
            it.setData(1, Qt.UserRole, None)
            it.setText(1, e.action)
        if wrote and wrote != e.action:
            self._child(it, "model wrote", wrote)

    def _executed(self, it: QTreeWidgetItem, e: ev.ActionExecuted) -> None:
        if e.actor == "human":
            _set_action(it, e.action)
        full = e.message if e.ok else f"error: {e.message}"
        warning = outcome_warning("ok", full) if e.ok else ""  # ran, but may have done nothing (#38)
        it.setText(3, ("⚠ " if warning else "") + full.split("; ")[0])  # without '; the page is now …'
        it.setToolTip(3, tip((f"Warning: {warning}\n" if warning else "") + full, "see the step's details"))
        it.setData(3, Qt.ItemDataRole.UserRole, warning)
        if warning:
            it.setForeground(3, QColor(WARN_COLOR))
            self._child(it, "warning", warning)
        self._child(it, "outcome", full)  # whole, wrapped, in the expanded row
        self.fit_columns()

    def set_pointer(self, step: int, row: dict | None) -> None:
        """The stored step `row`'s pixel action names the element it hit: ``Click (600, 475) → <button> "Place order"``.

        Live events carry only the action text; the element found at the point (``pointer.resolved.desc``) is
        known once the step is stored, so the window calls this then (and when a step is opened)."""
        it = self.items.get(step)
        if it is not None:
            _name_hit(it, _action(it) or (row or {}).get("action") or (row or {}).get("action_text") or "",
                      resolved_desc(row))

    def _lookahead(self, it: QTreeWidgetItem, e: ev.Event) -> None:
        if isinstance(e, ev.PredictionMade):
            self._child(it, "predicted", e.text or f"(no prediction: {e.error})")
        elif isinstance(e, ev.PredictionChecked):
            self._child(it, "actually", e.summary)
        elif isinstance(e, ev.PlanMade):
            kept = [c for c in e.plan.get("candidates", []) if c.get("kept")]
            best = next((c for c in kept if c["index"] == e.plan.get("chosen")), None)
            score = f", score {best['mean']:.2f}" if best and best.get("mean") is not None else ""
            self._child(it, "plan", f"{plural(len(e.plan.get('candidates', [])), 'candidate')}, {len(kept)} kept; "
                        + (f"chose {best['action']}{score}" if best else "none usable"))

    def _child(self, parent: QTreeWidgetItem, label: str, text: str) -> QTreeWidgetItem:
        c = QTreeWidgetItem([f"{label}: {text.replace(chr(10), ' ')[:400]}"])
        parent.addChild(c)
        c.setFirstColumnSpanned(True)  # the text runs across the row
        c.setToolTip(0, tip(text, "see the step's details"))
        c.setData(0, Qt.UserRole, parent.data(0, Qt.UserRole))
        return c

    def _thought(self, parent: QTreeWidgetItem, text: str) -> None:
        """The row's thought: one expanded row, written over as a streamed reply grows (its end shows)."""
        c = next((parent.child(i) for i in range(parent.childCount())
                  if parent.child(i).data(1, Qt.UserRole) == "thought"), None)
        if c is None:
            c = self._child(parent, "thought", text)
            c.setData(1, Qt.UserRole, "thought")
        flat = text.replace(chr(10), " ")
        c.setText(0, "thought: " + (flat if len(flat) <= 400 else "…" + flat[-400:]))
        c.setToolTip(0, tip(text, "see the step's details"))
        c.setData(2, Qt.UserRole, text)  # whole: the details of a step still going (at the gate) show it

    def select_step(self, step: int) -> None:
        if step in self.items:
            self.setCurrentItem(self.items[step])

    def _on_current(self, cur, _prev) -> None:
        if cur is not None and cur.data(0, Qt.UserRole) is not None:
            self.stepSelected.emit(int(cur.data(0, Qt.UserRole)))


def _in_progress(outcome: str) -> bool:
    """The outcome cell still says what the step is doing ("observing…", "writing… 24 tokens/s")."""
    return outcome.endswith("…") or outcome.startswith(("writing…", "waiting for the model…"))


def _action(it: QTreeWidgetItem) -> str:
    """The row's action text, without the resolved element set_pointer may have added."""
    return it.data(1, Qt.UserRole) or it.text(1)


def _name_hit(it: QTreeWidgetItem, action: str, desc: str | None) -> None:
    """The action cell names what a pixel action hit (``Click (600, 475) → <button> "Place order"``); the bare
    action stays the row's action (what an approval's edit is compared with)."""
    if action and desc:
        it.setData(1, Qt.UserRole, action)
        it.setText(1, f"{action} → {desc}")


def _set_action(it: QTreeWidgetItem, text: str) -> None:
    it.setData(1, Qt.UserRole, None)
    it.setText(1, text)
    it.setToolTip(1, tip(text))  # whole when the column cuts it (a model's reply: its thought instead)
