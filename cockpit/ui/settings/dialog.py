"""The model settings dialog: which server, which model, how to call it, the API key, the window's browser and
the look-ahead, each a part of its own that this dialog wires together.

What it is for: editing the ``model`` part of :class:`~cockpit.core.settings.Settings` (base URL with presets
for OpenAI, vLLM, Ollama and LM Studio; model name, filled from the server by "List models"; temperature, max
tokens, request timeout, image detail and width: :mod:`~cockpit.ui.settings.model_section`), storing an API
key for the chosen server in the system keyring (:mod:`~cockpit.ui.settings.key_section`), the window's browser
(:mod:`~cockpit.ui.settings.browser_section`), and the world-model preview and planning mode
(:mod:`cockpit.ui.settings.lookahead`). "Test connection" sends one tiny chat request with the values as they
are in the form, so a wrong URL, model or key shows up here and not in the middle of a run
(:mod:`~cockpit.ui.settings.connection`). OK saves the settings through
:func:`~cockpit.core.settings.save_settings`; Cancel (or Esc) discards. A note says that the toolbar's Demo
policy, when ticked, uses none of the model set here.

What it must not do:

* write the API key anywhere but the system keyring (see key_section).
* block the GUI thread on the network (see connection); closing the dialog cancels what runs.
* grow wider than the screen for a long URL, model name or server message: they wrap.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from cockpit.core.llm import apikeys
from cockpit.core.settings import Settings, SettingsError, save_settings
from cockpit.ui.room import TallScrollArea, fit_to_screen
from cockpit.ui.settings.browser_section import BrowserSection
from cockpit.ui.settings.connection import ConnectionCheck
from cockpit.ui.settings.key_section import KeySection
from cockpit.ui.settings.listed_models import listed_models
from cockpit.ui.settings.lookahead import LookaheadSettingsBox
from cockpit.ui.settings.model_section import ModelSection
from cockpit.ui.settings.parts import MessageLabel, align_labels
from cockpit.ui.settings.pointing import PointingCheck

__all__ = ["ModelSettingsDialog", "DEMO_ON", "DEMO_MAYBE"]

DEMO_ON = ("Demo policy is ticked in the toolbar: runs use Cockpit's offline demo policy, not the model set "
           "here. Untick Demo policy to run this model.")
DEMO_MAYBE = ("When Demo policy is ticked in the toolbar, runs use Cockpit's offline demo policy and no model; "
              "the model set here is used when it is not ticked.")


class ModelSettingsDialog(QDialog):
    """Edit the model settings; ``result_settings()`` after ``accept()``.

    ``path``: where OK saves the settings (default: ``settings.json`` in Cockpit's home). ``demo``: whether the
    toolbar's Demo policy is ticked (None: not known here; the note then says what it does when it is).
    """

    def __init__(self, settings: Settings, parent: QWidget | None = None, *,
                 path: str | Path | None = None, demo: bool | None = None):
        super().__init__(parent)
        self.setWindowTitle("Model settings")
        self._settings = settings.copy()
        self._result: Settings | None = None
        self._path = path
        self._sized = False
        self._build(demo)
        self._wire()
        self.key.refresh(self.model.base_url())

    # ------------------------------------------------------------------ layout
    def _build(self, demo: bool | None) -> None:
        self.demo_note = MessageLabel(DEMO_ON if demo else DEMO_MAYBE)
        self.demo_note.setObjectName("demoNote")
        if demo:
            self.demo_note.setStyleSheet("QLabel#demoNote { background: #fff4ce; color: #4a3b00; "
                                         "border: 1px solid #d9b94a; padding: 4px; }")
        self.demo_note.setVisible(demo is not False)
        self.model = ModelSection(self._settings.model, listed=listed_models(self.parentWidget()))
        self.key = KeySection()
        self.check = ConnectionCheck()
        self.pointing = PointingCheck()  # below the coordinates: is the model's coordinate setting right?
        self.model.form.addRow("", self.pointing)
        self.browser = BrowserSection(self._settings)
        self.lookahead = LookaheadSettingsBox(self._settings, self.model.base_url_edit, self)
        align_labels(self.model.form, self.key.form)

        self.error_label = MessageLabel()
        self.error_label.setStyleSheet("color: #b00020;")
        self.error_label.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setDefault(True)

        # The fields scroll on a short screen; the error and OK / Cancel stay in view (issue #20: the dialog was
        # 736 px tall, so on a 700-pixel screen OK was off-screen).
        body = QWidget()
        fields = QVBoxLayout(body)
        fields.setContentsMargins(0, 0, 0, 0)
        for part in (self.demo_note, self.model, self.key, self.check, self.browser, self.lookahead):
            fields.addWidget(part)
        fields.addStretch(1)
        self.scroll = TallScrollArea(body)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        order = [*self.model.widgets(), self.pointing.button, self.key.key_edit, self.check.test_button, *self.browser.widgets(),
                 *self.lookahead.widgets(), self.ok_button, self.buttons.button(QDialogButtonBox.StandardButton.Cancel)]
        for a, b in zip(order, order[1:]):
            QWidget.setTabOrder(a, b)
        self.model.base_url_edit.setFocus()

    def _wire(self) -> None:
        self.model.server_changed.connect(lambda: self.key.refresh(self.model.base_url()))
        self.model.server_changed.connect(self.lookahead.refresh_key_state)
        self.model.list_requested.connect(self.list_models)
        self.model.said.connect(self.check.say)
        self.check.test_requested.connect(self.test_connection)
        self.pointing.requested.connect(self.check_pointing)
        self.pointing.apply_fix.connect(self.apply_fix)
        self.model.dialect_field.changed.connect(self._pixel_rows)
        self.check.listing.connect(self.model.set_listing)
        self.check.models_listed.connect(self.model.fill_models)
        # the grid line under Answers as: the screenshot the model is sent follows the browser and the width
        self.browser.screen_changed.connect(self._screen_changed)
        self.model.width_spin.valueChanged.connect(self._screen_changed)
        self._screen_changed()
        self._pixel_rows()
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

    def _screen_changed(self, *_) -> None:
        viewport, scale = self.browser.screen()
        self.model.dialect_field.set_screen(viewport, scale, self.model.width_spin.value() or None)

    # ------------------------------------------------------------------ background calls
    @Slot()
    def test_connection(self) -> None:
        """Send one tiny chat request in a worker thread; the result lands in the check's ``status_label``."""
        if self.check.busy("test"):
            return
        problem = self.model.problem()
        if problem:
            return self.check.say(problem)
        self.check.test(self.model.form_config(), self.key.typed_key(), self.model.timeout_spin.value())

    @Slot()
    def check_pointing(self) -> None:
        """The pointing check with the form's model and browser, in the background (its own status line)."""
        if self.pointing.is_busy():
            return
        problem = self.model.problem() or self.browser.problem()
        if problem:
            return self.pointing.say(problem)
        if not self.model.form_config().pixel:
            return self.pointing.say("The pointing check is for pixel models: choose a pixel preset in Answers as "
                                     "(ui-tars-1.5, qwen2.5-vl, ...) first.")
        self.pointing.start(self.model.form_config(), self.key.typed_key(), self.browser.browser_config())

    def apply_fix(self, fix: dict) -> None:
        """Set the fields the pointing check's report names (saved with OK)."""
        field = self.model.dialect_field
        dialect, space = field.values()
        lo, hi = field.budget()
        field.load(dialect, fix.get("coords", space), fix.get("qwen_min_pixels", lo), fix.get("qwen_max_pixels", hi))
        if "image_max_width" in fix:
            self.model.width_spin.setValue(fix["image_max_width"] or 0)
        if "device_scale_factor" in fix:
            self.browser.scale_spin.setValue(fix["device_scale_factor"])
        self.pointing.say("Applied; OK saves it. Check pointing again to see the clicks land.")

    def _pixel_rows(self) -> None:
        self.pointing.setVisible(self.model.dialect_field.values()[0] != "marks")

    @Slot()
    def list_models(self) -> None:
        """Ask the server for its models in a worker thread and fill the model list."""
        if self.check.busy("list"):
            return
        problem = self.model.url_problem()
        if problem:
            return self.check.say(problem)
        self.check.list_models(self.model.form_config(), self.key.typed_key(), self.model.timeout_spin.value())

    def is_busy(self) -> bool:
        """True while a test, a model listing or a pointing check is running."""
        return self.check.is_busy() or self.pointing.is_busy()

    def showEvent(self, event) -> None:
        if not self._sized:  # the first time: all of it where it fits, scrolling only on a short screen
            self._sized = True
            fit_to_screen(self)
        super().showEvent(event)

    # ------------------------------------------------------------------ OK / Cancel
    def accept(self) -> None:
        """Store a newly typed key in the keyring, save the settings, close. On failure stay open."""
        problem = self.model.problem() or self.lookahead.problem() or self.browser.problem()
        if problem:
            return self._show_error(problem)
        new = self._settings.copy()
        new.model = self.model.form_config()
        self.browser.apply(new)
        self.lookahead.apply(new)
        try:
            self.key.store(new.model.base_url)
            self.lookahead.store_key()
        except apikeys.SecretStoreError as e:
            return self._show_error(str(e))
        try:
            save_settings(new, self._path)
        except SettingsError as e:
            return self._show_error(str(e))
        self._result = new
        self.error_label.hide()
        super().accept()

    def done(self, r: int) -> None:
        self.check.cancel()
        self.pointing.cancel()
        super().done(r)

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.show()

    def result_settings(self) -> Settings:
        """The saved settings after OK; the unchanged settings otherwise."""
        return (self._result or self._settings).copy()
