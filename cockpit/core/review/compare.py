"""Aligning two runs of the same task step by step, for side-by-side comparison.

Steps are matched on what they did (action kind and target label, and the
page's path) with difflib's sequence matching, so an extra scroll in one run
leaves a gap instead of shifting every later row; a run and a branch of it are paired by step number
instead (:func:`align_branch`), so their shared prelude and the step they part at are plain. Pure functions on
step rows.
"""
from __future__ import annotations

import difflib
import re
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


def target_of(step: dict, marks: list | None = None) -> tuple[str, str] | None:
    """The element `step` acted on, as (tag, label lower-cased), from its pixel action's resolved element or its box
    among `marks` (the step's marks); None when it had no target or it is not known."""
    pointer = step.get("pointer") if isinstance(step.get("pointer"), dict) else {}
    hit = pointer.get("resolved")
    if isinstance(hit, dict) and hit.get("tag"):
        return str(hit["tag"]), " ".join(str(hit.get("text") or "").split()).lower()[:80]
    mark = next((m for m in marks or () if m.id == step.get("target")), None) if step.get("target") else None
    return (mark.tag, " ".join(mark.label.split()).lower()[:80]) if mark is not None else None


_WHERE = re.compile(r"\s*(\[\d+\]|\(\s*-?[\d.]+\s*,\s*-?[\d.]+\s*\))")  # a box number or a point


def same_action(a: dict | None, b: dict | None, targets: tuple | None = None) -> bool:
    """Both steps did the same thing to the same target ('Click [13]' and 'Click [5]' differ; two steps
    without an action are the same). With both `targets` known (:func:`target_of`), the target is the element, not
    its box number or point: `Click [4]` and `Click (201, 163)` on the same link are the same action, and
    `Click [4]` on two different elements is not (walkthroughs 5 and 6)."""
    if a is None or b is None:
        return False
    if targets and all(targets):
        return _WHERE.sub("", _action(a)) == _WHERE.sub("", _action(b)) and targets[0] == targets[1]
    return _action(a) == _action(b)


def same_page(a: dict | None, b: dict | None) -> bool:
    """Both steps were taken on the same page (host, path and query of its address; not the #fragment)."""
    return a is not None and b is not None and _page(a) == _page(b)


def branch_point(run_a: dict, run_b: dict) -> tuple[int, int] | None:
    """``(parent, step)`` when one run branched from the other: which of the two is the parent (0 for `run_a`,
    1 for `run_b`) and the parent's step the branch goes on from (its step 1 is that step); else None."""
    for parent, (p, b) in enumerate(((run_a, run_b), (run_b, run_a))):
        if b.get("parent_run") == p["id"] and b.get("parent_step"):
            return parent, int(b["parent_step"])
    return None


def align_branch(parent: list[dict], branch: list[dict], at: int) -> list[tuple[int | None, int | None]]:
    """Pairs of indexes into `parent` and `branch` (a run branched from `parent` at its step `at`), by step
    number: the parent's steps before `at` alone (the prelude both share, which the branch did not record), then
    the parent's step ``at + j - 1`` beside the branch's step j (None where one run has no such step)."""
    by_parent = {s["step"]: i for i, s in enumerate(parent)}
    by_branch = {s["step"]: i for i, s in enumerate(branch)}
    pairs: list[tuple[int | None, int | None]] = [(i, None) for i, s in enumerate(parent) if s["step"] < at]
    last = max([s["step"] for s in parent] + [at + s["step"] - 1 for s in branch], default=0)
    for n in range(at, last + 1):
        pair = (by_parent.get(n), by_branch.get(n - at + 1))
        if pair != (None, None):
            pairs.append(pair)
    return pairs
