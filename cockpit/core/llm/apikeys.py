"""API keys for model servers: the system keyring first, ``OPENAI_API_KEY`` second.

What it is for: finding the key to send to an OpenAI-compatible server, and
storing / forgetting keys in the operating system's keyring (one entry per
server, so OpenAI and a private vLLM host can have different keys). Each
lookup says where the key came from and why, so the UI can explain it.

What it must not do: write a key to any file, log line, exception message or
``repr``. Keys live only in the keyring, the environment, and memory. Storing
needs a working keyring; without one the user is told to set
``OPENAI_API_KEY`` instead, and nothing is written anywhere else.

Entries are stored under service ``SERVICE`` with the name
``api-key:<host>`` (``api-key:<host>:<port>`` when the base URL names a
port); a base URL of ``None`` means OpenAI, ``api-key:api.openai.com``.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from urllib.parse import urlparse

import keyring
import keyring.errors

from cockpit.core.errors import CockpitError

__all__ = [
    "ENV_VAR",
    "SERVICE",
    "KeyLookup",
    "SecretStoreError",
    "delete_api_key",
    "get_api_key",
    "key_name",
    "keyring_usable",
    "set_api_key",
]

log = logging.getLogger(__name__)

SERVICE = "cockpit"
ENV_VAR = "OPENAI_API_KEY"
OPENAI_HOST = "api.openai.com"

SOURCE_KEYRING = "keyring"
SOURCE_ENV = f"environment ({ENV_VAR})"
SOURCE_NONE = "none"


class SecretStoreError(CockpitError):
    """A key could not be stored in or removed from the keyring."""


@dataclass(frozen=True)
class KeyLookup:
    """The result of :func:`get_api_key`.

    key: the API key, or None (hidden from ``repr`` so it never reaches a log).
    source: ``"keyring"``, ``"environment (OPENAI_API_KEY)"`` or ``"none"``.
    note: a sentence for the human saying where the key came from and why.

    Unpacks as ``key, source = lookup`` for callers that ignore the note.
    """

    key: str | None = field(repr=False)
    source: str
    note: str

    def __iter__(self):
        return iter((self.key, self.source))


def host_of(base_url: str | None) -> str:
    """``host`` or ``host:port`` of a base URL; OpenAI's host for None or no host."""
    if not base_url:
        return OPENAI_HOST
    parsed = urlparse(base_url if "//" in base_url else f"//{base_url}")
    host = (parsed.hostname or "").lower()
    if not host:
        return OPENAI_HOST
    try:
        port = parsed.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port else host


def is_local(base_url: str | None) -> bool:
    """True for a server on this computer or its private network (vLLM, Ollama, LM Studio): no key needed."""
    import ipaddress
    if not base_url:
        return False
    host = (urlparse(base_url if "//" in base_url else f"//{base_url}").hostname or "").lower()
    if host == "localhost" or host.endswith((".localhost", ".local")):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local


def key_name(base_url: str | None) -> str:
    """The keyring entry name for a server, e.g. ``api-key:api.openai.com``."""
    return f"api-key:{host_of(base_url)}"


def _backend_name(kr) -> str:
    return f"{type(kr).__module__}.{type(kr).__name__}"


def keyring_usable() -> tuple[bool, str]:
    """Whether a real keyring backend works here, and a sentence saying why."""
    try:
        kr = keyring.get_keyring()
    except Exception as e:  # a broken keyring configuration
        return False, f"the keyring could not be loaded ({type(e).__name__})"
    from keyring.backends import chainer, fail, null

    if isinstance(kr, (fail.Keyring, null.Keyring)):
        return False, ("keyring found no backend on this system: no Secret Service, KWallet, "
                       "macOS Keychain or Windows Credential Manager")
    if isinstance(kr, chainer.ChainerBackend) and not kr.backends:
        return False, "the keyring has no usable backend to chain"
    return True, f"using the system keyring ({_backend_name(kr)})"


def _from_keyring(name: str) -> tuple[str | None, str]:
    """(key or None, problem or "") from the keyring, never raising."""
    usable, why = keyring_usable()
    if not usable:
        return None, f"no keyring backend works ({why})"
    try:
        value = keyring.get_password(SERVICE, name)
    except Exception as e:
        log.warning("reading %s from the keyring failed: %s", name, type(e).__name__)
        return None, f"the keyring could not be read ({type(e).__name__})"
    if value and value.strip():
        return value.strip(), ""
    return None, "no key is stored in the keyring for this server"


def get_api_key(base_url: str | None) -> KeyLookup:
    """The key for ``base_url``: the keyring entry, else ``$OPENAI_API_KEY``, else none."""
    name = key_name(base_url)
    host = host_of(base_url)
    key, problem = _from_keyring(name)
    if key:
        return KeyLookup(key, SOURCE_KEYRING, f"API key for {host} from the system keyring")
    env = (os.environ.get(ENV_VAR) or "").strip()
    if env:
        return KeyLookup(env, SOURCE_ENV, f"{problem}; using {ENV_VAR} from the environment")
    return KeyLookup(None, SOURCE_NONE,
                     f"no API key for {host}: {problem}, and {ENV_VAR} is not set")


def _require_keyring(action: str) -> None:
    usable, why = keyring_usable()
    if not usable:
        raise SecretStoreError(
            f"cannot {action}: {why}. Set the {ENV_VAR} environment variable instead; "
            "Cockpit reads the key from there when the keyring is unavailable.")


def set_api_key(base_url: str | None, key: str) -> None:
    """Store ``key`` for ``base_url`` in the keyring (raises SecretStoreError if impossible)."""
    if not key or not key.strip():
        raise SecretStoreError("refusing to store an empty API key")
    _require_keyring("store the API key in the keyring")
    name = key_name(base_url)
    try:
        keyring.set_password(SERVICE, name, key.strip())
    except Exception as e:
        # Only the exception's type: a backend's message might quote the secret.
        raise SecretStoreError(
            f"the keyring refused to store the key for {host_of(base_url)} ({type(e).__name__}); "
            f"set {ENV_VAR} instead") from None
    log.info("stored the API key for %s in the keyring", host_of(base_url))


def delete_api_key(base_url: str | None) -> bool:
    """Remove the stored key for ``base_url``; False if there was none."""
    _require_keyring("delete the API key from the keyring")
    name = key_name(base_url)
    try:
        keyring.delete_password(SERVICE, name)
    except keyring.errors.PasswordDeleteError:
        return False
    except Exception as e:
        raise SecretStoreError(
            f"the keyring could not delete the key for {host_of(base_url)} ({type(e).__name__})") from None
    log.info("deleted the API key for %s from the keyring", host_of(base_url))
    return True
