"""Which coordinate space explains where a model pointed: for the pointing check.

Given the points a model wrote for targets whose true centres (viewport CSS pixels) are known, each
*reading* of them (a coordinate space, a Qwen pixel budget, a device scale) puts them somewhere on the
page. :func:`explain` reads them in the space Cockpit is set to, and in every other one it knows, and
names the reading that puts them nearest their targets, with the settings that make Cockpit read them
so (``fix``: ``{"coords": "norm1000"}``, ``{"qwen_max_pixels": 1003520}``, ``{"device_scale_factor": 1}``).
The mistakes it tells apart are the ones users of these models report: points in 0..1000 read as pixels
(or the other way), a Qwen grid made with another pixel budget than Cockpit assumes, and screenshot
(device) pixels taken for page (CSS) pixels. Pure arithmetic.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace

from cockpit.core.actions.coords import (
    QWEN_BUDGET,
    QWEN_FACTOR,
    QWEN_MIN_PIXELS,
    Frame,
    describe,
    sent_size,
)

#: Qwen max_pixels budgets seen in serving configurations (n x 28 x 28): tried first, and named when one fits.
COMMON_MAX_PIXELS = tuple(k * QWEN_FACTOR * QWEN_FACTOR for k in (16384, 1280, 1024, 2048, 4096, 2560, 512, 256,
                                                                     1536, 6144, 8192, 768, 3072, 12800))
#: Device scale factors a model's points may assume.
SCALES = (1.0, 1.5, 2.0, 3.0)


@dataclass(frozen=True)
class Reading:
    """One way of reading the model's points: in `space`, against `frame`; `fix`: the settings that make
    Cockpit read them so (empty for the current reading)."""
    words: str
    space: str
    frame: Frame
    fix: dict = field(default_factory=dict)
    errors: tuple = ()  # per target: the distance (CSS px) from its centre of where the point lands, or None

    @property
    def measured(self) -> list[float]:
        return [e for e in self.errors if e is not None]

    @property
    def median(self) -> float:
        return statistics.median(self.measured) if self.measured else math.inf

    @property
    def worst(self) -> float:
        return max(self.measured) if self.measured else math.inf


def landed(point, space: str, frame: Frame) -> tuple[float, float]:
    """Where a model point in `space` lands on the page (viewport CSS pixels, unrounded, off-screen too)."""
    mw, mh = frame.model_size(space)
    vw, vh = frame.viewport
    return point[0] * vw / mw, point[1] * vh / mh


def scored(reading: Reading, points: list, centres: list) -> Reading:
    errors = tuple(None if p is None else math.dist(landed(p, reading.space, reading.frame), c)
                   for p, c in zip(points, centres, strict=True))
    return replace(reading, errors=errors)


def implied_size(points: list, centres: list, viewport: tuple[int, int]) -> tuple[float, float] | None:
    """The width and height of the space the points fit best (a scale per axis, through the origin)."""
    pairs = [(p, c) for p, c in zip(points, centres, strict=True) if p is not None]
    sx, sy = (sum(c[i] * c[i] for _, c in pairs) for i in (0, 1))
    if not pairs or not sx or not sy:
        return None
    ax = sum(p[0] * c[0] for p, c in pairs) / sx
    ay = sum(p[1] * c[1] for p, c in pairs) / sy
    return ax * viewport[0], ay * viewport[1]


def _qwen_words(frame: Frame) -> str:
    w, h = frame.qwen_grid()
    lo, hi = frame.qwen_pixels
    budget = "the model card's budget" if (lo, hi) == QWEN_BUDGET else f"max_pixels {hi:,}" + (
        f", min_pixels {lo:,}" if lo != QWEN_MIN_PIXELS else "")
    return f"Qwen's {w}x{h} grid ({budget})"


def _budget_fix(lo: int, hi: int) -> dict:
    return {"coords": "qwen", "qwen_min_pixels": None if lo == QWEN_BUDGET[0] else lo,
            "qwen_max_pixels": None if hi == QWEN_BUDGET[1] else hi}


def readings(frame: Frame, scale: float, implied: tuple[float, float] | None) -> list[Reading]:
    """Every reading the check tries: the spaces, Qwen grids of common budgets (and of the budget that gives the
    grid nearest the points' `implied` size), and screenshot pixels at other device scales."""
    out = [Reading(f"pixels of the {frame.image[0]}x{frame.image[1]} screenshot", "pixels", frame,
                   {"coords": "pixels"}),
           Reading("0..1000 on both axes", "norm1000", frame, {"coords": "norm1000"}),
           Reading("0..1 on both axes", "norm1", frame, {"coords": "norm1"})]
    budgets = [QWEN_BUDGET, tuple(frame.qwen_pixels)] + [(QWEN_MIN_PIXELS, m) for m in COMMON_MAX_PIXELS]
    if implied is not None:
        budgets.append(nearest_budget(frame, implied))
    for lo, hi in dict.fromkeys(tuple(b) for b in budgets):
        qf = replace(frame, qwen_pixels=(lo, hi))
        out.append(Reading(_qwen_words(qf), "qwen", qf, _budget_fix(lo, hi)))
    for s in SCALES:
        size = sent_size(frame.viewport, s)
        if size != tuple(frame.image) and abs(s - scale) > 1e-6:
            out.append(Reading(f"pixels of a {size[0]}x{size[1]} screenshot (device scale {s:g})", "pixels",
                               replace(frame, image=size), {"coords": "pixels", "device_scale_factor": s,
                                                            "image_max_width": None}))
    return out


def nearest_budget(frame: Frame, implied: tuple[float, float]) -> tuple[int, int]:
    """The Qwen budget whose grid for this screenshot is nearest `implied` (a common one when it gives that grid)."""
    best, best_err = QWEN_BUDGET, math.inf
    tried = [(QWEN_MIN_PIXELS, m) for m in COMMON_MAX_PIXELS]
    tried += [(QWEN_MIN_PIXELS, k * QWEN_FACTOR * QWEN_FACTOR) for k in range(4, 16385)]
    tried += [(k * QWEN_FACTOR * QWEN_FACTOR, QWEN_BUDGET[1]) for k in range(4, 16385, 4)]
    for lo, hi in tried:
        if lo > hi:
            continue
        w, h = replace(frame, qwen_pixels=(lo, hi)).qwen_grid()
        err = abs(w - implied[0]) + abs(h - implied[1])
        if err < best_err - 1e-9:
            best, best_err = (lo, hi), err
    return best


@dataclass
class Explanation:
    current: Reading  # the reading Cockpit is set to, scored
    best: Reading  # the reading that puts the points nearest their targets (may be the current one)
    implied: tuple[float, float] | None  # the size of the space the points fit
    tried: list[Reading]

    @property
    def fits(self) -> bool:
        """The current reading is as good as any: the setting is right (the model's aim is another matter)."""
        return self.best is self.current or self.current.median <= max(2.0, self.best.median * 1.5)


def explain(points: list, centres: list, space: str, frame: Frame, scale: float = 1.0) -> Explanation:
    """Score the current reading (`space`, `frame`) and every other; the best is the one with the smallest
    median distance from the targets' centres."""
    implied = implied_size(points, centres, frame.viewport)
    current = scored(Reading(f"{describe(space, frame)}", space, frame), points, centres)
    tried = [scored(r, points, centres) for r in readings(frame, scale, implied)]
    best = min([current] + tried, key=lambda r: (r.median, r.worst))
    return Explanation(current, best, implied, tried)
