"""Breakpoints: conditions that pause a live run so a human can look.

Checked by the loop at fixed points: before an action runs (action kind,
target text, URL or domain, the approval gate flagging it), after a reply
(unparsable), on a model error, at a step number, and when the loop detector
fires. A hit pauses through RunControl; nothing else changes. The list may be
edited from another thread while a run goes (the GUI does).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlparse

KINDS = {
    "action": "before an action of this kind (click, type, goto, …)",
    "text": "before an action whose target text matches this regex",
    "url": "before an action on a page whose URL or domain matches this regex",
    "flagged": "before an action the approval gate classes as irreversible",
    "unparsable": "after a reply with no usable action",
    "model_error": "when the model call fails (resume retries it)",
    "step": "before step N",
    "loop": "when the same action repeats on an unchanged page, or actions keep doing nothing",
}


@dataclass
class Breakpoint:
    kind: str
    value: str = ""
    enabled: bool = True
    hits: int = 0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown breakpoint kind {self.kind!r}; one of {', '.join(KINDS)}")
        if self.kind in ("text", "url") and self.value:
            re.compile(self.value)
        if self.kind == "step":
            int(self.value)

    def describe(self) -> str:
        return f"{self.kind}" + (f" {self.value}" if self.value else "")


def _match(pattern: str, text: str) -> bool:
    return bool(re.search(pattern, text or "", re.I))


def on_action(bps: list[Breakpoint], *, action, mark, url: str, risk_level: str) -> Breakpoint | None:
    """The first enabled breakpoint that stops before this action, if any."""
    host = urlparse(url).hostname or ""
    label = " ".join(x for x in ((mark.text, mark.aria_label, mark.value, mark.href) if mark else ()) if x)
    for bp in list(bps):
        if not bp.enabled:
            continue
        if ((bp.kind == "action" and action.kind == bp.value.strip().lower())
                or (bp.kind == "text" and mark is not None and _match(bp.value, label))
                or (bp.kind == "url" and (_match(bp.value, url) or _match(bp.value, host)))
                or (bp.kind == "flagged" and risk_level == "irreversible")):
            bp.hits += 1
            return bp
    return None


def first(bps: list[Breakpoint], kind: str, step: int | None = None) -> Breakpoint | None:
    """The first enabled breakpoint of `kind` (for 'step', the one for this step)."""
    for bp in list(bps):
        if bp.enabled and bp.kind == kind and (kind != "step" or int(bp.value) == step):
            bp.hits += 1
            return bp
    return None
