"""An in-memory keyring backend for tests (the file-backed one for subprocesses is tests/faults/file_keyring.py)."""
import keyring.backend
import keyring.errors


class MemoryKeyring(keyring.backend.KeyringBackend):
    """Passwords in a dict; with `fail_on_set`, storing fails as a locked keyring would."""

    priority = 1

    def __init__(self, fail_on_set: bool = False):
        super().__init__()
        self.store = {}
        self.fail_on_set = fail_on_set

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        if self.fail_on_set:
            raise keyring.errors.PasswordSetError("locked")
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        if self.store.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")
