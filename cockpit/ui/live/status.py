"""The window's status bar, built from small items that each show one thing (as qutebrowser's is).

- the message: the latest news ("Run finished (answered): …", "Enter a task first."), on one line, cut with
  "…" and whole in its tooltip. It expires, and a new run clears it: it never describes an older state. During a
  take-over it says what is happening now ("You have the browser — …", your last action) for as long as the
  take-over lasts, and handing back says where the agent goes on (#38: the news of the gate stayed meanwhile).
  News of the Live tab's run is said with `live=True`: it goes when another tab shows, and the take-over's lasting
  news comes back with the Live tab.
- the model the next run talks to ("model: gpt-4o", "model: demo policy"), leftmost of the labels (walkthrough 4:
  nothing in the window said which model was set); its tooltip names the server.
- the state (idle, running, waiting for you…), the run's row and budget, its tokens and cost, planning's
  cost (the look-ahead's label), the time it has run, and the browser's state: each a label of its own to the
  right, which the message never overlaps (it takes only the room they leave).
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from cockpit.core.agent import events as ev
from cockpit.ui.elide import ElidedLabel
from cockpit.ui.live.bridge import RUNNING, TAKEN_OVER, WAITING_MODEL

WRITING = "the model is writing"  # the state while a reply streams in (the bridge's: waiting for the model)
MESSAGE_MS = 15000  # how long news stays, unless said otherwise
MODEL_CHARS = 28  # the model's name in the status bar, longer ones cut (whole in the tooltip)
WHILE_IT_LASTS = 0  # `say`'s ms: the news stays until other news replaces it (a take-over's)
YOU_HAVE_IT = "You have the browser — "
TAKEN_OVER_NEWS = (YOU_HAVE_IT + "click a box on the screenshot (or a point) and an action; Hand back (F9) "
                   "lets the agent go on")


class RunStatus(QObject):
    def __init__(self, bar: QStatusBar, extra: tuple[QWidget, ...] = ()):
        super().__init__(bar)
        self.message = ElidedLabel()
        self.message.setObjectName("statusMessage")
        bar.addWidget(self.message, 1)
        self.model = QLabel("")
        self.model.setObjectName("statusModel")
        self.state = QLabel("idle")
        self.steps = QLabel("")
        self.tokens = QLabel("")
        self.time = QLabel("")
        self.browser = QLabel("browser: not started")
        self.where = QLabel("<b>Live run:</b>")  # shown on the other tabs: what follows is Live's, not theirs
        self.where.setToolTip("The labels to the right are about the Live tab's run, not what this tab shows")
        self.where.setVisible(False)
        for w in (self.model, self.where, self.state, self.steps, self.tokens, *extra, self.time, self.browser):
            bar.addPermanentWidget(w)
        self._expiry = QTimer(self, singleShot=True)
        self._expiry.timeout.connect(self.clear)
        self._lasting = False  # the news stays until replaced (WHILE_IT_LASTS)
        self._from_live = False  # the news is the Live tab's run's (say's `live`)
        self._kept = ""  # Live's lasting news (a take-over's), put away while another tab shows
        self._state = ""

    def on_tab(self, live: bool) -> None:
        """The window shows Live (True) or another tab: the run's labels say whose they are; Live's news goes, and
        its lasting news (a take-over's) comes back with the Live tab."""
        self.where.setVisible(not live)
        if not live and self._from_live:
            kept = self.message.fullText() if self._lasting else ""
            self.clear()
            self._kept = kept
        elif live and self._kept:
            self.say(self._kept, WHILE_IT_LASTS, live=True)

    def say(self, text: str, ms: int = MESSAGE_MS, live: bool = False) -> None:
        """Show `text` (its first line) for `ms` milliseconds (WHILE_IT_LASTS: until other news). `live`: news of
        the Live tab's run (or its task), gone when another tab is shown (walkthrough 4: Review read "Run finished
        (answered): …" as news of the run open there)."""
        self._from_live = live
        if live:  # newer news of the run: what was put away is no longer what happens now
            self._kept = ""
        self.message.setText(text.splitlines()[0] if text else "")
        self._lasting = ms == WHILE_IT_LASTS
        if self._lasting:
            self._expiry.stop()
        else:
            self._expiry.start(ms)

    def show_model(self, cfg, demo: bool) -> None:
        """The model the next run talks to: the demo policy (`demo`), else `cfg`'s (a ModelConfig) model, cut to
        MODEL_CHARS with "…", whole with its server in the tooltip."""
        if demo:
            name, tip = "demo policy", ("Runs use the scripted demo policy (no model is called); untick Demo "
                                        "policy to use the model set in Model… (Ctrl+,)")
        else:
            name = cfg.model or "(none)"
            tip = f"{cfg.model or 'No model'} at {cfg.display_url}; Model… (Ctrl+,) changes it"
        self.model.setText(f"model: {name if len(name) <= MODEL_CHARS else name[:MODEL_CHARS - 1] + '…'}")
        self.model.setToolTip(tip)

    def current(self) -> str:
        return self.message.fullText() if (self._expiry.isActive() or self._lasting) else ""

    def clear(self) -> None:
        self._expiry.stop()
        self._lasting = self._from_live = False
        self.message.setText("")

    def on_state(self, state: str, next_step: int) -> None:
        """The run's state changed: a take-over says the person has the browser; handing back (F9, or Run) says
        at which step the agent goes on; a take-over that ended otherwise (Stop) leaves no news of it."""
        if state == TAKEN_OVER and self._state != TAKEN_OVER:
            self.say(TAKEN_OVER_NEWS, WHILE_IT_LASTS, live=True)
        elif self._state == TAKEN_OVER and state == RUNNING:
            self.say(f"Handed back: the agent goes on at step {next_step}", live=True)
        elif self._state == TAKEN_OVER and state != TAKEN_OVER:
            self._kept = ""  # put away on another tab: it does not come back
            if self._lasting:
                self.clear()
        self._state = state

    def on_event(self, e: ev.Event) -> None:
        """A reply streams in: the state says the model is writing once its first words are in, and waiting again
        when a new attempt waits (#38: "waiting for the model" stayed while the strip counted the tokens)."""
        if isinstance(e, ev.ModelStreaming) and self.state.text() in (WAITING_MODEL, WRITING):
            self.state.setText(WAITING_MODEL if e.first_token is None else WRITING)

    def set_elapsed(self, seconds: int | None) -> None:
        self.time.setText("" if seconds is None else f"{seconds // 60}:{seconds % 60:02d}")
