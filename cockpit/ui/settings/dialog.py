"""The model settings dialog: which server, which model, how to call it, and the API key.

What it is for: editing the ``model`` part of :class:`~cockpit.core.settings.Settings`
(base URL with presets for OpenAI, vLLM, Ollama and LM Studio; model name,
filled from the server by "List models"; temperature, max tokens, request
timeout, image detail and width) and storing an API key for the chosen server
in the system keyring; below them, the world-model preview and planning mode
(:mod:`cockpit.ui.settings.lookahead`). "Test connection" sends one tiny chat request with the
values as they are in the form, so a wrong URL, model or key shows up here and
not in the middle of a run. OK saves the settings through
:func:`~cockpit.core.settings.save_settings`; Cancel (or Esc) discards.

What it must not do:

* write the API key anywhere but the system keyring (never to settings.json,
  a log line or a label; the stored key is never shown, only where a key
  comes from, using :func:`~cockpit.core.llm.apikeys.get_api_key`'s note). Without
  a usable keyring the key field is disabled and the dialog says to set
  ``OPENAI_API_KEY`` instead.
* block the GUI thread on the network. "Test connection" and "List models"
  run in the background (:func:`cockpit.ui.tasks.run_in_background`); the
  result comes back on the GUI thread. While one runs, its button shows a busy text and
  is disabled; the dialog can still be closed, which cancels the test, and a
  result that arrives after that is ignored.
"""
from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QMenu, QPushButton, QSizePolicy, QSpinBox,
                               QToolButton, QVBoxLayout, QWidget)

from cockpit.core.llm import apikeys as secrets
from cockpit.core.llm.client import ModelCancelled, ModelClient, ModelConfig, ModelError
from cockpit.core.settings import (IMAGE_DETAILS, IMAGE_FORMATS, MODEL_HELP, Settings, SettingsError, save_settings,
                                   setting_ok)
from cockpit.ui.settings.dialect_field import DialectField
from cockpit.ui.settings.lookahead import LookaheadSettingsBox
from cockpit.ui.room import TallScrollArea, WrappedLabel, fit_to_screen
from cockpit.ui.tasks import CancelFlag, Task, run_in_background

__all__ = ["ModelSettingsDialog", "PRESETS", "TEST_MESSAGES", "TEST_TIMEOUT"]

log = logging.getLogger(__name__)

#: (menu text, base URL); "" means OpenAI.
PRESETS: tuple[tuple[str, str], ...] = (
    ("OpenAI", ""),
    ("vLLM", "http://localhost:8000/v1"),
    ("Ollama", "http://localhost:11434/v1"),
    ("LM Studio", "http://localhost:1234/v1"),
)
TEST_MESSAGES = [{"role": "user", "content": "Reply with OK"}]
TEST_MAX_TOKENS = 5
TEST_TIMEOUT = 20.0   # seconds; "Test connection" and "List models" never wait longer than this

_TEST_IDLE, _TEST_BUSY = "Test &connection", "Testing…"
_LIST_IDLE, _LIST_BUSY = "&List models", "Listing…"


class ModelSettingsDialog(QDialog):
    """Edit the model settings; ``result_settings()`` after ``accept()``.

    ``path``: where OK saves the settings (default: ``settings.json`` in Cockpit's home).
    """

    def __init__(self, settings: Settings, parent: QWidget | None = None, *,
                 path: str | Path | None = None):
        super().__init__(parent)
        self.setWindowTitle("Model settings")
        self._settings = settings.copy()
        self._result: Settings | None = None
        self._path = path
        self._pending: dict[str, Task] = {}   # kind ("test", "list") -> its task
        self._keyring_ok, self._keyring_why = secrets.keyring_usable()
        self._sized = False
        self._build()
        self._load(self._settings.model)
        self._refresh_key_state()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)

        self.base_url_edit = QLineEdit()
        self.base_url_edit.setPlaceholderText("empty = OpenAI (https://api.openai.com/v1)")
        self.base_url_edit.setClearButtonEnabled(True)
        self.presets_button = QToolButton()
        self.presets_button.setText("&Presets")
        self.presets_button.setToolTip("Fill in the usual address of a well-known server")
        self.presets_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.presets_button)
        self.preset_actions = {}
        for name, url in PRESETS:
            act = menu.addAction(f"{name}  ({url or 'https://api.openai.com/v1'})")
            act.triggered.connect(lambda _=False, u=url: self.apply_preset(u))
            self.preset_actions[name] = act
        self.presets_button.setMenu(menu)
        self.base_url_edit.editingFinished.connect(self._refresh_key_state)
        form.addRow(self._label("&Base URL:", self.base_url_edit, "base_url"),
                    self._row(self.base_url_edit, self.presets_button))

        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setMinimumContentsLength(24)
        self.list_button = QPushButton(_LIST_IDLE)
        self.list_button.setToolTip("Ask the server which models it offers")
        self.list_button.setAutoDefault(False)
        self.list_button.clicked.connect(self.list_models)
        form.addRow(self._label("&Model:", self.model_combo, "model"),
                    self._row(self.model_combo, self.list_button))

        self.temperature_spin = QDoubleSpinBox()
        self.temperature_spin.setRange(0.0, 2.0)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setDecimals(2)
        form.addRow(self._label("&Temperature:", self.temperature_spin, "temperature"), self.temperature_spin)

        self.max_tokens_spin = QSpinBox()
        self.max_tokens_spin.setRange(1, 1_000_000)
        self.max_tokens_spin.setSingleStep(100)
        form.addRow(self._label("Max t&okens:", self.max_tokens_spin, "max_tokens"), self.max_tokens_spin)

        self.timeout_spin = QDoubleSpinBox()
        self.timeout_spin.setRange(1.0, 3600.0)
        self.timeout_spin.setDecimals(0)
        self.timeout_spin.setSuffix(" s")
        form.addRow(self._label("Request t&imeout:", self.timeout_spin, "timeout"), self.timeout_spin)

        self.detail_combo = QComboBox()
        self.detail_combo.addItems(list(IMAGE_DETAILS))
        form.addRow(self._label("Image &detail:", self.detail_combo, "image_detail"), self.detail_combo)

        self.width_spin = QSpinBox()
        self.width_spin.setRange(0, 20_000)
        self.width_spin.setSingleStep(64)
        self.width_spin.setSuffix(" px")
        self.width_spin.setSpecialValueText("off")
        form.addRow(self._label("Image max &width:", self.width_spin, "image_max_width"), self.width_spin)

        self.format_combo = QComboBox()
        self.format_combo.addItems(list(IMAGE_FORMATS))
        form.addRow(self._label("Image &format:", self.format_combo, "image_format"), self.format_combo)
        self.dialect_field = DialectField()  # marks or a pixel dialect, and its coordinate space
        form.addRow(self._label("Answers &as:", self.dialect_field.preset, None), self.dialect_field)  # own tips

        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setAutoFillBackground(False)
        self.key_edit.setClearButtonEnabled(True)
        self.key_edit.setInputMethodHints(Qt.InputMethodHint.ImhHiddenText | Qt.InputMethodHint.ImhNoPredictiveText
                                          | Qt.InputMethodHint.ImhSensitiveData)
        form.addRow(self._label("API &key:", self.key_edit, None), self.key_edit)

        self.keyring_label = WrappedLabel()  # all its lines, never under the next row
        self.keyring_label.setTextFormat(Qt.TextFormat.PlainText)
        # Its wrapped lines need their height even when the dialog is no wider than its sizeHint.
        self.keyring_label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.MinimumExpanding)
        form.addRow("", self.keyring_label)

        self.test_button = QPushButton(_TEST_IDLE)
        self.test_button.setToolTip("Send one tiny chat request with the values above")
        self.test_button.setAutoDefault(False)
        self.test_button.clicked.connect(self.test_connection)
        self.status_label = WrappedLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.status_label, 1)

        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setStyleSheet("color: #b00020;")
        self.error_label.hide()

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        # the window's browser: local Chromium, or a remote WebDriver / Selenium Grid (issue #21)
        self.webdriver_edit = QLineEdit(self._settings.webdriver_url)
        self.webdriver_edit.setPlaceholderText("empty = Chromium on this computer; e.g. http://hub:4444")
        self.chrome_args_edit = QLineEdit(" ".join(self._settings.chrome_args))
        self.chrome_args_edit.setPlaceholderText("e.g. --no-sandbox (a Grid node run as root)")
        form.addRow(self._label("WebDriver U&RL:", self.webdriver_edit, "webdriver_url"), self.webdriver_edit)
        form.addRow(self._label("Chrome ar&guments:", self.chrome_args_edit, "chrome_args"), self.chrome_args_edit)

        # world-model preview and planning (issue #7)
        self.lookahead = LookaheadSettingsBox(self._settings, self.base_url_edit, self)
        self.base_url_edit.editingFinished.connect(self.lookahead.refresh_key_state)

        # The fields scroll on a short screen; the error and OK / Cancel stay in view (issue #20: the dialog was
        # 736 px tall, so on a 700-pixel screen OK was off-screen).
        body = QWidget()
        fields = QVBoxLayout(body)
        fields.setContentsMargins(0, 0, 0, 0)
        fields.addLayout(form)
        fields.addLayout(test_row)
        fields.addWidget(self.lookahead)
        self.scroll = TallScrollArea(body)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        order = [self.base_url_edit, self.presets_button, self.model_combo, self.list_button,
                 self.temperature_spin, self.max_tokens_spin, self.timeout_spin, self.detail_combo,
                 self.width_spin, self.format_combo, self.key_edit, self.test_button, self.webdriver_edit,
                 self.chrome_args_edit, *self.lookahead.widgets(),
                 self.ok_button, self.buttons.button(QDialogButtonBox.StandardButton.Cancel)]
        for a, b in zip(order, order[1:]):
            QWidget.setTabOrder(a, b)
        self.base_url_edit.setFocus()

    @staticmethod
    def _label(text: str, buddy: QWidget, help_name: str | None) -> QLabel:
        label = QLabel(text)
        label.setBuddy(buddy)
        if help_name:
            buddy.setToolTip(MODEL_HELP.get(help_name, ""))
            label.setToolTip(MODEL_HELP.get(help_name, ""))
        return label

    @staticmethod
    def _row(*widgets: QWidget) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(widgets[0], 1)
        for w in widgets[1:]:
            row.addWidget(w)
        return box

    # ------------------------------------------------------------------ form <-> config
    def _load(self, cfg: ModelConfig) -> None:
        self.base_url_edit.setText(cfg.base_url or "")
        self.model_combo.setEditText(cfg.model)
        self.temperature_spin.setValue(cfg.temperature)
        self.max_tokens_spin.setValue(cfg.max_tokens)
        self.timeout_spin.setValue(cfg.timeout)
        i = self.detail_combo.findText(cfg.image_detail)
        self.detail_combo.setCurrentIndex(i if i >= 0 else 0)
        self.width_spin.setValue(cfg.image_max_width or 0)
        i = self.format_combo.findText(cfg.image_format)
        self.format_combo.setCurrentIndex(i if i >= 0 else 0)
        self.dialect_field.load(cfg.dialect, cfg.coords)

    def base_url(self) -> str | None:
        """The base URL in the form; None for OpenAI."""
        return self.base_url_edit.text().strip() or None

    def form_config(self) -> ModelConfig:
        """A ModelConfig from the form (fields the form does not show keep their values)."""
        return replace(
            self._settings.model,
            base_url=self.base_url(),
            model=self.model_combo.currentText().strip(),
            temperature=round(self.temperature_spin.value(), 2),
            max_tokens=self.max_tokens_spin.value(),
            timeout=float(self.timeout_spin.value()),
            image_detail=self.detail_combo.currentText(),
            image_max_width=self.width_spin.value() or None,
            image_format=self.format_combo.currentText(),
            dialect=self.dialect_field.values()[0], coords=self.dialect_field.values()[1])

    def _url_problem(self) -> str:
        url = self.base_url()
        if url and not (url.startswith("http://") or url.startswith("https://")):
            return "The base URL must start with http:// or https:// (or be empty for OpenAI)."
        return ""

    def _form_problem(self) -> str:
        problem = self._url_problem()
        if problem:
            return problem
        if not self.model_combo.currentText().strip():
            return "Enter a model name (or use List models)."
        return ""

    def apply_preset(self, url: str) -> None:
        self.base_url_edit.setText(url)
        self._refresh_key_state()

    # ------------------------------------------------------------------ key state
    def _refresh_key_state(self) -> None:
        """Keyring status line and key placeholder for the server in the form (never shows the key)."""
        lookup = secrets.get_api_key(self.base_url())
        has_key, note = lookup.key is not None, _sentence(lookup.note)
        del lookup  # only whether there is a key, and the note, are kept
        self.key_edit.setToolTip(note)
        if not has_key and not self._keyring_ok and secrets.is_local(self.base_url()):  # no key needed: no warning
            self.key_edit.setEnabled(False)
            self.key_edit.setPlaceholderText("Not needed for a server on this computer or network")
            self.keyring_label.setText("A local server needs no API key; leave the field empty.")
        elif self._keyring_ok:
            self.key_edit.setEnabled(True)
            self.key_edit.setPlaceholderText(
                f"{note} Leave empty to keep it." if has_key else f"{note} Type a key to store it in the keyring.")
            self.keyring_label.setText(
                f"Keys are stored only in the system keyring ({self._keyring_why}), one per server.")
        else:
            self.key_edit.clear()
            self.key_edit.setEnabled(False)
            self.key_edit.setPlaceholderText(note if has_key else f"No keyring here: set {secrets.ENV_VAR}")
            self.keyring_label.setText(
                f"No system keyring is available here ({self._keyring_why}). Cockpit cannot store an API "
                f"key, and never writes one to a file. Set the {secrets.ENV_VAR} environment variable "
                f"before starting Cockpit instead; it is used whenever the keyring has no key.")

    # ------------------------------------------------------------------ background calls
    @Slot()
    def test_connection(self) -> None:
        """Send one tiny chat request in a worker thread; the result lands in ``status_label``."""
        if self._busy("test"):
            return
        problem = self._form_problem()
        if problem:
            self.status_label.setText(problem)
            return
        cfg = replace(self.form_config(), max_retries=0, max_tokens=TEST_MAX_TOKENS,
                      timeout=min(self.timeout_spin.value(), TEST_TIMEOUT))
        key = self.key_edit.text().strip() or None

        def work(cancel: CancelFlag) -> str:
            with ModelClient(cfg, key) as client:
                result = client.chat(TEST_MESSAGES, cancel=cancel)
            return f"OK: {result.model} replied in {result.seconds:.1f} s"

        self.test_button.setText(_TEST_BUSY)
        self.test_button.setEnabled(False)
        self.status_label.setText(f"Testing {cfg.model} at {cfg.display_url}…")
        self._start("test", work, key)

    @Slot()
    def list_models(self) -> None:
        """Ask the server for its models in a worker thread and fill the model combo."""
        if self._busy("list"):
            return
        problem = self._url_problem()
        if problem:
            self.status_label.setText(problem)
            return
        cfg = replace(self.form_config(), max_retries=0,
                      timeout=min(self.timeout_spin.value(), TEST_TIMEOUT))
        key = self.key_edit.text().strip() or None

        def work(cancel: CancelFlag) -> list[str]:
            with ModelClient(cfg, key) as client:
                return client.list_models()

        self.list_button.setText(_LIST_BUSY)
        self.list_button.setEnabled(False)
        self.status_label.setText(f"Asking {cfg.display_url} for its models…")
        self._start("list", work, key)

    def is_busy(self) -> bool:
        """True while a test or model listing is running."""
        return bool(self._pending)

    def _busy(self, kind: str) -> bool:
        return kind in self._pending

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
        # a task of a closed dialog was cancelled and is never delivered (cockpit.ui.tasks)
        kind = next((k for k, task in self._pending.items() if task.future is done), None)
        if kind is None:
            return
        del self._pending[kind]
        ok, value = done.result()
        if kind == "test":
            self._idle_test()
            self.status_label.setText(value if ok else f"Error: {value}")
        else:
            self._idle_list()
            if ok:
                self._fill_models(value)
            else:
                self.status_label.setText(f"Could not list models: {value}")

    def _fill_models(self, names: list[str]) -> None:
        current = self.model_combo.currentText().strip()
        self.model_combo.clear()
        self.model_combo.addItems(names)
        if current:
            self.model_combo.setEditText(current)
        elif names:
            self.model_combo.setCurrentIndex(0)
        if not names:
            self.status_label.setText("The server lists no models.")
        else:
            self.status_label.setText(f"{len(names)} model{'s' if len(names) != 1 else ''} listed; "
                                      "pick one from the Model list.")

    def _idle_test(self) -> None:
        self.test_button.setText(_TEST_IDLE)
        self.test_button.setEnabled(True)

    def _idle_list(self) -> None:
        self.list_button.setText(_LIST_IDLE)
        self.list_button.setEnabled(True)

    def _cancel_pending(self) -> None:
        if self._pending:
            self.status_label.setText("Cancelled.")
        for task in self._pending.values():
            task.cancel()
        self._pending.clear()
        self._idle_test()
        self._idle_list()

    def showEvent(self, event) -> None:
        if not self._sized:  # the first time: all of it where it fits, scrolling only on a short screen
            self._sized = True
            fit_to_screen(self)
        super().showEvent(event)

    # ------------------------------------------------------------------ OK / Cancel
    def accept(self) -> None:
        """Store a newly typed key in the keyring, save the settings, close. On failure stay open."""
        wd = self.webdriver_edit.text().strip()
        problem = self._form_problem() or self.lookahead.problem() or (
            "" if setting_ok("webdriver_url", wd) else
            f"The WebDriver URL {wd!r} is not an http:// or https:// address (e.g. http://hub:4444).")
        if problem:
            return self._show_error(problem)
        new = self._settings.copy()
        new.model = self.form_config()
        new.webdriver_url, new.chrome_args = self.webdriver_edit.text().strip(), self.chrome_args_edit.text().split()
        self.lookahead.apply(new)
        key = self.key_edit.text().strip()
        if key:
            try:
                secrets.set_api_key(new.model.base_url, key)
            except secrets.SecretStoreError as e:
                return self._show_error(str(e))
            self.key_edit.clear()
            self._refresh_key_state()
        try:
            self.lookahead.store_key()
        except secrets.SecretStoreError as e:
            return self._show_error(str(e))
        try:
            save_settings(new, self._path)
        except SettingsError as e:
            return self._show_error(str(e))
        self._result = new
        self.error_label.hide()
        super().accept()

    def done(self, r: int) -> None:
        self._cancel_pending()
        super().done(r)

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.show()

    def result_settings(self) -> Settings:
        """The saved settings after OK; the unchanged settings otherwise."""
        return (self._result or self._settings).copy()


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."
