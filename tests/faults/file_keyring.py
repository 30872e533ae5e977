"""A keyring backend keeping passwords in a JSON file, for tests that run Cockpit in subprocesses.

Select it with ``PYTHON_KEYRING_BACKEND=tests.faults.file_keyring.FileKeyring`` and name the
file in ``COCKPIT_TEST_KEYRING_FILE``. The file obviously holds the key: it stands in for the
operating system's keyring, the one place a key is allowed to be.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import keyring.backend
import keyring.errors

ENV = "COCKPIT_TEST_KEYRING_FILE"
BACKEND = f"{__name__}.FileKeyring"


class FileKeyring(keyring.backend.KeyringBackend):
    priority = 1

    @property
    def path(self) -> Path:
        return Path(os.environ[ENV])

    def _load(self) -> dict:
        try:
            return json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}

    def get_password(self, service, username):
        return self._load().get(f"{service}\n{username}")

    def set_password(self, service, username, password):
        data = self._load()
        data[f"{service}\n{username}"] = password
        self.path.write_text(json.dumps(data))

    def delete_password(self, service, username):
        data = self._load()
        if data.pop(f"{service}\n{username}", None) is None:
            raise keyring.errors.PasswordDeleteError("not found")
        self.path.write_text(json.dumps(data))
