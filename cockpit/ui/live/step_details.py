"""The step details: one step in full (its summary, the exact messages sent with their images, the raw reply),
and how a stored decision and a pixel action's target are said.

Shown beside the step log (:mod:`cockpit.ui.live.step_log`) on the Live tab and in Review. All text from pages and
models is shown as plain text or escaped HTML: a page title like ``<img onerror=...>`` stays inert.
"""
from __future__ import annotations

import base64
import html
import io
from collections import OrderedDict

from PIL import Image
from PySide6.QtWidgets import QPlainTextEdit, QTabWidget, QTextBrowser

from cockpit.core.agent.approval import decided
from cockpit.core.llm import prompt
from cockpit.core.store.records import Step, outcome_text, outcome_warning
from cockpit.core.words import plural
from cockpit.ui.live.step_page import RecordedPage

WARN_COLOR = "#b26a00"  # amber: the action ran, but may have done nothing or met an error (outcome_warning)
NO_TITLE = "(no title)"  # a page without a title (not "— —"): here and in Live's caption


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
        rows.append(("Look-ahead", e(f"{plural(s.plan_calls, 'call')}, {s.plan_prompt_tokens} in, "
                                     f"{s.plan_completion_tokens} out")))
    return rows


class StepDetails(QTabWidget):
    """One step in full: summary, the exact messages sent (with images), the raw reply."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.summary = QTextBrowser()
        self.messages = QTextBrowser()
        self.raw = QPlainTextEdit(readOnly=True)
        self.page = RecordedPage()  # the web recording's view of the step (issue #41)
        for w, name in ((self.summary, "Step"), (self.messages, "Messages sent"), (self.raw, "Raw reply"),
                        (self.page, "Recorded page")):
            self.addTab(w, name)
            w.setMinimumHeight(2 * w.fontMetrics().height())  # at the gate on a 700-px screen: a strip, not 70 px
        self._thumbs: OrderedDict[str, str] = OrderedDict()  # a few recent thumbnails, not every one ever seen
        self._pending_messages = None  # rendered when the tab is opened: thumbnails cost time
        self.currentChanged.connect(self._render_messages)
        self.currentChanged.connect(lambda *_: self.currentWidget() is self.page and self.page.render())

    def keep_lines(self, lines: int) -> None:
        """Show at least `lines` lines of the step (at the gate: its thought and action, #38), the tab bar above."""
        for w in (self.summary, self.messages, self.raw, self.page):
            w.setMinimumHeight(lines * w.fontMetrics().lineSpacing() + 2 * w.frameWidth() + 8)

    def show_pending(self, step: int, facts: list[tuple[str, str]], reply: str = "") -> None:
        """A step still going: what is known of it so far (at the gate: its raw `reply`), until it is stored."""
        e = html.escape
        # what is known first (at the gate: the thought and the action, in a few lines on a 700-pixel screen)
        self.summary.setHtml(f"<b>Step {step}</b><table cellpadding=2>"
                             + "".join(f"<tr><td valign=top><b>{e(k)}</b></td><td>{e(v)}</td></tr>" for k, v in facts)
                             + "</table><p><i>In progress: its page and the messages sent show here once it is "
                             "done.</i></p>")
        self._pending_messages = None
        self.messages.clear()
        self.raw.setPlainText(reply)
        self.page.set_step(None, "", None)

    def show_step(self, store, run: dict, step: dict | None) -> None:
        if step is None:
            self.summary.setHtml("<i>No step selected.</i>")
            self.messages.clear()
            self.raw.clear()
            self.page.set_step(None, "", None)
            return
        e = html.escape
        d = step.get("decision") or {}
        rows = [("Page", f"{e(step.get('title') or NO_TITLE)} — {e(step.get('url') or '')}"),
                ("Actor", e(step.get("actor") or "agent")),
                ("Thought", e(step.get("thought") or "")),
                ("Action", f"<code>{e(step.get('action') or step.get('action_text') or '(none)')}</code>"),
                ("Risk", e(": ".join(x for x in (step.get("risk") or "-", "; ".join(step.get("evidence") or [])) if x))),
                ("Decision", e(decided(d)
                               + (f" (the agent proposed {d['proposed_action']})" if d.get("proposed_action") else "")
                               + (f" — {d['message']}" if d.get("message") else "")) if d else "-"),
                ("Outcome", e(outcome_text(step.get("status"), step.get("error") or step.get("outcome")))
                 + (f"<br><span style='color:{WARN_COLOR}'>⚠ {e(warned)}</span>" if (warned := outcome_warning(
                     step.get("status"), step.get("outcome"))) else "")),
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
        self.page.set_step(store, run["id"], step)
        if self.currentWidget() is self.page:
            self.page.render()

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
