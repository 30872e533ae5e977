"""The model settings' calls to the server: "Test connection" (one tiny chat request) and the model listing,
in the background, and the status line that shows how they went.

Neither blocks the GUI thread (:func:`cockpit.ui.background.run_in_background`); the result comes back on it. While
one runs its button shows a busy text and is disabled, without moving the focus into another field.
``cancel()`` (the dialog closing) cancels them, and a result that arrives after that is ignored. A typed key
never shows in a message: it is replaced by ``***``.
"""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QWidget

from cockpit.core.llm.client import ModelCancelled, ModelClient, ModelConfig, ModelError
from cockpit.ui.background import CancelFlag, Task, run_in_background
from cockpit.ui.settings.parts import BusyButton, MessageLabel

log = logging.getLogger(__name__)

TEST_MESSAGES = [{"role": "user", "content": "Reply with OK"}]
TEST_MAX_TOKENS = 5
TEST_TIMEOUT = 20.0   # seconds; "Test connection" and "List models" never wait longer than this


class ConnectionCheck(QWidget):
    """The Test connection button and the status line; runs the test and the model listing."""

    test_requested = Signal()         # the button was pressed: the dialog checks the form, then calls test()
    listing = Signal(bool)            # a model listing started (True) or ended (False)
    models_listed = Signal(list)      # the server's model names

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._pending: dict[str, Task] = {}   # kind ("test", "list") -> its task
        self.test_button = BusyButton("Test &connection", "Testing…",
                                      "Send one tiny chat request with the values above")
        self.test_button.clicked.connect(self.test_requested)
        self.status_label = MessageLabel()
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.test_button, 0, Qt.AlignmentFlag.AlignTop)
        lay.addWidget(self.status_label, 1)

    def say(self, text: str) -> None:
        self.status_label.setText(text)

    def is_busy(self) -> bool:
        """True while a test or model listing is running."""
        return bool(self._pending)

    def busy(self, kind: str) -> bool:
        return kind in self._pending

    def test(self, cfg: ModelConfig, key: str | None, timeout: float) -> None:
        """Send one tiny chat request with `cfg` (and a typed `key`) in a worker thread."""
        cfg = replace(cfg, max_retries=0, max_tokens=TEST_MAX_TOKENS, timeout=min(timeout, TEST_TIMEOUT))

        def work(cancel: CancelFlag) -> str:
            with ModelClient(cfg, key) as client:
                result = client.chat(TEST_MESSAGES, cancel=cancel)
            return f"OK: {result.model} replied in {result.seconds:.1f} s"

        self.test_button.set_busy(True)
        self.say(f"Testing {cfg.model} at {cfg.display_url}…")
        self._start("test", work, key)

    def list_models(self, cfg: ModelConfig, key: str | None, timeout: float) -> None:
        """Ask the server at `cfg`'s address for its models in a worker thread; ``models_listed`` says them."""
        cfg = replace(cfg, max_retries=0, timeout=min(timeout, TEST_TIMEOUT))

        def work(cancel: CancelFlag) -> list[str]:
            with ModelClient(cfg, key) as client:
                return client.list_models()

        self.listing.emit(True)
        self.say(f"Asking {cfg.display_url} for its models…")
        self._start("list", work, key)

    def _start(self, kind: str, work: Callable[[CancelFlag], Any], key: str | None) -> None:
        def run(cancel: CancelFlag) -> tuple[bool, Any]:
            try:
                value, ok = work(cancel), True
            except ModelCancelled:
                value, ok = "cancelled", False
            except ModelError as e:
                value, ok = str(e), False
            except Exception as e:  # anything else still ends the busy state, with a message
                log.warning("%s failed unexpectedly: %s", kind, type(e).__name__)
                value, ok = f"{type(e).__name__}: {e}", False
            if not ok and key:
                value = value.replace(key, "***")
            return ok, value

        self._pending[kind] = run_in_background(run, self._on_done, name=f"settings-{kind}", pass_cancel=True)

    def _on_done(self, done) -> None:
        # a task of a closed dialog was cancelled and is never delivered (cockpit.ui.background)
        kind = next((k for k, task in self._pending.items() if task.future is done), None)
        if kind is None:
            return
        del self._pending[kind]
        ok, value = done.result()
        if kind == "test":
            self.test_button.set_busy(False)
            self.say(value if ok else f"Error: {value}")
            return
        self.listing.emit(False)
        if ok:
            self.models_listed.emit(list(value))
        else:
            self.say(f"Could not list models: {value}")

    def cancel(self) -> None:
        """Cancel what runs; a result that comes later is ignored."""
        if self._pending:
            self.say("Cancelled.")
        for task in self._pending.values():
            task.cancel()
        listing = "list" in self._pending
        self._pending.clear()
        self.test_button.set_busy(False)
        if listing:
            self.listing.emit(False)
