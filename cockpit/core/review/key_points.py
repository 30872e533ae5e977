"""A run's key points for Review: typed for its task (:mod:`cockpit.core.store.key_points`), else those
WebJudge's first stage wrote for this run (its newest judgement), one per line, numbering and bullets taken
off; else none. What the ticks suggest (a verdict; the annotators' majority on each point) is worked out here too."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from cockpit.core.review.webjudge_prompt import parse_key_points
from cockpit.core.store import judge_stages
from cockpit.core.store import key_points as KP
from cockpit.core.store.db import Store

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\(\d+\))\s*")


@dataclass
class KeyPoints:
    points: list[str]
    source: str  # "typed", "WebJudge (<judge>)", or "" when there are none


def split_points(text: str) -> list[str]:
    """Key points written as lines ("1. Find the store", "- 90028"), as WebJudge lists them."""
    return [p for p in (_BULLET.sub("", line).strip() for line in (text or "").splitlines()) if p]


def of_run(store: Store, run: dict) -> KeyPoints:
    typed = KP.typed(store, KP.task_key(run))
    if typed:
        return KeyPoints(typed, "typed")
    stages = [s for s in judge_stages.of(store, run["id"]) if s["stage"] == "key_points" and s["reply"]]
    if stages:
        newest = max(stages, key=lambda s: s["created"] or 0)
        text, note = parse_key_points(newest["reply"])
        points = split_points(text)
        if points:  # a reply with no list is used whole (as the published script does), and said to be (walkthrough 6)
            warn = "; no 'Key Points' heading in its reply, used whole: K types better ones" if note else ""
            return KeyPoints(points, f"WebJudge ({newest['judge']}){warn}")
    return KeyPoints([], "")


def suggested_verdict(met: int, total: int) -> str | None:
    """What the ticks suggest: success when every key point is met, fail when any is not; None without points."""
    if total <= 0:
        return None
    return "success" if met >= total else "fail"


def majority(points: list[str], ticks: dict[str, dict[int, int]], voters: int) -> dict[int, int | None]:
    """The annotators' majority on each key point: the step most of the tickers named, or None (not met)."""
    out: dict[int, int | None] = {}
    for i in range(len(points)):
        steps = [t[i] for t in ticks.values() if i in t]
        if steps and 2 * len(steps) > voters:
            counts = Counter(steps)
            out[i] = min(counts, key=lambda s: (-counts[s], s))
        else:
            out[i] = None
    return out


def suggestion_text(met: int, total: int) -> str:
    """"3 of 4 key points met: suggests failure" ('' without key points). The annotator still decides."""
    verdict = suggested_verdict(met, total)
    if verdict is None:
        return ""
    return f"{met} of {total} key points met: suggests {'success' if verdict == 'success' else 'failure'}"
