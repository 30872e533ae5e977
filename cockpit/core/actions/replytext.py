"""The Thought/Action shape of a text reply (WebVoyager's, and the text dialects' that follow it):
finding the 'Action:' label, the thought before it and the action after it, tolerating case and markdown.
Used by the mark protocol (:mod:`cockpit.core.llm.prompt`) and the plain and UI-TARS dialects."""
from __future__ import annotations

import re

LABEL = r"(?<![A-Za-z])[*_#>`]*{}[*_\s`]*[:：][*_\s`]*"
THOUGHT = re.compile(LABEL.format("thoughts?"), re.I)
ACTION = re.compile(LABEL.format("action"), re.I)


def action_label(text: str) -> re.Match | None:
    """The 'Action:' label that counts: the last one starting a line (else the last one anywhere), so
    'I will take action: ...' in a thought does not count when a proper Action line follows."""
    labels = list(ACTION.finditer(text))
    at_line_start = [m for m in labels if text[:m.start()].rstrip(" \t*_#>`").endswith("\n") or
                     not text[:m.start()].strip(" \t*_#>`")]
    return (at_line_start or labels or [None])[-1]


def thought_before(text: str, end: int, *, label=THOUGHT, whole: bool = False) -> str:
    """The thought: what follows the thought label before `end`; with no label, '' (or, with `whole`, all
    of the text before `end`)."""
    tm = label.search(text, 0, end)
    if tm is None:
        return text[:end].strip() if whole else ""
    return text[tm.end():end].strip().rstrip("*_ ").strip()


def action_line(rest: str) -> str:
    """The action written after the label: its first line, or all of an ANSWER (answers span lines)."""
    rest = rest.strip()
    first = rest.splitlines()[0] if rest else ""
    is_answer = re.match(r"[\s*_`]*answer\b", first, re.I) is not None
    return (rest if is_answer else first).strip().strip("`").strip()
