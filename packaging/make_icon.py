"""Draw Cockpit's app icon (a dashboard gauge) with Pillow and write every format the builds use.

    .venv/bin/python packaging/make_icon.py

Writes into cockpit/resources/icons/: cockpit-<size>.png for 16..512,
cockpit.ico (Windows, all sizes up to 256 in one file) and cockpit.icns
(macOS). The files are committed; run this again only to change the design.
Each size is drawn large and scaled down; the small sizes get a simpler
drawing (no ticks, thicker strokes) so they stay readable in a task bar.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "cockpit" / "resources" / "icons"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_SIZES = (16, 32, 64, 128, 256, 512)

BACKGROUND = (24, 38, 56)
RIM = (70, 96, 128)
ZONES = ((150, 270, (67, 181, 129)),   # calm: green, from lower left to the top
         (270, 330, (240, 176, 32)),   # careful: amber
         (330, 390, (229, 57, 53)))    # ask first: red, down to lower right
NEEDLE = (250, 250, 250)
NEEDLE_ANGLE = 312  # degrees, clockwise from 3 o'clock (Pillow's convention): in the amber zone


def draw(size: int) -> Image.Image:
    """The icon at `size` pixels, drawn at 1024 and scaled down."""
    big = 1024
    simple = size <= 32
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    pad = 24 if simple else 40
    d.rounded_rectangle((pad, pad, big - pad, big - pad), radius=200, fill=BACKGROUND,
                        outline=RIM, width=0 if simple else 16)
    cx, cy = big / 2, big * 0.56
    r = big * (0.40 if simple else 0.36)
    width = int(big * (0.16 if simple else 0.10))
    box = (cx - r, cy - r, cx + r, cy + r)
    for start, end, color in ZONES:
        d.arc(box, start, end, fill=color, width=width)
    if not simple:
        for a in range(150, 391, 30):  # ticks just inside the arc
            t = math.radians(a)
            r1, r2 = r - width - 18, r - width - 70
            d.line((cx + r1 * math.cos(t), cy + r1 * math.sin(t), cx + r2 * math.cos(t), cy + r2 * math.sin(t)),
                   fill=(200, 212, 228), width=16)
    t = math.radians(NEEDLE_ANGLE)
    length = r - width * (0.6 if simple else 1.0) - (0 if simple else 40)
    tip = (cx + length * math.cos(t), cy + length * math.sin(t))
    base = big * (0.07 if simple else 0.045)
    n = (-math.sin(t) * base, math.cos(t) * base)  # perpendicular: the needle's half width at the hub
    d.polygon([tip, (cx + n[0], cy + n[1]), (cx - n[0], cy - n[1])], fill=NEEDLE)
    hub = big * (0.09 if simple else 0.075)
    d.ellipse((cx - hub, cy - hub, cx + hub, cy + hub), fill=NEEDLE)
    if not simple:
        d.ellipse((cx - hub / 2.5, cy - hub / 2.5, cx + hub / 2.5, cy + hub / 2.5), fill=BACKGROUND)
    return img.resize((size, size), Image.LANCZOS)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    images = {s: draw(s) for s in PNG_SIZES}
    for s, im in images.items():
        im.save(OUT / f"cockpit-{s}.png", optimize=True)
    largest = images[max(ICO_SIZES)]
    largest.save(OUT / "cockpit.ico", sizes=[(s, s) for s in ICO_SIZES],
                 append_images=[images[s] for s in ICO_SIZES if s != max(ICO_SIZES)])
    images[max(ICNS_SIZES)].save(OUT / "cockpit.icns",
                                 append_images=[images[s] for s in ICNS_SIZES if s != max(ICNS_SIZES)])
    print(f"wrote {len(images)} PNGs, cockpit.ico and cockpit.icns to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
