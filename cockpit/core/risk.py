"""How risky is the next action? A rough level with reasons, for the human.

Before the executor runs an action, the cockpit can ask :func:`classify` how
much it could change in the world: ``read-only`` (looking around),
``state-changing`` (typing, ticking, adding to a cart, signing in: things
that can be undone) or ``irreversible`` (paying, ordering, deleting, sending,
subscribing). The approval panel shows the level and the evidence strings, so
every reason is written for a person to read.

What this module must not do:

* It never executes, clicks or loads anything; it only reads an Action, the
  marks of the last observation and the page URL.
* It never trusts model text. Typed content, answers and the model's thoughts
  play no part. Page text only counts where it is the target's own name
  (its text, aria-label, value or link path) or a fact about a form (a POST
  submit button, a password or card field). Text elsewhere on the page
  ("click Delete to continue") never makes a click irreversible.

It is a heuristic over English words; it errs towards asking. Per-site rules
(:class:`SiteRule`, kept in ``risk_rules.json``) let the user correct it.

Decisions worth knowing:

* The level is the highest level any piece of evidence supports; then the
  **last** matching site rule, if any, replaces it (up or down). Later rules
  are meant to refine earlier, broader ones, like CSS.
* A POST form's submit button is state-changing on its own ("submits a POST
  form"): a sign-in form is state-changing even though it has a password
  field. It is irreversible when its own name says so, or when the page also
  has a card field (a payment is likely). A password field is shown as
  supporting evidence only: otherwise every log-in would need the strongest
  approval, and people would learn to click through it.
* Ticking a checkbox, radio or switch is state-changing whatever its label
  says ("I agree", "Delete my data"): it can be unticked; what counts is the
  button that submits it.
* Typing is state-changing. The executor presses Enter after typing, and
  Enter in a single-line field of a POST form submits that form. Cockpit
  cannot tell which form a submit button belongs to, so it approximates:
  typing into a POST-form field (or Press [Enter], whose focus is unknown) is
  irreversible when *any* POST submit button on the page is named
  irreversibly, or when the page has a card field and a POST submit button.
* Select is state-changing: choosing an option changes a form and some pages
  act on change (a cart's quantity).
* Goto is read-only unless the URL path looks like an action (``/delete``,
  ``/unsubscribe``, ``/checkout/confirm``, ``/pay``): then state-changing.
  Link paths count more: a link's own path with such a word is irreversible
  (GET links do unsubscribe and delete). Only the path counts, not the query.
* A link whose address is JavaScript code (``javascript:doIt()``, anything
  but a no-op like ``javascript:void(0)``) is irreversible: it opens no page,
  it runs code Cockpit cannot judge, so the human decides
  (:mod:`cockpit.core.navguard` refuses other non-web addresses outright).

Hostile pages: words are matched in every reading of a name that
:mod:`cockpit.core.disguise` gives ("D\u0435lete", "D E L E T E" read as
Delete). Reassurances ("this button is safe") never lower a level.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from . import navguard, paths
from .disguise import readings
from .actions.grammar import KINDS, Action
from .errors import CockpitError
from .marks import Mark

LEVELS = ("read-only", "state-changing", "irreversible")
READ_ONLY, STATE_CHANGING, IRREVERSIBLE = LEVELS

# ---------- word lists (English; matched case-insensitively on word boundaries) ----------
# An entry is a phrase (a space also matches a hyphen or nothing: "sign up"
# matches "Sign-up" and "Signup"; an apostrophe is optional) or a pair
# (name shown in the evidence, regular expression).
_CANCEL_WHAT = r"(subscription|order|account|membership|booking|reservation|plan)"

IRREVERSIBLE_WORDS: tuple = (
    "pay", "pay now", "buy", "buy now", "place order", "place your order", "order now",
    ("complete checkout", r"complete (the |your |my )?(checkout|order|purchase|payment|booking)"),
    ("confirm order", r"confirm (the |your |my )?(order|purchase|payment|booking)"),
    "purchase", "delete", "remove", "erase", "destroy", "send", "post", "publish", "submit",
    "confirm", ("book", r"book (now|it|this|room|tickets?|flight|table)"), "reserve",
    "subscribe", "unsubscribe", "transfer", "donate", "sign up", "register",
    ("cancel subscription/order/account", r"cancel (my |your |the |this )?" + _CANCEL_WHAT),
    ("close account", r"close (my |your |the |this )?account"),
    ("deactivate account", r"deactivate (my |your |the |this )?account"),
    ("yes, I'm sure", r"yes,? i['\u2019]?m sure"), "I agree",
)
STATE_CHANGING_WORDS: tuple = (
    ("add to cart", r"add (it |this )?to (the |my |your )?(cart|bag|basket|trolley|wishlist|wish list|list)"),
    "add", "save", "follow", "unfollow", "like", "apply", "sign in", "log in", "login",
    "sign out", "log out", "logout", "check out", "update", "edit", "upload", "accept", "allow",
    "vote", "share", "join", "reply", "comment", "favorite", "favourite", "download", "clear",
    "reset", ("yes", r"yes"), ("ok", r"ok(ay)?"), "continue", "proceed",
)
# Words that start a URL path segment (or a pair of segments, "/checkout/complete")
# of at most three words, split on - _ . +: "/account/delete", "/remove_item.php".
# Slugs of articles ("/how-to-delete-your-account") do not start with them.
PATH_IRREVERSIBLE_WORDS: tuple = (
    "delete", "remove", "destroy", "erase", "unsubscribe", "pay", "purchase", "buy",
    "confirm", "place order",
    ("checkout complete", r"check ?out (confirm|complete|pay|place|submit|finish)"),
    ("cancel subscription/order/account", r"cancel( " + _CANCEL_WHAT + r")?"),
    ("close account", r"close account"),
)
PATH_STATE_CHANGING_WORDS: tuple = (
    "logout", "log out", "sign out", "check out", "subscribe", ("add to cart", r"(add to cart|cart add)"),
)
LONG_LINK_WORDS = 6  # a link name longer than this is a title: only its first words count
# Keys that only move focus, scroll or close a menu.
NAVIGATION_KEYS = frozenset({"tab", "up", "down", "left", "right", "arrowup", "arrowdown",
                             "arrowleft", "arrowright", "pageup", "pagedown", "home", "end",
                             "escape", "esc"})
# Labels of card fields that lack autocomplete="cc-..." (supporting evidence only).
_CARD_LABEL = re.compile(r"\b(card ?number|credit card|debit card|cvc|cvv|csc|security code|"
                         r"expiry|expiration|exp\.? date)\b", re.I)
_CODE_LABEL = re.compile(r"\b(one[- ]time|verification|otp|2fa|sms code|auth(entication)? code)\b", re.I)
_TOGGLE_ROLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})


def _compile(entries: tuple) -> tuple[tuple[str, re.Pattern], ...]:
    out = []
    for e in entries:
        if isinstance(e, tuple):
            name, rx = e
        else:
            name = e
            rx = r"[\s\-]*".join(re.escape(w).replace("'", "['\u2019]?") for w in e.split())
        out.append((name, re.compile(r"(?<![\w'])(?:" + rx + r")(?![\w'])", re.I)))
    return tuple(out)


_IRREVERSIBLE = _compile(IRREVERSIBLE_WORDS)
_STATE_CHANGING = _compile(STATE_CHANGING_WORDS)
_PATH_IRREVERSIBLE = _compile(PATH_IRREVERSIBLE_WORDS)
_PATH_STATE_CHANGING = _compile(PATH_STATE_CHANGING_WORDS)


def _match(patterns, text: str) -> str | None:
    """The name of the longest phrase in `patterns` found in `text` (disguises undone), or None."""
    hits = [name for t in (readings(text) if text else []) for name, rx in patterns if rx.search(t)]
    return max(hits, key=len) if hits else None


def _path(url: str) -> str:
    try:
        return urlsplit(url).path
    except ValueError:
        return ""


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "") if url else ""
    except ValueError:
        return ""


def _match_path(patterns, path: str) -> str | None:
    """The phrase that starts a short segment (or segment pair) of a URL path."""
    segs = []
    for seg in path.lower().split("/"):
        seg = re.sub(r"\.[a-z0-9]{1,5}$", "", seg)  # delete.php
        words = [w for w in re.split(r"[-_.+~%\s]+", seg) if w]
        if words:
            segs.append(words)
    candidates = [w for w in segs if len(w) <= 3]
    candidates += [a + b for a, b in zip(segs, segs[1:]) if len(a + b) <= 3]
    hits = [name for words in candidates for name, rx in patterns if rx.match(" ".join(words))]
    return max(hits, key=len) if hits else None


# ---------- results ----------
@dataclass(frozen=True)
class Risk:
    level: str
    evidence: tuple[str, ...]  # reasons for a person, strongest first
    rule: str | None = None  # the site rule that set the level, if one did

    def __post_init__(self):
        _check_level(self.level)

    def at_least(self, level: str) -> bool:
        return LEVELS.index(self.level) >= LEVELS.index(_check_level(level))

    def __str__(self) -> str:
        return f"{self.level}: " + "; ".join(self.evidence)


def _check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"unknown risk level {level!r}; use one of {', '.join(LEVELS)}")
    return level


class _Findings:
    """Evidence collected while classifying: (level or None, text) pairs."""

    def __init__(self):
        self.items: list[tuple[str | None, str]] = []

    def add(self, level: str | None, text: str) -> None:
        if all(t != text for _, t in self.items):
            self.items.append((level, text))

    @property
    def level(self) -> str:
        found = [LEVELS.index(lv) for lv, _ in self.items if lv]
        return LEVELS[max(found)] if found else READ_ONLY

    def evidence(self) -> tuple[str, ...]:
        rank = {lv: i for i, lv in enumerate(LEVELS)}
        # Strongest first; supporting facts (no level) last; otherwise in order found.
        order = sorted(range(len(self.items)),
                       key=lambda i: (-rank.get(self.items[i][0], -1), i))
        return tuple(self.items[i][1] for i in order)


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
        return cls("password" in kinds, "card" in kinds, posts, tuple(irr))

    def sensitive_field_evidence(self) -> str | None:
        if self.has_card and self.has_password:
            return "the page has a password field and a card field"
        if self.has_card:
            return "the page has a card field"
        if self.has_password:
            return "the page has a password field"
        return None


def _enter_may_submit(f: _Findings, facts: _PageFacts, why: str) -> None:
    """Evidence for an Enter whose form is unknown (approximation, see module doc)."""
    if facts.irreversible_submits:
        button, hit = facts.irreversible_submits[0]
        f.add(IRREVERSIBLE, f"{why} may submit a POST form, and the page has a POST submit button "
                            f"{_q(button.label)} (matches {_q(hit)}); Cockpit cannot tell which form "
                            "it belongs to, so it assumes the worst")
    elif facts.post_submits and facts.has_card:
        f.add(IRREVERSIBLE, f"{why} may submit a POST form on a page with a card field (a payment is likely)")
    elif facts.post_submits:
        f.add(None, "the page has a POST form")


# ---------- per action kind ----------
_READ_ONLY_KINDS = {
    "scroll": "scrolling only moves the view",
    "wait": "waiting does nothing to the page",
    "back": "going back only returns to the previous page",
    "google": "opening the search start page only reads it",
    "hover": "hovering only moves the mouse",
    "answer": "answering ends the run without touching the site",
}


def _classify_click(f: _Findings, mark: Mark, facts: _PageFacts) -> None:
    words = _word_evidence(mark)
    if _is_toggle(mark):
        f.add(STATE_CHANGING, f"clicking a {mark.type or mark.role} changes a setting; it can be undone")
        for _, ev in words:  # shown, but a toggle does nothing final by itself
            f.add(None, ev + ", but ticking it is not final: its form's submit button is")
        return
    if _is_text_field(mark) or mark.tag == "select":
        f.add(READ_ONLY, "clicking a field only focuses or opens it")
        return
    for level, ev in words:
        f.add(level, ev)
    if mark.submit:
        method = mark.form_method or "get"
        if method == "post":
            f.add(STATE_CHANGING, "submit button of a POST form (it sends data to the site)")
            if facts.has_card:
                f.add(IRREVERSIBLE, "submit button of a POST form on a page with a card field "
                                    "(a payment is likely)")
        elif method == "dialog":
            f.add(STATE_CHANGING, "closes a dialog and tells the page which button was chosen")
        else:
            f.add(STATE_CHANGING, "submit button of a GET form (like a search)")
    if all(level is None for level, _ in f.items):
        if not _own_names(mark) and not mark.href:
            f.add(STATE_CHANGING, "the target has no text, label or value, so what it does is unknown")
        elif mark.href or mark.role in ("link", "tab"):
            f.add(READ_ONLY, f"a {mark.role or 'link'} with no risky words")
        else:
            f.add(READ_ONLY, f"no risky words on the target {_q(mark.label)}")


def _classify_type(f: _Findings, mark: Mark, facts: _PageFacts, enter: bool = True) -> None:
    kind = _field_kind(mark)
    f.add(STATE_CHANGING, f"typing changes the {kind + ' ' if kind else ''}field "
                          f"{_q(mark.label) if mark.label else f'[{mark.id}]'}")
    # The executor presses Enter after typing. In a single-line field of a form
    # that submits the form; in a textarea or an editor it is a new line.
    if mark.tag != "input":
        return
    if not enter:
        if mark.form_method == "post":
            f.add(None, "Cockpit will type without pressing Enter, so the POST form is not submitted")
        return
    if mark.form_method == "post":
        f.add(STATE_CHANGING, "pressing Enter in this field may submit a POST form "
                              "(Cockpit presses Enter after typing)")
        _enter_may_submit(f, facts, "pressing Enter here")
    elif mark.form_method == "get":
        f.add(None, "pressing Enter in this field may submit a GET form (like a search)")


def _classify_press(f: _Findings, keys: str, facts: _PageFacts) -> None:
    parts = [p.strip().lower() for p in re.split(r"\s*\+\s*", keys.strip()) if p.strip()] or [keys]
    key = parts[-1]
    if key in ("enter", "return"):
        f.add(STATE_CHANGING, "Enter activates whatever has focus, and Cockpit does not know what that is")
        _enter_may_submit(f, facts, "Enter")
    elif key in NAVIGATION_KEYS and len(parts) <= 2:
        f.add(READ_ONLY, f"{keys} only moves focus, scrolls or closes a menu")
    elif key in ("space", " "):
        f.add(STATE_CHANGING, "Space activates the focused control, and Cockpit does not know what that is")
    else:
        f.add(STATE_CHANGING, f"{keys} may edit the focused field or trigger a keyboard shortcut")


def _classify_goto(f: _Findings, url: str) -> None:
    path = _path(url)
    hit = _match_path(_PATH_IRREVERSIBLE, path) or _match_path(_PATH_STATE_CHANGING, path)
    if hit:
        f.add(STATE_CHANGING, f"the URL path {_q(path, 80)} matches {_q(hit)}: opening it may do something")
    else:
        f.add(READ_ONLY, "opening a URL only reads it")


# ---------- site rules ----------
_RULE_KEYS = ("domain", "level", "text", "url", "action", "note")


@dataclass
class SiteRule:
    """A user's correction for one site: when it matches, it sets the level.

    ``domain`` is a host ("shop.example.com"), a wildcard ("*.example.com",
    which also matches example.com itself) or "*" for every site; it is
    matched against the current page's host. ``text`` (matched against the
    target's text, aria-label and value), ``url`` (the current page URL) and
    ``action`` (an action kind) narrow it; empty means any. Regular
    expressions are case-insensitive and may match anywhere (re.search).
    """
    domain: str
    level: str
    text: str = ""
    url: str = ""
    action: str = ""
    note: str = ""

    def check(self) -> None:
        """Raise ValueError saying what is wrong with this rule."""
        for k in _RULE_KEYS:
            if not isinstance(getattr(self, k), str):
                raise ValueError(f'"{k}" must be a string')
        if not self.domain.strip():
            raise ValueError('"domain" is empty; use a host such as "shop.example.com", '
                             '"*.example.com" or "*"')
        if self.level not in LEVELS:
            raise ValueError(f'"level" is {self.level!r}; use one of {", ".join(LEVELS)}')
        if self.action and self.action not in KINDS:
            raise ValueError(f'"action" is {self.action!r}; use "" or one of {", ".join(KINDS)}')
        for k in ("text", "url"):
            try:
                re.compile(getattr(self, k))
            except re.error as e:
                raise ValueError(f'"{k}" is not a valid regular expression: {e}') from None

    def matches_host(self, host: str) -> bool:
        d, host = self.domain.strip().lower(), (host or "").lower().rstrip(".")
        if d == "*":
            return True
        if d.startswith("*."):
            return host == d[2:] or host.endswith(d[1:])
        return host == d

    def matches(self, action: Action, mark: Mark | None, url: str) -> bool:
        if not self.matches_host(_host(url)):
            return False
        if self.action and self.action != action.kind:
            return False
        if self.url and not _rx(self.url).search(url or ""):
            return False
        if self.text:
            names = [s for _, s in _own_names(mark)] if mark is not None else []
            if not any(_rx(self.text).search(s) for s in names):
                return False
        return True

    def describe(self) -> str:
        conds = [f"{k}=/{getattr(self, k)}/" for k in ("text", "url") if getattr(self, k)]
        if self.action:
            conds.append(f"action={self.action}")
        return f"{self.domain}{' [' + ', '.join(conds) + ']' if conds else ''} -> {self.level}"


@lru_cache(maxsize=256)
def _rx(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I)


def _apply_rules(f: _Findings, action: Action, mark: Mark | None, url: str,
                 rules) -> tuple[str, SiteRule | None, str | None]:
    """(level, the rule that set it, evidence about that rule): the last match wins."""
    level, chosen = f.level, None
    for i, rule in enumerate(rules):
        try:
            rule.check()
            hit = rule.matches(action, mark, url)
        except ValueError as e:
            f.add(None, f"site rule {i + 1} for {rule.domain or '?'} is invalid and was ignored: {e}")
            continue
        if hit:
            chosen = rule  # the last matching rule wins
    if chosen is None:
        return level, None, None
    was = "" if chosen.level == level else f", instead of {level}"
    note = chosen.note or "no note"
    return chosen.level, chosen, f"site rule for {chosen.domain}: {note} (sets {chosen.level}{was})"


# ---------- entry points ----------
def classify(action: Action, mark: Mark | None, marks: list[Mark], url: str,
             rules=(), *, enter_after_type: bool = True) -> Risk:
    """The risk of running `action` on the page whose marks and URL are given.

    `mark` is the action's target (None when it has none or it is not on the
    page). `enter_after_type=False` classifies a Type that will not press
    Enter afterwards. Pure: reads its arguments only.
    """
    f = _Findings()
    facts = _PageFacts.of(list(marks or ()))
    kind = action.kind
    if kind in _READ_ONLY_KINDS:
        f.add(READ_ONLY, _READ_ONLY_KINDS[kind])
    elif kind == "goto":
        _classify_goto(f, action.text)
    elif kind == "press":
        _classify_press(f, action.text, facts)
    elif mark is None:
        f.add(STATE_CHANGING, f"element [{action.target}] is not on this page, so what it is is unknown")
    elif kind == "click":
        _classify_click(f, mark, facts)
    elif kind == "type":
        _classify_type(f, mark, facts, enter_after_type)
    elif kind == "select":
        name = f" {_q(mark.label)}" if mark.label else ""
        f.add(STATE_CHANGING, f"choosing an option changes the field{name}; some pages act on the change")
    if f.level != READ_ONLY and kind in ("click", "type", "press", "select"):
        support = facts.sensitive_field_evidence()
        if support:
            f.add(None, support)
    level, rule, why = _apply_rules(f, action, mark, url, rules or ())
    evidence = ((why,) if why else ()) + f.evidence()  # what decided the level comes first
    return Risk(level, evidence, rule.describe() if rule else None)


def default_rules_path() -> Path:
    return paths.home() / "risk_rules.json"


def load_rules(path) -> list[SiteRule]:
    """The site rules in a JSON file (a list of objects); a missing file means none."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as e:
        raise CockpitError(f"cannot read the risk rules file {path}: {e}") from e
    try:
        data = json.loads(raw) if raw.strip() else []
    except json.JSONDecodeError as e:
        raise CockpitError(f"the risk rules file {path} is not valid JSON: {e.msg} "
                           f"at line {e.lineno}, column {e.colno}") from e
    if not isinstance(data, list):
        raise CockpitError(f"the risk rules file {path} must hold a JSON list of rules, "
                           f"not a {type(data).__name__}")
    return [_rule_from(path, i, entry) for i, entry in enumerate(data)]


def _rule_from(path: Path, i: int, entry) -> SiteRule:
    where = f"rule {i + 1} in the risk rules file {path}"
    if not isinstance(entry, dict):
        raise CockpitError(f"{where} must be an object like "
                           '{"domain": "example.com", "level": "irreversible"}, not ' + json.dumps(entry)[:80])
    unknown = sorted(set(entry) - set(_RULE_KEYS))
    if unknown:
        raise CockpitError(f"{where} has unknown field(s) {', '.join(unknown)}; "
                           f"allowed: {', '.join(_RULE_KEYS)}")
    missing = [k for k in ("domain", "level") if k not in entry]
    if missing:
        raise CockpitError(f"{where} needs {' and '.join(repr(k) for k in missing)}")
    rule = SiteRule(**entry)
    try:
        rule.check()
    except ValueError as e:
        raise CockpitError(f"{where} (domain {entry.get('domain')!r}): {e}") from None
    return rule


def save_rules(path, rules) -> None:
    """Write `rules` as a JSON list, atomically; refuses invalid rules."""
    path = Path(path)
    for i, rule in enumerate(rules):
        try:
            rule.check()
        except ValueError as e:
            raise CockpitError(f"rule {i + 1} ({rule.domain or '?'}) cannot be saved: {e}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps([asdict(r) for r in rules], indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


__all__ = ["LEVELS", "Risk", "SiteRule", "classify", "load_rules", "save_rules",
           "default_rules_path", "IRREVERSIBLE_WORDS", "STATE_CHANGING_WORDS"]
