"""Coordinate spaces: where a pixel-grounded model's point lands on the page.

A model that acts at a point answers in the coordinates of what it was shown,
in one of these spaces:

    pixels     pixels of the screenshot as sent to the model (after any resizing Cockpit did)
    norm1000   0..1000 across the screenshot, both axes (UI-TARS 1.5 / Qwen3-VL style)
    norm1      0..1 across the screenshot, both axes
    qwen       Qwen2.5-VL's own grid: the image resized to multiples of 28 within a pixel budget
               (its processor's ``smart_resize``; min/max pixels as the server was started with, the
               model card's by default); the model's prompt states that size

The browser is driven in viewport CSS pixels. A :class:`Frame` holds both
sizes: the viewport's CSS size (``window.innerWidth`` x ``innerHeight``, which
already accounts for browser zoom) and the image's pixel size as sent (device
pixels x any downscaling), and the Qwen pixel budget. :func:`to_viewport` maps a
model point to the page; :func:`to_model` is its inverse (the scripted model
server answers with it). A :class:`Voice` names points in words: to the person
in viewport CSS pixels, to the model in its own space (with the very numbers it
wrote). Pure arithmetic: no browser, no image.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from cockpit.core.actions.grammar import Action
from cockpit.core.errors import ActionError

SPACES = ("pixels", "norm1000", "norm1", "qwen")

#: Qwen2.5-VL's image processor: sides are multiples of 28 (14-px patches merged 2x2), within these pixel counts.
QWEN_FACTOR = 28
QWEN_MIN_PIXELS = 56 * 56  # its image processor's defaults (UI-TARS-1.5's parser: the same maximum)
QWEN_MAX_PIXELS = 16384 * 28 * 28
QWEN_BUDGET = (QWEN_MIN_PIXELS, QWEN_MAX_PIXELS)


class PointOutside(ActionError):
    """The model's point is not on the screenshot: nothing is done, and the model is told why."""


def smart_resize(height: int, width: int, factor: int = QWEN_FACTOR, min_pixels: int = QWEN_MIN_PIXELS,
                 max_pixels: int = QWEN_MAX_PIXELS) -> tuple[int, int]:
    """(height, width) of the grid Qwen2.5-VL's processor resizes an image to, as its model card describes:
    each side rounded to a multiple of `factor`, then scaled down (or up) to fit the pixel budget."""
    h = max(factor, round(height / factor) * factor)
    w = max(factor, round(width / factor) * factor)
    if h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h = max(factor, math.floor(height / beta / factor) * factor)
        w = max(factor, math.floor(width / beta / factor) * factor)
    elif h * w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h = math.ceil(height * beta / factor) * factor
        w = math.ceil(width * beta / factor) * factor
    return h, w


def budget(min_pixels: int | None = None, max_pixels: int | None = None) -> tuple[int, int]:
    """A Qwen pixel budget (min, max), the model card's for what is not given; ValueError when min > max."""
    lo, hi = min_pixels or QWEN_MIN_PIXELS, max_pixels or QWEN_MAX_PIXELS
    if lo > hi:
        raise ValueError(f"the Qwen min pixels ({lo:,}) are more than its max pixels ({hi:,})")
    return lo, hi


def sent_size(viewport: tuple[int, int], scale: float = 1.0, max_width: int | None = None) -> tuple[int, int]:
    """The size of the screenshot a model is sent: the viewport at the device scale, then downscaled to
    `max_width` (the image max width) when wider."""
    w, h = int(viewport[0] * scale), int(viewport[1] * scale)
    if max_width and w > max_width:
        w, h = max_width, max(1, round(h * max_width / w))
    return w, h


@dataclass(frozen=True)
class Frame:
    """What the model was shown, and the page it stands for."""
    viewport: tuple[int, int]  # CSS pixels (innerWidth, innerHeight)
    image: tuple[int, int]  # pixels of the screenshot as sent to the model
    qwen_pixels: tuple[int, int] = QWEN_BUDGET  # (min, max) pixels of the Qwen processor, for the qwen space

    @classmethod
    def from_dict(cls, d: dict | None, qwen_pixels: tuple[int, int] = QWEN_BUDGET) -> "Frame":
        """A frame as recorded (``pointer["frame"]``); `qwen_pixels` when the record names no budget."""
        d = d or {}
        viewport = tuple(d.get("viewport") or (1024, 768))
        budget_ = d.get("qwen_pixels")
        return cls(viewport, tuple(d.get("image") or viewport), tuple(budget_) if budget_ else tuple(qwen_pixels))

    def qwen_grid(self) -> tuple[int, int]:
        """(width, height) of the grid a Qwen processor with this budget resizes the image to."""
        h, w = smart_resize(self.image[1], self.image[0], min_pixels=self.qwen_pixels[0],
                            max_pixels=self.qwen_pixels[1])
        return w, h

    def model_size(self, space: str) -> tuple[float, float]:
        """The model's coordinate range (width, height) in `space`."""
        if space == "pixels":
            return self.image
        if space == "norm1000":
            return 1000, 1000
        if space == "norm1":
            return 1, 1
        if space == "qwen":
            return self.qwen_grid()
        raise ValueError(f"unknown coordinate space {space!r}; one of {', '.join(SPACES)}")

    def to_dict(self) -> dict:
        d = {"viewport": list(self.viewport), "image": list(self.image)}
        if tuple(self.qwen_pixels) != QWEN_BUDGET:  # the model card's budget is not written (records stay as they were)
            d["qwen_pixels"] = list(self.qwen_pixels)
        return d


def to_viewport(point: tuple, space: str, frame: Frame) -> tuple[int, int]:
    """The viewport CSS pixel a model's point in `space` stands for (rounded to the nearest pixel).

    Raises PointOutside when it is off the screenshot."""
    mw, mh = frame.model_size(space)
    x, y = float(point[0]), float(point[1])
    if not (0 <= x < mw or (space in ("norm1000", "norm1") and x == mw)) or \
            not (0 <= y < mh or (space in ("norm1000", "norm1") and y == mh)):
        raise PointOutside(
            f"the point ({_n(x)}, {_n(y)}) is outside the screenshot, which spans 0..{_n(mw)} across and "
            f"0..{_n(mh)} down in {describe(space, frame)}; nothing was done. Give a point on the screenshot")
    vw, vh = frame.viewport
    return min(vw - 1, int(math.floor(x * vw / mw + 0.5))), min(vh - 1, int(math.floor(y * vh / mh + 0.5)))


def to_model(point: tuple, space: str, frame: Frame) -> tuple:
    """A viewport CSS point in the model's `space`: integers, except in norm1 (three decimals)."""
    mw, mh = frame.model_size(space)
    vw, vh = frame.viewport
    x, y = point[0] * mw / vw, point[1] * mh / vh
    if space == "norm1":
        return round(x, 3), round(y, 3)
    return int(math.floor(x + 0.5)), int(math.floor(y + 0.5))


def place(action: Action, space: str, frame: Frame) -> Action:
    """`action` with its points in viewport CSS pixels (a scroll with no point: the viewport's middle).
    Wheel deltas are wheel pixels and stay as they are. Mark actions come back unchanged."""
    if action.point is None and not (action.kind == "scroll" and action.delta is not None):
        return action
    if action.point is None:  # a wheel turned with no point: over the middle of the viewport
        point = frame.viewport[0] // 2, frame.viewport[1] // 2
    else:
        point = to_viewport(action.point, space, frame)
    end = to_viewport(action.end, space, frame) if action.end is not None else None
    return dataclasses.replace(action, point=point, end=end)


def describe(space: str, frame: Frame) -> str:
    """The space in words, for the model's prompt and error messages."""
    mw, mh = frame.model_size(space)
    return {"pixels": f"pixels of the {mw}x{mh} screenshot",
            "norm1000": "coordinates normalised to 0..1000",
            "norm1": "coordinates normalised to 0..1",
            "qwen": f"pixels of the {mw}x{mh} image the model sees"}[space]


def size_words(space: str, frame: Frame) -> str:
    """The one size the model's coordinates are in, as its prompt states it: '1036x756' (Qwen's grid),
    '1024x768' (the screenshot's pixels), '1000x1000' (normalised)."""
    mw, mh = frame.model_size(space)
    return f"{_n(mw)}x{_n(mh)}"


@dataclass(frozen=True)
class Voice:
    """How text names points: to the person in viewport CSS pixels (the default, ``space`` empty), or to the
    model in its own coordinate space.

    ``said`` pairs a viewport point with the model's own numbers for it, for the points the model gave: the
    model reads back exactly what it wrote, not what the viewport's rounding makes of it. Other points (a
    human's, a wheel's middle) are converted with :func:`to_model`."""
    space: str = ""
    frame: Frame | None = None
    said: tuple = ()  # ((viewport point, model point), ...)

    @classmethod
    def of(cls, model_action: Action | None, placed: Action | None, space: str, frame: Frame) -> "Voice":
        """The model's voice for an action it wrote (`model_action`, its space) that became `placed` (viewport)."""
        pairs = []
        if model_action is not None and placed is not None:
            for a, b in ((placed.point, model_action.point), (placed.end, model_action.end)):
                if a is not None and b is not None:
                    pairs.append((tuple(a), tuple(b)))
        return cls(space, frame, tuple(pairs))

    @property
    def person(self) -> bool:
        return not self.space or self.frame is None

    def point(self, p) -> tuple:
        """Viewport point `p` in this voice's coordinates."""
        if self.person:
            return tuple(p)
        p = tuple(int(v) for v in p)
        return next((m for v, m in self.said if v == p), None) or to_model(p, self.space, self.frame)

    def xy(self, p) -> str:
        """'x, y' of viewport point `p` in this voice."""
        q = self.point(p)
        return f"{_n(q[0])}, {_n(q[1])}"

    def action(self, a: Action) -> str:
        """`a` (viewport points) as text, its points in this voice."""
        if self.person or (a.point is None and a.end is None):
            return str(a)
        return str(dataclasses.replace(a, point=self.point(a.point) if a.point is not None else None,
                                       end=self.point(a.end) if a.end is not None else None))

    def area(self, size) -> str:
        """What a point must be inside: 'the 1024x768 viewport', or the screenshot in the model's words."""
        if self.person:
            return f"the {size[0]}x{size[1]} viewport"
        mw, mh = self.frame.model_size(self.space)
        return f"the screenshot (0..{_n(mw)} across, 0..{_n(mh)} down in {describe(self.space, self.frame)})"


PERSON = Voice()


def _n(v: float) -> str:
    return str(int(v)) if float(v) == int(v) else f"{v:g}"
