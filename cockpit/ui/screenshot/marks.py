"""Drawing pieces of the screenshot pane's Set-of-Mark overlay (see :mod:`.view`).

Colours, Z layers and cosmetic pens for the boxes; the number labels (pre-rendered pixmaps
from a shared cache, and their placement around the boxes so they do not cover each
other); and the hover tooltip text of a mark, which never shows a secret value.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPixmapItem

from cockpit.core.page.marks import Mark

__all__ = ["mark_tooltip"]

_CELL = 32  # grid cell (screen px) for label placement

BOX_COLOR = QColor("black")
_LABEL_FG = QColor("white")
FLAG_COLOR = QColor(150, 150, 150)
EXTRA_COLOR = QColor("#2e7d32")
HOVER_FILL = QColor(33, 150, 243, 45)

# Label pixmaps by (text, background rgba, device pixel ratio), shared by all views.
_PIXMAPS: dict[tuple[str, int, float], QPixmap] = {}

Z_PIXMAP, Z_MARKS, Z_HIGHLIGHT, Z_RUBBER = 0, 1, 10, 20
Z_BOX, Z_LABEL = 0, 1  # inside the marks layer


def _shorten(s: str, n: int = 60) -> str:
    return s if len(s) <= n else s[: n // 2 - 1] + "…" + s[-(n // 2 - 1):]


def mark_tooltip(mark: Mark) -> str:
    """Plain-text description of a mark for the hover tooltip (never a secret value)."""
    kind = mark.tag
    if mark.tag == "input" and mark.type:
        kind = f"input type={mark.type}"
    head = mark.text or mark.aria_label or mark.placeholder
    if not head and not mark.secret:
        head = mark.value
    head = head.replace("\n", " ").strip()
    lines = [f'[{mark.id}] <{kind}> "{_shorten(head, 80)}"']
    if mark.role:
        lines.append(f"role: {mark.role}")
    if mark.aria_label and mark.aria_label != head:
        lines.append(f"aria-label: {_shorten(mark.aria_label, 80)}")
    if mark.placeholder and mark.placeholder != head:
        lines.append(f"placeholder: {_shorten(mark.placeholder, 80)}")
    if mark.href:
        lines.append(f"href: {_shorten(mark.href)}")
    if mark.secret:
        lines.append("value: (secret field, not shown)")
    elif mark.value and mark.value != head:
        lines.append(f"value: {_shorten(mark.value, 80)}")
    flags = [name for name, on in (("editable", mark.editable), ("scrollable", mark.scrollable),
                                   ("in iframe", mark.in_iframe), ("submits form", mark.submit))
             if on]
    if flags:
        lines.append(", ".join(flags))
    if mark.reason:
        lines.append(f"reason: {mark.reason}")
    return "\n".join(lines)


def make_pen(color: QColor, width: float, dashed: bool = False) -> QPen:
    pen = QPen(color, width)
    pen.setCosmetic(True)  # same width on screen at every zoom
    pen.setJoinStyle(Qt.MiterJoin)
    if dashed:
        pen.setStyle(Qt.DashLine)
    return pen


class MarkLabel:
    """A number label: a pre-rendered pixmap item that ignores the view transform.

    The pixmaps come from a cache keyed by (text, colour): ids 1..N recur on every step,
    so after the first screenshot making labels costs one cheap item each.
    """

    __slots__ = ("item", "text", "w", "h")

    def __init__(self, text: str, pixmap: QPixmap, parent: QGraphicsItem | None):
        self.text = text
        self.item = QGraphicsPixmapItem(pixmap, parent)
        self.item.setFlag(QGraphicsItem.ItemIgnoresTransformations, True)
        dpr = pixmap.devicePixelRatio() or 1.0
        self.w = pixmap.width() / dpr
        self.h = pixmap.height() / dpr



def render_label(text: str, bg: QColor, font: QFont, fm: QFontMetrics, dpr: float) -> QPixmap:
    """The label pixmap for `text` on `bg` at `dpr`, from the shared cache."""
    key = (text, bg.rgba(), dpr)
    pm = _PIXMAPS.get(key)
    if pm is None:
        if len(_PIXMAPS) > 20000:
            _PIXMAPS.clear()
        w, h = fm.horizontalAdvance(text) + 5, fm.height()
        pm = QPixmap(math.ceil(w * dpr), math.ceil(h * dpr))
        pm.setDevicePixelRatio(dpr)
        pm.fill(bg)
        p = QPainter(pm)
        p.setFont(font)
        p.setPen(_LABEL_FG)
        p.drawText(QPointF(2.5, fm.ascent()), text)  # baseline: no text layout
        p.end()
        _PIXMAPS[key] = pm
    return pm


def place_labels(entries, z: float, size: tuple[int, int]) -> None:
    """Place each ``(label, (x, y, w, h))`` (box in image pixels) at the first free spot
    around its box, in screen pixels at zoom `z` over an image of `size`.

    Spots, in order: above the box, inside its top-left corner, left of it, above and
    inside its right end, below, right of it, inside bottom-left. A spot is free when
    it stays inside the image and covers no label placed before (coarse grid).
    """
    W, H = size[0] * z, size[1] * z
    cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
    get = cells.get
    for lab, (x, y, w, h) in entries:
        x, y, w, h = x * z, y * z, w * z, h * z
        lw, lh = lab.w, lab.h
        chosen = None
        for sx, sy in ((x, y - lh), (x, y), (x - lw, y), (x + w - lw, y - lh),
                       (x + w - lw, y), (x, y + h), (x + w, y), (x, y + h - lh)):
            ex, ey = sx + lw, sy + lh
            if sx < 0 or sy < 0 or ex > W or ey > H:
                continue
            ok = True
            for cx in range(int(sx) // _CELL, int(ex) // _CELL + 1):
                for cy in range(int(sy) // _CELL, int(ey) // _CELL + 1):
                    for o in get((cx, cy), ()):
                        if sx < o[2] and o[0] < ex and sy < o[3] and o[1] < ey:
                            ok = False
                            break
                    if not ok:
                        break
                if not ok:
                    break
            if ok:
                chosen = (sx, sy, ex, ey)
                break
        if chosen is None:  # all taken: inside top-left, clamped to the image
            sx = min(max(0.0, x), max(0.0, W - lw))
            sy = min(max(0.0, y), max(0.0, H - lh))
            chosen = (sx, sy, sx + lw, sy + lh)
        for cx in range(int(chosen[0]) // _CELL, int(chosen[2]) // _CELL + 1):
            for cy in range(int(chosen[1]) // _CELL, int(chosen[3]) // _CELL + 1):
                cells.setdefault((cx, cy), []).append(chosen)
        lab.item.setPos(chosen[0] / z, chosen[1] / z)
