"""Core messages in the window's words: they name command-line flags, the window has fields.

The core says "give --base-url of a local … server" and "store one with `cockpit key set`" (right for the
terminal). The window names its own field instead: the Judge server field in Reports, the Base URL in Model…
in Live (issue #20).
"""
from __future__ import annotations

import re

MODEL_DIALOG = "Model… (Ctrl+,)"
BASE_URL_FIELD = f"the Base URL field of {MODEL_DIALOG}"
JUDGE_SERVER_FIELD = 'the "Judge server" field above'


def in_window_terms(message: str, server_field: str = BASE_URL_FIELD) -> str:
    """`message` with the flags it names replaced by the window's fields; `server_field` is where a server's
    address goes in the part of the window showing the message."""
    message = message.replace("store one with `cockpit key set`", f"store one in the API key field of {MODEL_DIALOG}")
    message = re.sub(r"give --base-url of (an? [^.]*?server(?: \([^)]*\))?)(, which needs no key)?",
                     lambda m: f"put the address of {m.group(1)} in {server_field}"
                     + ("; such a server needs no key" if m.group(2) else ""), message)
    return message.replace("--base-url", server_field)
