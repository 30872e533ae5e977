"""Risk levels, and the English words that signal them in names and URL paths.

:mod:`cockpit.core.safety.risk` rates an action by these lists; :func:`_match` finds
a phrase in every reading of a name that :mod:`cockpit.core.safety.disguise` gives,
:func:`_match_path` one that starts a short segment of a URL path.
"""
from __future__ import annotations

import re
from urllib.parse import urlsplit

from cockpit.core.safety.disguise import readings

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
    "purchase", "delete", "remove", "erase", "destroy", "send", "post", "publish",
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
    # "Submit" names any form's button (a search, a quiz, a sign-in): what the form does decides.
    "submit",
)
# Sent with a POST form, these put the text written in the form in front of other people (a reply to a
# message, a comment, a review): as final as "Send" or "Post". On a link or a script's button they
# only open the box to write in, and stay state-changing.
PUBLISH_WORDS: tuple = (
    "reply", "reply all", "comment", "add comment", "post comment",
    ("review", r"(save|submit|post|add|write|publish|leave) (a |your |my |the |this )?review"),
)
# Verbs whose effect the same site undoes with the opposite verb ("Unpublish" / "Publish"): a
# confirmation page asking about them is a state change, not a final one.
UNDOABLE_WORDS: tuple = (
    "unpublish", "archive", "unarchive", "hide", "unhide", "disable", "enable", "lock", "unlock",
    "pin", "unpin", "mute", "unmute", "restore", "undelete", "mark as read", "mark as unread",
)
# Words that name making an account ("Register", "Sign up"): irreversible in general (signing up for
# a paid plan, an event); with a password field in the form they create a log-in, which can be closed.
ACCOUNT_WORDS: tuple = ("sign up", "register", "create account", "create an account")
# On a confirmation page ("Are you sure?"): the buttons that go ahead, and those that back out.
AFFIRMATIVE_WORDS: tuple = (
    ("yes", r"yes"), ("ok", r"ok(ay)?"), "continue", "proceed", "confirm", "I understand", "I agree",
    "go ahead", "do it", "agree", "accept", "submit",
)
NEGATIVE_WORDS: tuple = (
    "cancel", ("no", r"no"), "back", "go back", "take me back", "keep", "close", "dismiss", "not now",
    "never mind", "return",
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
_PUBLISH = _compile(PUBLISH_WORDS)
_AFFIRMATIVE = _compile(AFFIRMATIVE_WORDS)
_NEGATIVE = _compile(NEGATIVE_WORDS)
_UNDOABLE = _compile(UNDOABLE_WORDS)
_ACCOUNT = _compile(ACCOUNT_WORDS)


def _match(patterns, text: str) -> str | None:
    """The name of the longest phrase in `patterns` found in `text` (disguises undone), or None."""
    hits = [name for t in (readings(text) if text else []) for name, rx in patterns if rx.search(t)]
    return max(hits, key=len) if hits else None


def _matches(patterns, text: str) -> set[str]:
    """The names of all phrases in `patterns` found in `text` (disguises undone)."""
    return {name for t in (readings(text) if text else []) for name, rx in patterns if rx.search(t)}


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

