"""The look-ahead part of the model settings dialog: the world model (preview) and planning mode.

Edits :class:`~cockpit.core.settings.Settings`' ``preview_*`` and ``plan*`` fields.
The preview model's API key, when its server differs from the agent's, is
stored only in the system keyring under that server (like the agent's key);
it never reaches the settings. The dialog calls :meth:`problem`, :meth:`apply`
and :meth:`store_key` on OK.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QLabel, QLineEdit, QSpinBox, QWidget

from cockpit.core.llm import apikeys
from cockpit.core.lookahead.planning import MAX_HORIZON, MAX_K, MAX_SAMPLES
from cockpit.core.settings import Settings, field_help


class LookaheadSettingsBox(QGroupBox):
    def __init__(self, settings: Settings, agent_url_edit: QLineEdit, parent: QWidget | None = None):
        """`agent_url_edit`: the dialog's base URL field (the agent's server; empty = OpenAI)."""
        super().__init__("Look-ahead: world-model preview and planning (extra model calls)", parent)
        self._agent_url_edit = agent_url_edit  # the field, not the dialog: no reference cycle to it
        self._keyring_ok = apikeys.keyring_usable()[0]
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.preview_model_edit = QLineEdit(settings.preview_model)
        self.preview_model_edit.setPlaceholderText("empty = no preview")
        self.preview_url_edit = QLineEdit(settings.preview_base_url)
        self.preview_url_edit.setPlaceholderText("empty = the agent's server")
        self.preview_url_edit.setClearButtonEnabled(True)
        self.preview_url_edit.editingFinished.connect(self.refresh_key_state)
        self.preview_key_edit = QLineEdit()
        self.preview_key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.preview_key_edit.setInputMethodHints(Qt.InputMethodHint.ImhHiddenText
                                                  | Qt.InputMethodHint.ImhNoPredictiveText
                                                  | Qt.InputMethodHint.ImhSensitiveData)
        self.plan_box = QCheckBox("Pla&nning mode (also the Plan box in the toolbar)")
        self.plan_box.setChecked(settings.planning)
        self.k_spin = QSpinBox(minimum=1, maximum=MAX_K, value=settings.plan_k)
        self.horizon_spin = QSpinBox(minimum=1, maximum=MAX_HORIZON, value=settings.plan_horizon)
        self.samples_spin = QSpinBox(minimum=1, maximum=MAX_SAMPLES, value=settings.plan_samples)
        self.refine_box = QCheckBox("Re&fine: let the agent's model drop irrelevant candidates first")
        self.refine_box.setChecked(settings.plan_refine)
        for text, w, name in (("Pre&view model:", self.preview_model_edit, "preview_model"),
                              ("Preview server &URL:", self.preview_url_edit, "preview_base_url"),
                              ("Preview API ke&y:", self.preview_key_edit, None),
                              ("", self.plan_box, "planning"),
                              ("Candidate&s (k):", self.k_spin, "plan_k"),
                              ("&Horizon:", self.horizon_spin, "plan_horizon"),
                              ("Score sampl&es:", self.samples_spin, "plan_samples"),
                              ("", self.refine_box, "plan_refine")):
            if name:
                w.setToolTip(field_help(name))
            if text:
                label = QLabel(text)
                label.setBuddy(w)
                label.setToolTip(w.toolTip())
                form.addRow(label, w)
            else:
                form.addRow("", w)
        self.plan_box.toggled.connect(self._sync)
        self._sync()
        self.refresh_key_state()

    def widgets(self) -> list[QWidget]:
        """In Tab order."""
        return [self.preview_model_edit, self.preview_url_edit, self.preview_key_edit, self.plan_box, self.k_spin,
                self.horizon_spin, self.samples_spin, self.refine_box]

    def _sync(self) -> None:
        for w in (self.k_spin, self.horizon_spin, self.samples_spin, self.refine_box):
            w.setEnabled(self.plan_box.isChecked())

    def preview_url(self) -> str:
        return self.preview_url_edit.text().strip()

    def _own_server(self) -> bool:
        """The preview model has a server (and so a keyring entry) of its own."""
        agent = self._agent_url_edit.text().strip() or None
        return bool(self.preview_url()) and apikeys.host_of(self.preview_url()) != apikeys.host_of(agent)

    def refresh_key_state(self) -> None:
        """The key field is for a preview server other than the agent's; it never shows a stored key."""
        if not self._own_server():
            self.preview_key_edit.clear()
            self.preview_key_edit.setEnabled(False)
            self.preview_key_edit.setPlaceholderText("the agent's server: its key is used")
            return
        lookup = apikeys.get_api_key(self.preview_url())
        has_key, note = lookup.key is not None, lookup.note
        del lookup
        self.preview_key_edit.setEnabled(self._keyring_ok)
        if not self._keyring_ok:
            self.preview_key_edit.clear()
        self.preview_key_edit.setToolTip(note)
        self.preview_key_edit.setPlaceholderText(
            (f"{note}. Leave empty to keep it." if has_key else f"{note}. Type a key to store it in the keyring.")
            if self._keyring_ok else note)

    def problem(self) -> str:
        url = self.preview_url()
        if url and not (url.startswith("http://") or url.startswith("https://")):
            return "The preview server URL must start with http:// or https:// (or be empty for the agent's)."
        if url and not self.preview_model_edit.text().strip():
            return "Enter a preview model for the preview server (or empty the server URL)."
        return ""

    def apply(self, s: Settings) -> None:
        s.preview_model = self.preview_model_edit.text().strip()
        s.preview_base_url = self.preview_url()
        s.planning = self.plan_box.isChecked()
        s.plan_k, s.plan_horizon, s.plan_samples = (self.k_spin.value(), self.horizon_spin.value(),
                                                    self.samples_spin.value())
        s.plan_refine = self.refine_box.isChecked()

    def store_key(self) -> None:
        """A key typed for the preview server goes to the keyring (raises apikeys.SecretStoreError)."""
        key = self.preview_key_edit.text().strip()
        if key and self._own_server():
            apikeys.set_api_key(self.preview_url(), key)
            self.preview_key_edit.clear()
            self.refresh_key_state()
