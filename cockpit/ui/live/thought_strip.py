"""Under the live screenshot: the model's reply at the current step as it is written.

Three short rows that never grow the window: what the model is doing (waiting, writing with its tokens
per second, retrying, replied), the newest lines of its thought, and its action once it writes one. Fed
by the agent's events (``ModelStreaming`` while a streamed reply comes, ``ModelReplied`` when it is in).
"""
from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout

from cockpit.core.agent import events as ev
from cockpit.core.words import plural
from cockpit.ui.elide import ElidedLabel, one_line
from cockpit.ui.plaintext import tip

THOUGHT_LINES = 2  # the thought's newest lines shown


class TailLabel(QLabel):
    """Wrapped text in a fixed number of lines: when it is longer, its end shows (the newest words), "…" first."""

    def __init__(self, lines: int, parent=None):
        super().__init__(parent)
        self._full = ""
        self._lines = lines
        self.setTextFormat(Qt.PlainText)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        self.setMinimumWidth(1)
        self.setFixedHeight(self.fontMetrics().lineSpacing() * lines + 2)

    def fullText(self) -> str:  # noqa: N802 - Qt's naming, as ElidedLabel's
        return self._full

    def setText(self, text: str) -> None:  # noqa: N802
        self._full = one_line(text or "")
        self.setToolTip(tip(self._full) if self._full else "")
        self._fit()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit()

    def _fits(self, text: str, width: int) -> bool:
        box = self.fontMetrics().boundingRect(QRect(0, 0, width, 100_000), Qt.TextWordWrap, text)
        return box.height() <= self.fontMetrics().lineSpacing() * self._lines

    def _fit(self) -> None:
        """The longest tail of the text that fits the lines (a binary search over where it starts)."""
        text, width = self._full, max(20, self.contentsRect().width())
        if self._fits(text, width):
            super().setText(text)
            return
        lo, hi = 1, len(text)  # the start: lo may not fit, hi fits (the empty tail)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._fits("…" + text[mid:], width):
                hi = mid
            else:
                lo = mid + 1
        super().setText("…" + text[hi:].lstrip())


class ThoughtStrip(QFrame):
    """The current step's reply as it comes (see the module)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.StyledPanel)
        self.head = ElidedLabel()
        self.head.setStyleSheet("font-weight: bold")
        self.thought = TailLabel(THOUGHT_LINES)
        self.action = ElidedLabel()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 3, 6, 3)
        lay.setSpacing(1)
        for w in (self.head, self.thought, self.action):
            lay.addWidget(w)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        self.setVisible(False)

    def clear(self) -> None:
        self.setVisible(False)
        self._show("", "", "")

    def _show(self, head: str, thought: str, action: str) -> None:
        self.head.setText(head)
        self.thought.setText(f"Thought: {thought}" if thought else "")
        self.action.setText(f"Action: {action}" if action else "")

    def on_event(self, e: ev.Event) -> None:
        if isinstance(e, ev.ObservationReady) and e.stored:
            self._show(f"Step {e.step}: waiting for the model…", "", "")
            self.setVisible(True)
        elif isinstance(e, ev.ModelCalled) and e.note:
            self._retry = (e.step, e.note.partition("(")[2].rstrip(")"))  # why, said on the next attempt too
            self._show(f"Step {e.step}: the call failed; {e.note}", "", "")
        elif isinstance(e, ev.ModelStreaming):
            why = getattr(self, "_retry", (0, ""))
            again = (f" (attempt {e.attempt}" + (f", after {why[1]}" if why[0] == e.step and why[1] else "") + ")"
                     if e.attempt > 1 else "")
            if e.first_token is None:
                head = f"Step {e.step}: waiting for the model{again}… {e.seconds:.0f} s"
            else:
                rate = f", {e.tokens_per_second:.0f} tokens/s" if e.tokens_per_second else ""
                head = f"Step {e.step}: the model is writing{again} — {plural(e.tokens, 'token')}{rate}, {e.seconds:.0f} s"
            held = "(shown once the reply is in: this page has a secret field)" if e.thought_held else ""
            self._show(head, e.thought or held if e.first_token is not None else e.thought, e.action)
            self.setVisible(True)
        elif isinstance(e, ev.ModelReplied):
            self._show(f"Step {e.step}: the model's reply — {plural(e.completion_tokens, 'token')} in {e.seconds:.1f} s",
                       e.thought, e.action_text or "(none: the reply has no action it could read)")
        elif isinstance(e, (ev.RunFinished, ev.RunFailed)):
            self.clear()
