"""Typed errors the core raises, so callers can report them instead of hanging.

ActionError messages are written to be shown to the model as feedback
("element 12 is not a text field"); the others are for the human.
"""
from __future__ import annotations


class CockpitError(Exception):
    """Base class of every error Cockpit raises on purpose."""


class BrowserError(CockpitError):
    """The browser could not be started or did not do what was asked."""


class BrowserNotFound(BrowserError):
    """No Chrome/Chromium or chromedriver could be found."""


class BrowserDied(BrowserError):
    """The browser or its driver went away mid-session."""


class ActionError(CockpitError):
    """An action could not be executed; the message is fit for the model.

    ``for_model``: the message as a pixel-grounded model reads it, when it names points: in the model's own
    coordinates (the message itself names viewport CSS pixels, for the person). "" when they are the same."""

    def __init__(self, *args, for_model: str = ""):
        super().__init__(*args)
        self.for_model = for_model


class ActionParseError(ActionError):
    """The model's reply holds no action Cockpit understands."""


def short_message(e: BaseException, limit: int = 300) -> str:
    """The first line of an exception's message (WebDriver ones are pages long)."""
    msg = getattr(e, "msg", None) or str(e) or type(e).__name__
    return msg.strip().splitlines()[0][:limit]
