"""Where a pixel action acted, drawn over the screenshot (see :mod:`.view`).

A pixel action (``Click (600, 475)``, ``Drag (x1, y1) to (x2, y2)``, ...) has no mark to
highlight: the pane draws a crosshair at its point (a line with an arrowhead to the end of
a drag) and the box of the element found there (``pointer["resolved"]["box"]``), in the
acted-on box's colour. Points and boxes are viewport CSS pixels; the screenshot may be
larger (device scale 2), so they are scaled by image width / viewport width
(``pointer["frame"]``); with no frame, 1.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainterPath
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsPathItem, QGraphicsRectItem

from cockpit.core.actions.grammar import parse_action
from cockpit.core.errors import ActionParseError
from cockpit.ui.screenshot.marks import Z_HIGHLIGHT, make_pen

CROSS = 12  # crosshair arm, screen px
RING = 6  # crosshair ring radius, screen px


def image_scale(pointer: dict | None, image_size: tuple[int, int]) -> float:
    """Image pixels per viewport CSS pixel for the shown screenshot: its width over the step's viewport
    (2 at device scale 2); 1 when the step records no frame. (The frame's own image size is the one sent
    to the model, which may be downscaled: the stored screenshot is not.)"""
    frame = (pointer or {}).get("frame") or {} if isinstance(pointer, dict) else {}
    try:
        vw, iw = float((frame.get("viewport") or [0])[0]), float(image_size[0])
    except (TypeError, ValueError, IndexError):
        return 1.0
    return iw / vw if vw > 0 and iw > 0 else 1.0


def css_point(point: tuple, pointer: dict | None, image_size: tuple[int, int]) -> tuple[int, int]:
    """An image point of the shown screenshot as a viewport CSS point (what actions and corrections use)."""
    scale = image_scale(pointer, image_size)
    return int(round(point[0] / scale)), int(round(point[1] / scale))


def pointer_geometry(action, pointer: dict | None, image_size: tuple[int, int]):
    """``(point, end, box)`` in image pixels for a pixel action (str or Action), or None.

    `end` is a drag's end point (else None); `box` the resolved element's ``(x, y, w, h)`` (or None).
    """
    if isinstance(action, str):
        try:
            action = parse_action(action)
        except (ActionParseError, ValueError):
            return None
    if action is None or getattr(action, "point", None) is None:
        return None
    pointer = pointer if isinstance(pointer, dict) else {}
    scale = image_scale(pointer, image_size)
    point = (action.point[0] * scale, action.point[1] * scale)
    end = (action.end[0] * scale, action.end[1] * scale) if action.end else None
    box = None
    resolved = pointer.get("resolved") or {}
    raw = resolved.get("box") if isinstance(resolved, dict) else None
    if raw and len(raw) == 4:
        try:
            box = tuple(float(v) * scale for v in raw)
        except (TypeError, ValueError):
            box = None
    return point, end, box


def pointer_items(point, end, box, color: str) -> list[QGraphicsItem]:
    """The items to add to the scene: crosshair (always first), drag line and arrowhead, box."""
    qc = QColor(color)
    pen = make_pen(qc, 2)
    cross = QPainterPath()
    cross.moveTo(-CROSS, 0)
    cross.lineTo(CROSS, 0)
    cross.moveTo(0, -CROSS)
    cross.lineTo(0, CROSS)
    cross.addEllipse(QPointF(0, 0), RING, RING)
    c = QGraphicsPathItem(cross)
    c.setPen(pen)
    c.setFlag(QGraphicsItem.ItemIgnoresTransformations, True)  # the same size at every zoom
    c.setPos(QPointF(*point))
    c.setData(0, "crosshair")
    items: list[QGraphicsItem] = [c]
    if end is not None:
        line = QGraphicsLineItem(point[0], point[1], end[0], end[1])
        line.setPen(pen)
        line.setData(0, "drag")
        head = QPainterPath()
        head.moveTo(-CROSS, -RING)
        head.lineTo(0, 0)
        head.lineTo(-CROSS, RING)
        arrow = QGraphicsPathItem(head)
        arrow.setPen(pen)
        arrow.setFlag(QGraphicsItem.ItemIgnoresTransformations, True)
        arrow.setPos(QPointF(*end))
        arrow.setRotation(math.degrees(math.atan2(end[1] - point[1], end[0] - point[0])))
        arrow.setData(0, "arrow")
        items += [line, arrow]
    if box is not None:
        r = QGraphicsRectItem(QRectF(*box))
        r.setPen(make_pen(qc, 3))
        r.setData(0, "resolved")
        items.append(r)
    return items


class PointerMarker:
    """The items drawn over one scene for where a pixel action acted (``ScreenshotView.set_pointer``)."""

    def __init__(self, scene):
        self._scene = scene
        self._items: list[QGraphicsItem] = []

    def forget(self) -> None:
        """The scene was cleared (and its items with it)."""
        self._items = []

    def draw(self, action, pointer: dict | None, image_size: tuple[int, int], color: str) -> None:
        """Remove what was drawn; draw `action`'s crosshair, drag arrow and resolved box (None: nothing)."""
        for item in self._items:
            self._scene.removeItem(item)
        self._items = []
        geo = None if action is None else pointer_geometry(action, pointer, image_size)
        if geo is None:
            return
        for item in pointer_items(*geo, color):
            item.setZValue(Z_HIGHLIGHT + 1)
            self._scene.addItem(item)
            self._items.append(item)

    def marker(self) -> QGraphicsItem | None:
        """The crosshair (its pos() is the point in image pixels), or None."""
        return self._items[0] if self._items else None
