"""Coordinate spaces: where a pixel-grounded model's point lands on the page.

A model that acts at a point answers in the coordinates of what it was shown,
in one of these spaces:

    pixels     pixels of the screenshot as sent to the model (after any resizing Cockpit did)
    norm1000   0..1000 across the screenshot, both axes (UI-TARS 1.5 / Qwen3-VL style)
    norm1      0..1 across the screenshot, both axes
    qwen       Qwen2.5-VL's own grid: the image resized to multiples of 28 within a pixel budget
               (its processor's ``smart_resize``); the model's prompt states that size

The browser is driven in viewport CSS pixels. A :class:`Frame` holds both
sizes: the viewport's CSS size (``window.innerWidth`` x ``innerHeight``, which
already accounts for browser zoom) and the image's pixel size as sent (device
pixels x any downscaling). :func:`to_viewport` maps a model point to the page;
:func:`to_model` is its inverse (the scripted model server answers with it).
Pure arithmetic: no browser, no image.
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


@dataclass(frozen=True)
class Frame:
    """What the model was shown, and the page it stands for."""
    viewport: tuple[int, int]  # CSS pixels (innerWidth, innerHeight)
    image: tuple[int, int]  # pixels of the screenshot as sent to the model

    def model_size(self, space: str) -> tuple[float, float]:
        """The model's coordinate range (width, height) in `space`."""
        if space == "pixels":
            return self.image
        if space == "norm1000":
            return 1000, 1000
        if space == "norm1":
            return 1, 1
        if space == "qwen":
            h, w = smart_resize(self.image[1], self.image[0])
            return w, h
        raise ValueError(f"unknown coordinate space {space!r}; one of {', '.join(SPACES)}")

    def to_dict(self) -> dict:
        return {"viewport": list(self.viewport), "image": list(self.image)}


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


def _n(v: float) -> str:
    return str(int(v)) if float(v) == int(v) else f"{v:g}"
