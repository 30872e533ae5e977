"""The model settings' API key: a masked field for a new key, and a note on where keys are kept.

A key typed here goes only to the system keyring, one per server (never to settings.json, a log line or a
label); the stored key is never shown, only where the key for the server comes from
(:func:`~cockpit.core.llm.apikeys.get_api_key`'s note). Without a usable keyring the field is disabled and the
note says to set ``OPENAI_API_KEY`` instead; a server on this computer or network needs no key.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from cockpit.core.llm import apikeys
from cockpit.ui.settings.parts import MessageLabel, form, label


class KeySection(QWidget):
    """The key field and the keyring note, for the server whose address ``refresh`` is given."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._keyring_ok, self._keyring_why = apikeys.keyring_usable()
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setAutoFillBackground(False)
        self.key_edit.setClearButtonEnabled(True)
        self.key_edit.setInputMethodHints(Qt.InputMethodHint.ImhHiddenText | Qt.InputMethodHint.ImhNoPredictiveText
                                          | Qt.InputMethodHint.ImhSensitiveData)
        self.keyring_label = MessageLabel()  # all its lines, never under the next row, never wider than the form
        self.form = form()
        self.form.setFieldGrowthPolicy(self.form.FieldGrowthPolicy.AllNonFixedFieldsGrow)  # the note too
        self.form.addRow(label("API &key:", self.key_edit, None), self.key_edit)
        self.form.addRow("", self.keyring_label)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(self.form)

    def typed_key(self) -> str | None:
        """A key typed in the field (to test with, or to store), or None."""
        return self.key_edit.text().strip() or None

    def refresh(self, base_url: str | None) -> None:
        """Keyring note and key placeholder for the server at `base_url` (never shows the key)."""
        lookup = apikeys.get_api_key(base_url)
        has_key, note = lookup.key is not None, _sentence(lookup.note)
        del lookup  # only whether there is a key, and the note, are kept
        self.key_edit.setToolTip(note)
        if not has_key and not self._keyring_ok and apikeys.is_local(base_url):  # no key needed: no warning
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
            self.key_edit.setPlaceholderText(note if has_key else f"No keyring here: set {apikeys.ENV_VAR}")
            self.keyring_label.setText(
                f"No system keyring is available here ({self._keyring_why}). Cockpit cannot store an API "
                f"key, and never writes one to a file. Set the {apikeys.ENV_VAR} environment variable "
                f"before starting Cockpit instead; it is used whenever the keyring has no key.")

    def store(self, base_url: str | None) -> None:
        """A typed key goes to the keyring for `base_url`, and the field is emptied (raises
        apikeys.SecretStoreError, the typed key kept)."""
        key = self.typed_key()
        if key:
            apikeys.set_api_key(base_url, key)
            self.key_edit.clear()
            self.refresh(base_url)


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."
