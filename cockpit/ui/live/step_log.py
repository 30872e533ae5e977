"""The thought/action log and the step details (exact messages sent, raw reply).

Fed by core events while a run goes, and by the store when a step is opened.
All text from pages and models is shown as plain text or escaped HTML: a
page title like ``<img onerror=...>`` stays inert.
"""
from __future__ import annotations

import base64
import html
import io
from collections import OrderedDict

from PIL import Image
from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHeaderView,
    QPlainTextEdit,
    QStyledItemDelegate,
    QTabWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
)

from cockpit.core.agent import events as ev
from cockpit.core.llm import prompt
from cockpit.core.page.effects import in_words
from cockpit.core.store.records import Step
from cockpit.ui.plaintext import tip

COLS = ("step", "action", "decision", "outcome", "time", "tokens")
ACTION_WANT, OUTCOME_MIN = 170, 90  # pixels: the action's room before the outcome's, the outcome's least
NARROW = 480  # pixels: a log narrower than this shows no time and tokens columns
_STATUS_COLOR = {"ok": "#1b5e20", "answered": "#0d47a1", "error": "#b00020", "format_error": "#b00020",
                 "refused": "#e65100", "changed": "#e65100", "stopped": "#616161", "failed": "#b00020"}


class _WrappedChildRows(QStyledItemDelegate):
    """An expanded row's text (thought, outcome, effect) wraps across the whole row: its height follows."""

    def sizeHint(self, option, index):
        size = super().sizeHint(option, index)
        tree = self.parent()
        if not index.parent().isValid() or index.column() != 0:
            return size
        width = max(80, tree.viewport().width() - 2 * tree.indentation() - 8)
        text = index.data(Qt.DisplayRole) or ""
        height = tree.fontMetrics().boundingRect(QRect(0, 0, width, 100_000), Qt.TextWordWrap, text).height()
        return QSize(size.width(), max(size.height(), height + 4))


class StepLogPanel(QTreeWidget):
    stepSelected = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setColumnCount(len(COLS))
        self.setHeaderLabels([c.capitalize() for c in COLS])
        self.setRootIsDecorated(True)
        self.setAlternatingRowColors(True)
        # Decision, time and tokens as wide as their text; the action takes what is left; the outcome (its first
        # clause) what the action leaves (fit_outcome), cut with "…" beyond (the whole of it in its tooltip and,
        # wrapped, in the expanded row). The expanded rows wrap, so rows are not all one line high.
        self.setWordWrap(True)
        self.setItemDelegate(_WrappedChildRows(self))
        h = self.header()
        h.setStretchLastSection(False)
        for c in range(len(COLS)):
            h.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        h.setSectionResizeMode(1, QHeaderView.Stretch)
        h.setSectionResizeMode(3, QHeaderView.Interactive)
        h.setSectionResizeMode(0, QHeaderView.Interactive)  # to its contents would take the expanded rows' width
        self.setColumnWidth(0, self.indentation() + self.fontMetrics().horizontalAdvance("00 (you)") + 12)
        # The decision is empty on most rows: as wide as "waiting for you", not as its longest text (an
        # annotator's long name); cut with "…" beyond, whole in the cell's tooltip. The action gets the room.
        h.setSectionResizeMode(2, QHeaderView.Interactive)
        self.setColumnWidth(2, self.fontMetrics().horizontalAdvance("waiting for you") + 16)
        self._outcome_fitted, self._fitting = True, False  # the outcome follows its text until the human drags it
        h.sectionResized.connect(lambda c, _o, _n: c == 3 and not self._fitting and self._stop_fitting())
        self.items: dict[int, QTreeWidgetItem] = {}
        self.currentItemChanged.connect(self._on_current)

    def _stop_fitting(self) -> None:
        self._outcome_fitted = False

    def fit_outcome(self) -> None:
        """The outcome column: what the other columns and the action (up to ACTION_WANT) leave, at most as wide
        as its longest text, at least OUTCOME_MIN."""
        if not self._outcome_fitted:
            return
        h = self.header()
        others = sum(h.sectionSize(c) for c in (0, 2, 4, 5))
        room = self.viewport().width() - others - min(self.sizeHintForColumn(1), ACTION_WANT)
        self._fitting = True
        h.resizeSection(3, max(OUTCOME_MIN, min(self.sizeHintForColumn(3), room)))
        self._fitting = False

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        narrow = self.viewport().width() < NARROW  # a 1024-pixel screen: the action and outcome need the room
        for c in (4, 5):  # time and tokens: in the step's details, and the run's tokens in the status bar
            self.setColumnHidden(c, narrow)
        self.fit_outcome()
        if event.size().width() != event.oldSize().width():
            self.scheduleDelayedItemsLayout()  # the wrapped rows' heights follow the width

    def clear_run(self) -> None:
        self.clear()
        self.items.clear()

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
                self.blockSignals(True)
                self.setCurrentItem(it)
                self.blockSignals(False)
                self.scrollToItem(it)
        return self.items[step]

    def current_step(self) -> int | None:
        it = self.currentItem()
        return None if it is None or it.data(0, Qt.UserRole) is None else int(it.data(0, Qt.UserRole))

    def following(self) -> bool:
        """No row picked, or the newest one: new rows take the highlight as they come."""
        step = self.current_step()
        return step is None or not self.items or step == max(self.items)

    def row_facts(self, step: int) -> list[tuple[str, str]]:
        """What the row says so far (action, decision, outcome): the details of a step not yet stored."""
        it = self.items.get(step)
        if it is None:
            return []
        return [(COLS[c].capitalize(), it.text(c)) for c in (1, 2, 3) if it.text(c)]

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
            it.setToolTip(1, tip(e.thought, "see the step's details"))
            it.setText(5, str(e.prompt_tokens + e.completion_tokens))
            it.setText(3, "")
            self._thought(it, e.thought or "(none)")
        elif isinstance(e, ev.ActionProposed) and e.pointer:  # a pixel action: canonical, and what it hit
            self._pixel_action(self.item(e.step), e)
        elif isinstance(e, ev.ObservationReady) and e.stored:
            self.item(e.step).setText(3, "waiting for the model…")
        elif isinstance(e, ev.ApprovalRequested):
            self._decision(self.item(e.step), "waiting for you")
        elif isinstance(e, ev.ApprovalDecided):
            it = self.item(e.step)
            verdict = ("edited" if e.approved and e.action and e.action != _action(it)
                       else "approved" if e.approved else "rejected")
            self._decision(it, f"{verdict} by {e.by.split(':', 1)[-1]}")
            if verdict == "edited":
                self._child(it, "human chose", e.action)
            if e.message:
                self._child(it, "message", e.message)
        elif isinstance(e, ev.ActionExecuted):
            self._executed(self.item(e.step), e)
        elif isinstance(e, ev.StepFinished):
            it = self.item(e.step)
            it.setText(4, f"{e.seconds:.1f} s")
            if not it.text(3) or _in_progress(it.text(3)):
                it.setText(3, e.status.replace("_", " "))  # "format error", not format_error
                self.fit_outcome()
            color = QColor(_STATUS_COLOR.get(e.status, "#000000"))
            it.setForeground(3, color)
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

    def _cut_short(self, status: str) -> None:
        """A step the run ended in the middle of (a failure, Stop) says so, not what it was doing."""
        last = self.items.get(max(self.items)) if self.items else None
        if last is not None and _in_progress(last.text(3)):
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

    def _pixel_action(self, it: QTreeWidgetItem, e: ev.ActionProposed) -> None:
        """``Click (600, 475) → <button> "Place order"``; what the model wrote goes into the expanded row."""
        wrote = _action(it)
        _set_action(it, e.action)
        _name_hit(it, e.action, resolved_desc({"pointer": e.pointer}))
        if wrote and wrote != e.action:
            self._child(it, "model wrote", wrote)

    def _executed(self, it: QTreeWidgetItem, e: ev.ActionExecuted) -> None:
        if e.actor == "human":
            _set_action(it, e.action)
        full = e.message if e.ok else f"error: {e.message}"
        it.setText(3, full.split("; ")[0])  # 'clicked [7] <a> "Go to cart"', without '; the page is now …'
        it.setToolTip(3, tip(full, "see the step's details"))
        self._child(it, "outcome", full)  # whole, wrapped, in the expanded row
        self.fit_outcome()

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
            self._child(it, "plan", f"{len(e.plan.get('candidates', []))} candidates, {len(kept)} kept; "
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


def who_decided(by) -> str:
    """A decision's ``by`` as people read it: "ada", "policy", not "human:ada"."""
    return str(by or "?").split(":", 1)[-1]


def resolved_desc(row: dict | None) -> str:
    """The element a stored pixel action hit, as described (``<button> "Place order"``), or ''."""
    pointer = (row or {}).get("pointer")
    resolved = pointer.get("resolved") if isinstance(pointer, dict) else None
    desc = resolved.get("desc") if isinstance(resolved, dict) else None
    return " ".join(str(desc).split())[:120] if desc else ""


def _lookahead_rows(step: dict) -> list[tuple[str, str]]:
    """Summary rows for the prediction (and what really happened) and the plan, escaped."""
    from cockpit.core.lookahead.worldmodel import describe_actual
    e, rows, s = html.escape, [], Step.from_row(step)
    pred = s.prediction
    if pred:
        rows.append(("Predicted", e(pred.text or f"(no prediction: {pred.error})")
                     + e(f" — {pred.model}, {pred.source}" if pred.model else "")))
        if pred.actual:
            rows.append(("Actually", e(describe_actual(pred.actual))))
    plan = s.plan
    if plan and plan.candidates:
        cells = []
        for c in plan.candidates:
            mark = "➜ " if c.index == plan.picked else ""
            score = f"{c.mean:.2f}" if c.mean is not None else (c.dropped or "-")
            cells.append(f"{mark}{c.index}. {c.action} [{c.risk or '?'}] {score}")
        rows.append(("Plan", "<br>".join(e(x) for x in cells)))
    if s.plan_calls:
        rows.append(("Look-ahead", e(f"{s.plan_calls} calls, {s.plan_prompt_tokens} in, "
                                     f"{s.plan_completion_tokens} out")))
    return rows


class StepDetails(QTabWidget):
    """One step in full: summary, the exact messages sent (with images), the raw reply."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.summary = QTextBrowser()
        self.messages = QTextBrowser()
        self.raw = QPlainTextEdit(readOnly=True)
        for w, name in ((self.summary, "Step"), (self.messages, "Messages sent"), (self.raw, "Raw reply")):
            self.addTab(w, name)
        self._thumbs: OrderedDict[str, str] = OrderedDict()  # a few recent thumbnails, not every one ever seen
        self._pending_messages = None  # rendered when the tab is opened: thumbnails cost time
        self.currentChanged.connect(self._render_messages)

    def show_pending(self, step: int, facts: list[tuple[str, str]]) -> None:
        """A step still going: what is known of it so far, until it is stored."""
        e = html.escape
        self.summary.setHtml(f"<h3>Step {step}</h3><p><i>In progress: its page, thought and messages show "
                             "here once it is done.</i></p><table cellpadding=3>"
                             + "".join(f"<tr><td valign=top><b>{e(k)}</b></td><td>{e(v)}</td></tr>" for k, v in facts)
                             + "</table>")
        self._pending_messages = None
        self.messages.clear()
        self.raw.clear()

    def show_step(self, store, run: dict, step: dict | None) -> None:
        if step is None:
            self.summary.setHtml("<i>No step selected.</i>")
            self.messages.clear()
            self.raw.clear()
            return
        e = html.escape
        d = step.get("decision") or {}
        rows = [("Page", f"{e(step.get('title') or '')} — {e(step.get('url') or '')}"),
                ("Actor", e(step.get("actor") or "agent")),
                ("Thought", e(step.get("thought") or "")),
                ("Action", f"<code>{e(step.get('action') or step.get('action_text') or '(none)')}</code>"),
                ("Risk", e(": ".join(x for x in (step.get("risk") or "-", "; ".join(step.get("evidence") or [])) if x))),
                ("Decision", e(f"{'approved' if d.get('approved') else 'rejected'} by {who_decided(d.get('by'))}"
                               + (f", ran {d['edited_action']}" if d.get("edited_action") else "")
                               + (f" — {d['message']}" if d.get("message") else "")) if d else "-"),
                ("Outcome", e(": ".join(x for x in (step.get("status") or "-", step.get("error") or step.get("outcome"))
                                        if x))),
                ("URL after", e(step.get("url_after") or "")),
                *([("Page seen", e(note))] if (note := Step.from_row(step).page_note) else []),
                *_lookahead_rows(step),  # hook: world-model preview and planning
                ("Tokens", e(f"{step.get('prompt_tokens') or 0} in, {step.get('completion_tokens') or 0} out"
                             + (f", ${step['cost']:.4f}" if step.get("cost") else ""))),
                ("Timings", e(", ".join(f"{k} {v:.0f} ms" for k, v in (step.get("timings") or {}).items()
                                        if isinstance(v, (int, float)))))]
        self.summary.setHtml(f"<h3>Step {step['step']}</h3><table cellpadding=3>"
                             + "".join(f"<tr><td valign=top><b>{k}</b></td><td>{v}</td></tr>" for k, v in rows)
                             + f"</table><p><b>Answer so far:</b> {e(run.get('answer') or '—')}</p>")
        self._pending_messages = (store, run, step)
        self.messages.clear()
        self._render_messages()
        self.raw.setPlainText(step.get("reply") or "")

    def _render_messages(self, *_):
        if self._pending_messages is None or self.currentWidget() is not self.messages:
            return
        store, run, step = self._pending_messages
        self._pending_messages = None
        self.messages.setHtml(self._messages_html(store, run, step.get("request") or []))

    def _messages_html(self, store, run: dict, messages: list) -> str:
        parts = []
        for m in messages:
            content = m.get("content")
            body = []
            if isinstance(content, str):
                body.append(f"<pre style='white-space:pre-wrap'>{html.escape(content)}</pre>")
            else:
                for p in content or []:
                    if p.get("type") == "text":
                        body.append(f"<pre style='white-space:pre-wrap'>{html.escape(p['text'])}</pre>")
                    elif p.get("type") == "image_url":
                        body.append(self._image_html(store, run, p["image_url"]["url"]))
            parts.append(f"<p><b>{html.escape(m.get('role', '?'))}</b></p>" + "".join(body) + "<hr>")
        return "".join(parts) or "<i>No request recorded for this step (a human step, or imported).</i>"

    def _image_html(self, store, run: dict, url: str) -> str:
        if not url.startswith(prompt.IMAGE_REF):
            return f"<p><i>[image: {html.escape(url[:40])}]</i></p>"
        k = int(url[len(prompt.IMAGE_REF):])
        key = f"{run['id']}/{k}"
        if key not in self._thumbs:
            rel = store.step_file(run["id"], k, "screenshot")
            try:
                img = Image.open(io.BytesIO(store.read_file(rel, "screenshot")))
                img.thumbnail((480, 360))
                buf = io.BytesIO()
                img.convert("RGB").save(buf, "JPEG", quality=80)
                self._thumbs[key] = base64.b64encode(buf.getvalue()).decode()
            except Exception:
                return f"<p><i>[screenshot of step {k} is missing]</i></p>"
        self._thumbs.move_to_end(key)
        while len(self._thumbs) > 32:
            self._thumbs.popitem(last=False)
        return f"<p>screenshot of step {k}:<br><img src='data:image/jpeg;base64,{self._thumbs[key]}'></p>"
