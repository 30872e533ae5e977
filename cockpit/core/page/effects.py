"""What an action changed: URL, marks added and removed, share of pixels changed.

Computed from two observations (before the action and the next one), so it
costs no extra browser call. A step whose action changed nothing is a no-op;
the same action on the same page again and again is a loop, WebVoyager's most
common failure ("navigation stuck"). Pure functions on data.
"""
from __future__ import annotations

import io
from collections import Counter
from dataclasses import asdict, dataclass

from PIL import Image, ImageChops

from cockpit.core.page.marks import Mark
from cockpit.core.page.match import same_url

#: Pixels whose grey level moved by more than this count as changed.
PIXEL_THRESHOLD = 24
#: Below this share of changed pixels (and no URL or marks change) an action did nothing visible.
#: A status word ("in stock", "Added") must count: it changes about 0.08% of the thumbnail.
NOOP_PIXELS = 0.0004  # about 20 pixels of the 256x192 thumbnail: one short word of text
#: This many identical actions in a row on an unchanged page is a loop.
LOOP_REPEATS = 3


@dataclass
class Effect:
    url_changed: bool
    marks_added: int
    marks_removed: int
    pixels_changed: float  # share of the viewport, 0..1
    noop: bool

    def to_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        if self.noop:
            return "no visible effect"
        parts = []
        if self.url_changed:
            parts.append("URL changed")
        if self.marks_added or self.marks_removed:
            parts.append(f"+{self.marks_added}/-{self.marks_removed} marks")
        parts.append(f"{self.pixels_changed:.0%} of pixels changed")
        return ", ".join(parts)


def in_words(effect: dict) -> str:
    """A stored effect (Effect.to_dict) as a newcomer reads it: "page changed a little (1% of pixels), same
    address, same marks"."""
    if effect.get("noop"):
        return "nothing visible changed (same address, same marks)"
    p = effect.get("pixels_changed") or 0.0
    amount = "a little" if p < 0.05 else "in part" if p < 0.4 else "a lot"
    share = "under 1%" if 0 < p < 0.005 else f"{p:.0%}"
    added, removed = effect.get("marks_added") or 0, effect.get("marks_removed") or 0
    marks = ", ".join(x for x in (f"{added} new mark{'s' * (added != 1)}" if added else "",
                                  f"{removed} mark{'s' * (removed != 1)} gone" if removed else "") if x)
    return (f"page changed {amount} ({share} of pixels), "
            f"{'new address' if effect.get('url_changed') else 'same address'}, {marks or 'same marks'}")


def _key(m: Mark) -> tuple:
    # The value is part of it: typing into a field changes the page even when few pixels move.
    return (m.tag, (m.text or m.aria_label or m.placeholder)[:60], m.value[:60])


def marks_delta(before: list[Mark], after: list[Mark]) -> tuple[int, int]:
    """(added, removed) counted over (tag, label) multisets: renumbering is not a change."""
    a, b = Counter(map(_key, before)), Counter(map(_key, after))
    return sum((b - a).values()), sum((a - b).values())


def small(img, size=(256, 192)) -> Image.Image:
    """A small grey copy of a screenshot (image or PNG bytes), for comparing two of them.

    Box-averaged by a whole factor first (under a millisecond for 1024x768, a
    quarter of a plain resize), then resized the rest of the way if needed.
    """
    if not isinstance(img, Image.Image):
        img = Image.open(io.BytesIO(img))
    if img.size == size and img.mode == "L":
        return img
    factor = min(img.width // size[0], img.height // size[1])
    if factor > 1:
        img = img.reduce(factor)
    img = img.convert("L")
    return img if img.size == size else img.resize(size)


def pixel_change(png_a, png_b, size=(256, 192)) -> float:
    """Share of pixels that visibly changed between two screenshots (compared small and grey).

    Takes PNG bytes or already reduced images (Observation.thumb), which saves two decodes a step.
    """
    a, b = small(png_a, size), small(png_b, size)
    diff = ImageChops.difference(a, b).point(lambda v: 255 if v > PIXEL_THRESHOLD else 0)
    return diff.histogram()[255] / (size[0] * size[1])


def effect(url_before: str, marks_before: list[Mark], png_before: bytes,
           url_after: str, marks_after: list[Mark], png_after: bytes) -> Effect:
    added, removed = marks_delta(marks_before, marks_after)
    changed = pixel_change(png_before, png_after)
    url_changed = not same_url(url_before, url_after)
    noop = not url_changed and not added and not removed and changed < NOOP_PIXELS
    return Effect(url_changed, added, removed, round(changed, 4), noop)


def signature(url: str, action: str, target_label: str = "") -> tuple:
    return (url.split("#", 1)[0], action, target_label)


class LoopWatch:
    """Counts repeats of the same action on the same page, and no-ops in a row."""

    def __init__(self, repeats: int = LOOP_REPEATS):
        self.repeats = repeats
        self.last: tuple | None = None
        self.same = 0
        self.noops = 0

    def action(self, sig: tuple) -> int:
        """Record an action; returns how many times in a row it has now been proposed."""
        self.same = self.same + 1 if sig == self.last else 1
        self.last = sig
        return self.same

    def effect(self, e: Effect) -> int:
        self.noops = self.noops + 1 if e.noop else 0
        return self.noops

    @property
    def looping(self) -> bool:
        return self.same >= self.repeats or self.noops >= self.repeats
