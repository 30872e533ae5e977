"""The models "List models" found, per server, for the rest of the session (issue #38: closing Model… and opening
it again forgot them, so they had to be listed again).

They are kept on the window the dialog opens over (one list per server address, "" for OpenAI) and last as long
as it does; a dialog with no window keeps its own. Nothing is written to disk: a server's models change.
"""
from __future__ import annotations

from PySide6.QtWidgets import QWidget

_ATTR = "_cockpit_listed_models"


def listed_models(window: QWidget | None) -> dict[str, list[str]]:
    """The session's listed models by server address, kept on `window` (a fresh dict for no window)."""
    if window is None:
        return {}
    kept = getattr(window, _ATTR, None)
    if kept is None:
        kept = {}
        setattr(window, _ATTR, kept)
    return kept
