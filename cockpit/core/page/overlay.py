"""Draw Set-of-Mark boxes and number labels over a clean screenshot (Pillow).

Black boxes and labels by default: the WebVoyager paper found one dark colour
planned better than many colours. Labels are placed so they do not cover each
other, nor another element's box: each label tries a few spots around its box
and takes the first free one, checked against a coarse grid of labels already
placed and of the other boxes (on a dense form, a label above its field would
sit on the row above, and a person at the gate read "6" as that row's number:
walkthrough 8; it goes inside its own box's corner instead).
"""
from __future__ import annotations

import dataclasses
import functools
import io

from PIL import Image, ImageDraw, ImageFont

from cockpit.core.page.marks import Mark

_CELL = 32


@functools.cache
def font(size: int):
    """Pillow's built-in font at `size` pixels (Pillow 10.1 or later), made once per size."""
    return ImageFont.load_default(size=size)


@functools.cache
def _label_image(text: str, size: int, fg: str, bg: str) -> Image.Image:
    face = font(size)
    l, t, r, b = face.getbbox(text)
    pad = 2
    img = Image.new("RGB", (r - l + 2 * pad, size + 2 * pad), bg)
    ImageDraw.Draw(img).text((pad - l, pad + (size - (b - t)) // 2 - t), text, fill=fg, font=face)
    return img


class _Placed:
    """Rectangles already taken by labels, bucketed in a grid."""

    def __init__(self):
        self.cells: dict[tuple[int, int], list[tuple[int, int, int, int]]] = {}

    def _keys(self, r):
        for cx in range(r[0] // _CELL, r[2] // _CELL + 1):
            for cy in range(r[1] // _CELL, r[3] // _CELL + 1):
                yield cx, cy

    def free(self, r, own=None) -> bool:
        """Whether rectangle `r` overlaps none placed (but `own`, the label's own box)."""
        for k in self._keys(r):
            for o in self.cells.get(k, ()):
                if o != own and r[0] < o[2] and o[0] < r[2] and r[1] < o[3] and o[1] < r[3]:
                    return False
        return True

    def add(self, r):
        for k in self._keys(r):
            self.cells.setdefault(k, []).append(r)


def _spots(x, y, w, h, lw, lh):
    yield x, y - lh            # above, left-aligned (outside the box)
    yield x, y                 # inside, top-left
    yield x - lw, y            # left of the box
    yield x + w - lw, y - lh   # above, right-aligned
    yield x + w - lw, y        # inside, top-right
    yield x, y + h             # below
    yield x + w, y             # right of the box
    yield x, y + h - lh        # inside, bottom-left


def draw_marks(screenshot: Image.Image | bytes, marks: list[Mark], *, color: str = "black",
               label_fg: str = "white", width: int = 2, font_size: int = 12,
               highlight: int | None = None, scale: float = 1.0) -> Image.Image:
    """A copy of `screenshot` with every mark's box and number drawn on it. `scale`: screenshot pixels per
    CSS pixel of the marks' boxes (the device scale factor times the zoom; 1 usually)."""
    img = Image.open(io.BytesIO(screenshot)) if isinstance(screenshot, bytes) else screenshot
    img = img.convert("RGB")
    W, H = img.size
    if scale != 1.0:
        marks = [dataclasses.replace(m, bbox=tuple(int(round(v * scale)) for v in m.bbox)) for m in marks]
        width, font_size = max(1, round(width * scale)), max(8, round(font_size * scale))
    draw = ImageDraw.Draw(img)
    placed, boxes = _Placed(), _Placed()
    for m in marks:
        x, y, w, h = m.bbox
        draw.rectangle([x, y, x + w - 1, y + h - 1], outline=color, width=width)
        if w > 0 and h > 0:
            boxes.add((x, y, x + w, y + h))
    for m in marks:
        x, y, w, h = m.bbox
        lab = _label_image(str(m.id), font_size, label_fg, color)
        lw, lh = lab.size
        chosen, own = None, (x, y, x + w, y + h)
        for strict in (True, False):  # off every other box if it can be; else only off other labels
            for sx, sy in _spots(x, y, w, h, lw, lh):
                r = (sx, sy, sx + lw, sy + lh)
                if sx >= 0 and sy >= 0 and r[2] <= W and r[3] <= H and placed.free(r) and \
                        (not strict or boxes.free(r, own)):
                    chosen = r
                    break
            if chosen is not None:
                break
        if chosen is None:  # everything taken: inside top-left, clamped to the image
            sx, sy = min(max(0, x), W - lw), min(max(0, y), H - lh)
            chosen = (sx, sy, sx + lw, sy + lh)
        placed.add(chosen)
        img.paste(lab, chosen[:2])
    if highlight is not None and 1 <= highlight <= len(marks):
        x, y, w, h = marks[highlight - 1].bbox
        draw.rectangle([x - 2, y - 2, x + w + 1, y + h + 1], outline="#e0115f", width=3)
    return img
