"""Facts about marks for :mod:`cockpit.core.safety.risk`: a target's own names, risky words in them, field kinds.

Only the target's own names (text, aria-label, a button's value, its link
path) and facts about forms count; free page text never does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cockpit.core.page.marks import Mark
from cockpit.core.safety import navguard
from cockpit.core.safety.disguise import readings
from cockpit.core.safety.words import (
    _IRREVERSIBLE,
    _PATH_IRREVERSIBLE,
    _PATH_STATE_CHANGING,
    _STATE_CHANGING,
    IRREVERSIBLE,
    STATE_CHANGING,
    _match,
    _match_path,
    _path,
)

LONG_LINK_WORDS = 6  # a link name longer than this is a title: only its first words count


# Labels of card fields that lack autocomplete="cc-..." (supporting evidence only).
_CARD_LABEL = re.compile(r"\b(card ?number|credit card|debit card|cvc|cvv|csc|security code|"
                         r"expiry|expiration|exp\.? date)\b", re.I)
_CODE_LABEL = re.compile(r"\b(one[- ]time|verification|otp|2fa|sms code|auth(entication)? code)\b", re.I)
_TOGGLE_ROLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})


# ---------- facts about marks ----------
def _q(s: str, limit: int = 60) -> str:
    s = " ".join(s.split())
    return '"' + (s if len(s) <= limit else s[:limit - 1] + "\u2026") + '"'


def _own_names(mark: Mark) -> list[tuple[str, str]]:
    """The target's own names: [('text', ...), ('aria-label', ...), ('value', ...)]."""
    names = [("text", mark.text), ("aria-label", mark.aria_label)]
    # A text field's value is what someone typed (maybe the model); a
    # checkbox's is "checked". Only a button's or a select's value names it.
    if mark.value and not mark.editable and mark.type not in ("checkbox", "radio"):
        names.append(("value", mark.value))
    seen, out = set(), []
    for field_name, s in names:
        if s and s.lower() not in seen:
            seen.add(s.lower())
            out.append((field_name, s))
    return out


def _is_link(mark: Mark) -> bool:
    return bool(mark.href) or mark.role == "link"


def _word_evidence(mark: Mark) -> list[tuple[str, str | None]]:
    """(level, evidence) for risky words in the target's own names and link path.

    A long link name is a title ("How to delete your account"): only a phrase
    at its start counts; one further in is reported with level None.
    """
    out = []
    for field_name, s in _own_names(mark):
        long_title = _is_link(mark) and len(s.split()) > LONG_LINK_WORDS
        for level, patterns in ((IRREVERSIBLE, _IRREVERSIBLE), (STATE_CHANGING, _STATE_CHANGING)):
            hit = _match(patterns, s)
            if hit and long_title:
                first = [(n, rx) for n, rx in patterns if any(rx.match(t.strip()) for t in readings(s))]
                if not first:
                    out.append((None, f"target {field_name} {_q(s)} contains {_q(hit)}, but inside "
                                      "a long link title, so it is not counted"))
                    continue
                hit = _match(first, s)
            if hit:
                out.append((level, f"target {field_name} {_q(s)} matches {_q(hit)}"))
                break
    if mark.href and navguard.scheme_of(mark.href) == "javascript":
        if not navguard.is_noop_script(mark.href):
            out.append((IRREVERSIBLE, f"the link runs page script instead of opening a page "
                                      f"({_q(mark.href, 60)}); Cockpit cannot tell what it does"))
    elif mark.href:
        path = _path(mark.href)
        for level, patterns in ((IRREVERSIBLE, _PATH_IRREVERSIBLE), (STATE_CHANGING, _PATH_STATE_CHANGING)):
            hit = _match_path(patterns, path)
            if hit:
                out.append((level, f"link path {_q(path, 80)} matches {_q(hit)}"))
                break
    return out


def _is_toggle(mark: Mark) -> bool:
    return mark.type in ("checkbox", "radio") or mark.role in _TOGGLE_ROLES


def _is_text_field(mark: Mark) -> bool:
    return mark.editable and not _is_toggle(mark)


def _field_kind(mark: Mark) -> str | None:
    """'password', 'card' or 'code' for sensitive fields, else None.

    Marks say `secret` for password fields and autocomplete="cc-*",
    "one-time-code" or "*password*" fields; the label tells them apart, and
    names card fields that lack autocomplete. An unnamed secret non-password
    field is taken to be a card field (the cautious guess).
    """
    label = " ".join((mark.text, mark.aria_label, mark.placeholder))
    if _CARD_LABEL.search(label) and (mark.secret or (mark.editable and mark.tag == "input")):
        return "card"
    if mark.type == "password":
        return "password"
    if mark.secret:
        if _CODE_LABEL.search(label):
            return "code"
        return "password" if "password" in label.lower() else "card"
    return None


@dataclass(frozen=True)
class _PageFacts:
    """What the marks say about the page's forms (never its free text)."""
    has_password: bool
    has_card: bool
    post_submits: tuple[Mark, ...]
    irreversible_submits: tuple[tuple[Mark, str], ...]  # (button, the phrase its name matches)
    confirm_text: str = ""  # the page's confirmation wording ("Are you sure...?"), from som.js

    @classmethod
    def of(cls, marks: list[Mark]) -> "_PageFacts":
        kinds = {_field_kind(m) for m in marks}
        posts = tuple(m for m in marks if m.submit and m.form_method == "post")
        irr = []
        for m in posts:
            hits = [_match(_IRREVERSIBLE, s) for _, s in _own_names(m)]
            hits = [h for h in hits if h]
            if hits:
                irr.append((m, hits[0]))
        card = "card" in kinds or any(m.form_payment for m in posts)
        confirm = next((m.confirm_text for m in marks if m.confirm_text), "")
        return cls("password" in kinds or any(m.form_password for m in posts), card, posts, tuple(irr), confirm)

    def sensitive_field_evidence(self) -> str | None:
        if self.has_card and self.has_password:
            return "the page has a password field and a card field"
        if self.has_card:
            return "the page has a card field"
        if self.has_password:
            return "the page has a password field"
        return None

