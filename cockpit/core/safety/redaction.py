"""Keeping text typed into secret fields out of every record the loop makes.

A secret field is a mark with ``secret`` set: password fields and fields whose
``autocomplete`` says card number, security code, one-time code or password
(see ``isSecret`` in ``som.js``). That flag is the one definition; nothing here
guesses from labels. Text typed into such a field still reaches the page, but
the store, the events, the conversation history sent back to the model, and
everything built from those (exports, the log panel, re-asks) show
:data:`SECRET` instead.

The task text is left alone: the user wrote it, the model needs it at every
step, and it is stored as typed.
"""
from __future__ import annotations

import html
import json
from typing import Iterable, Sequence
from urllib.parse import quote, quote_plus

from cockpit.core.actions.grammar import Action
from cockpit.core.llm.prompt import secret_note
from cockpit.core.page.marks import Mark

SECRET = "(secret)"


def mark_of(action: Action | None, marks: Sequence[Mark]) -> Mark | None:
    """The mark an action targets, if its number is on the page."""
    if action is None or not action.target or not 0 < action.target <= len(marks):
        return None
    return marks[action.target - 1]


def typed_secret(action: Action | None, marks: Sequence[Mark]) -> str:
    """The text `action` types into a secret field, or "" for any other action."""
    mark = mark_of(action, marks)
    if mark is not None and mark.secret and action.kind == "type" and action.text:
        return action.text
    return ""


def shown(action: Action, marks: Sequence[Mark], secrets: Iterable[str] = ()) -> str:
    """The action as recorded and displayed: ``Type [5]; (secret)`` for a secret field,
    and any secret typed earlier (`secrets`) masked in other actions' text."""
    if typed_secret(action, marks):
        return str(Action("type", action.target, SECRET))
    return scrub(str(action), secrets)


def scrub(text: str | None, secrets: Iterable[str]) -> str | None:
    """`text` with every secret (and its URL-encoded forms) replaced by :data:`SECRET`."""
    if not text:
        return text
    for s in sorted({s for s in secrets if s}, key=len, reverse=True):
        for form in dict.fromkeys((s, quote_plus(s), quote(s, safe=""))):
            text = text.replace(form, SECRET)
    return text


def forms(secret: str) -> list[str]:
    """The ways a secret is written where a page sends or shows it: as typed, URL-encoded (a form post,
    an address), escaped in JSON (a fetch body) and in HTML (a page that shows it back)."""
    return list(dict.fromkeys(f for f in (secret, quote_plus(secret), quote(secret, safe=""),
                                          json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
                                          html.escape(secret)) if f))


def scrub_bytes(data: bytes, secrets: Iterable[str]) -> bytes:
    """`data` (a request or response body, a page snapshot) with every secret in any of its :func:`forms`
    replaced by :data:`SECRET`; bytes that hold none come back as they are."""
    if not data:
        return data
    for s in sorted({s for s in secrets if s}, key=len, reverse=True):
        for form in forms(s):
            b = form.encode("utf-8")
            if b in data:
                data = data.replace(b, SECRET.encode())
    return data


def field_kind(mark: Mark) -> str:
    """'password' or 'secret': how the note to the model names the field."""
    return "password" if mark.type == "password" else "secret"


def with_note(feedback: str, action: Action, marks: Sequence[Mark]) -> str:
    """The feedback after `action`, plus a note to the model when it typed a secret."""
    if not typed_secret(action, marks):
        return feedback
    note = secret_note(action.target, field_kind(mark_of(action, marks)))
    return f"{feedback} {note}" if feedback else note
