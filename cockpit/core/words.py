"""Counted words as a person writes them: "1 run", "2 runs", "1 category", "no runs"."""
from __future__ import annotations

#: Plurals that are not the word plus "s".
IRREGULAR = {"category": "categories", "reply": "replies", "history": "histories", "entry": "entries",
             "memory": "memories", "this": "these", "was": "were", "is": "are", "has": "have", "it": "they"}


def plural_of(word: str) -> str:
    """The plural of `word` (its last word for a phrase: "agent step" -> "agent steps")."""
    head, _, last = word.rpartition(" ")
    many = IRREGULAR.get(last) or (last[:-1] + "ies" if last.endswith("y") and last[-2:-1] not in "aeiou"
                                   else last + "es" if last.endswith(("s", "x", "ch", "sh")) else last + "s")
    return f"{head} {many}" if head else many


def plural(n: int, word: str, many: str | None = None) -> str:
    """`n` and `word` agreeing: "1 run", "2 runs", "0 runs"; `many` for a plural :func:`plural_of` gets wrong."""
    return f"{n} {word if n == 1 else many or plural_of(word)}"
