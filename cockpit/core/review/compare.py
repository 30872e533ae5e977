"""Aligning two runs of the same task step by step, for side-by-side comparison.

Steps are matched on what they did (action kind and target label, and the
page's path) with difflib's sequence matching, so an extra scroll in one run
leaves a gap instead of shifting every later row. Pure functions on step rows.
"""
from __future__ import annotations

import difflib
from urllib.parse import urlparse


def _sig(step: dict) -> str:
    action = (step.get("action") or step.get("action_text") or "").split("[")[0].strip().lower()
    path = urlparse(step.get("url") or "").path
    return f"{action}|{path}"


def align(a: list[dict], b: list[dict]) -> list[tuple[int | None, int | None]]:
    """Pairs of indexes into `a` and `b`; None where one run has no counterpart."""
    sm = difflib.SequenceMatcher(a=[_sig(s) for s in a], b=[_sig(s) for s in b], autojunk=False)
    pairs: list[tuple[int | None, int | None]] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            pairs += list(zip(range(i1, i2), range(j1, j2)))
        elif op == "replace":
            n = max(i2 - i1, j2 - j1)
            for k in range(n):
                pairs.append((i1 + k if i1 + k < i2 else None, j1 + k if j1 + k < j2 else None))
        elif op == "delete":
            pairs += [(i, None) for i in range(i1, i2)]
        else:
            pairs += [(None, j) for j in range(j1, j2)]
    return pairs


def _action(step: dict) -> str:
    """The whole action as the model wrote it (kind and target), spaces and case evened out; '' for none."""
    return " ".join((step.get("action") or step.get("action_text") or "").split()).lower()


def _page(step: dict) -> str:
    u = urlparse(step.get("url") or "")
    return f"{u.netloc.lower()}{u.path.rstrip('/')}?{u.query}"


def same_action(a: dict | None, b: dict | None) -> bool:
    """Both steps did the same thing to the same target ('Click [13]' and 'Click [5]' differ; two steps
    without an action are the same)."""
    return a is not None and b is not None and _action(a) == _action(b)


def same_page(a: dict | None, b: dict | None) -> bool:
    """Both steps were taken on the same page (host, path and query of its address; not the #fragment)."""
    return a is not None and b is not None and _page(a) == _page(b)
