"""Paint over what is typed in card / one-time-code fields, before a screenshot is kept or sent.

The text a user or the agent types into a secret field (see ``Mark.secret``)
is kept out of every text record; the pixels would still show it. Password
fields need nothing (the browser draws dots), but a card number typed into an
``autocomplete="cc-number"`` field is drawn in plain digits. :func:`mask` paints
each such field's box with a plain fill and the word "(secret)", on the clean
screenshot, before the overlay is drawn; :func:`cockpit.core.page.observation.observe`
calls it, so every consumer gets the masked pixels.
"""
from __future__ import annotations

from PIL import Image, ImageDraw

from cockpit.core.page.marks import Mark
from cockpit.core.page.overlay import font

FILL = (224, 224, 224)  # light grey, unlike any field's white
INK = (64, 64, 64)      # the word
WORD = "(secret)"  # as typed secrets read in the step log


def boxes(marks: list[Mark], extra=()) -> list[tuple[int, int, int, int]]:
    """The boxes whose pixels show a secret: filled secret fields the browser does not draw as dots, plus
    `extra` (the marking script's ``secret_boxes``: disabled card fields, which are not marked)."""
    found = [tuple(m.bbox) for m in marks if m.secret and m.filled and m.type != "password"]
    return found + [tuple(int(v) for v in b) for b in extra if len(b) == 4]


def mask(image: Image.Image, boxes) -> int:
    """Paint each [x, y, w, h] box (clipped to `image`) in place; returns how many boxes were painted."""
    W, H = image.size
    draw = ImageDraw.Draw(image)
    painted = 0
    for x, y, w, h in boxes:
        x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
        if x1 <= x0 or y1 <= y0:
            continue
        draw.rectangle([x0, y0, x1 - 1, y1 - 1], fill=FILL)
        _label(draw, x0, y0, x1, y1)
        painted += 1
    return painted


def _label(draw: ImageDraw.ImageDraw, x0: int, y0: int, x1: int, y1: int) -> None:
    """The word "(secret)", left-aligned and centred vertically, when it fits the box."""
    size = min(14, y1 - y0 - 4)
    if size < 8:
        return
    face = font(size)
    l, t, r, b = face.getbbox(WORD)
    if r - l + 8 > x1 - x0:
        return
    draw.text((x0 + 4 - l, y0 + (y1 - y0 - (b - t)) // 2 - t), WORD, fill=INK, font=face)
