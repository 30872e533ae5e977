"""Counted words as a person writes them: "1 run", "2 runs", "1 category", "0 runs"; and JSON's errors in words.

Every count Cockpit says (the command line, the window, its errors) goes through :func:`plural`, so "1 runs",
"1 attempts" and "run" with "(s)" do not come back (tests/test_wording.py looks for them in the code).
"""
from __future__ import annotations

#: Plurals that are not the word plus "s".
IRREGULAR = {"category": "categories", "reply": "replies", "history": "histories", "entry": "entries",
             "memory": "memories", "is": "are", "was": "were", "has": "have"}


def plural_of(word: str) -> str:
    """The plural of `word` (its last word for a phrase: "agent step" -> "agent steps")."""
    head, _, last = word.rpartition(" ")
    if last in IRREGULAR:
        many = IRREGULAR[last]
    elif last.endswith("y") and last[-2:-1] not in tuple("aeiou"):
        many = last[:-1] + "ies"
    elif last.endswith(("s", "x", "ch", "sh")):
        many = last + "es"
    else:
        many = last + "s"
    return f"{head} {many}" if head else many


def noun(n: int, word: str, many: str | None = None) -> str:
    """`word` as `n` of it needs it, without the number: noun(1, "run") is "run", noun(3, "run") "runs"."""
    return word if n == 1 else many or plural_of(word)


def plural(n: int, word: str, many: str | None = None, *, grouped: bool = False) -> str:
    """`n` and `word` agreeing: "1 run", "2 runs", "0 runs"; `many` for a plural :func:`plural_of` gets wrong;
    `grouped`: thousands separated ("1,234 runs"), for the window."""
    return (f"{n:,}" if grouped else str(n)) + " " + noun(n, word, many)


def json_error(e, where: str = "line") -> str:
    """A JSONDecodeError in words, where it is: "Expecting ',' delimiter at line 3, column 11" (`where`: "line",
    "column" for a one-line text, "character"). Its messages that end in "at" ("Unterminated string starting
    at") get no second "at"."""
    place = {"line": f"line {e.lineno}, column {e.colno}", "column": f"column {e.colno}",
             "character": f"character {e.pos}"}[where]
    return f"{e.msg} {place}" if e.msg.endswith(" at") else f"{e.msg} at {place}"
