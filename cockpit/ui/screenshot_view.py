"""The live screenshot pane: a clean screenshot with the Set-of-Mark boxes as a Qt overlay.

The image is the CLEAN screenshot (no boxes baked in, unlike the PNG the model gets from
:mod:`cockpit.core.overlay`); every mark is a box item plus a number label drawn over it,
so the boxes can be toggled, hovered, clicked, highlighted and flagged without redrawing
the image.

What this widget must NOT do: it never talks to the browser, the agent or the run store,
and it never decides anything. It only shows the data it is given (PNG bytes, marks,
highlight, flags, human-added boxes) and reports what the human did through signals:

* ``markClicked(int)``   -- a box was clicked (press and release within a few pixels);
* ``rectDrawn(tuple)``   -- in add-mark mode, a rectangle ``(x, y, w, h)`` in image pixels;
* ``markHovered(object)``-- the Mark under the mouse, or None when it leaves all boxes;
* ``addModeChanged(bool)`` -- add-mark mode was switched (also when Esc leaves it).

Mouse and keys:

* Ctrl+wheel zooms around the point under the mouse; the plain wheel scrolls.
* ``+`` / ``=`` zoom in, ``-`` zooms out, ``0`` fits the image to the pane, ``1`` is 100 %.
* Left-drag where there is no box pans (so does a middle-button drag anywhere); a left
  click on a box emits ``markClicked``. A press on a box that then moves more than a few
  pixels turns into a pan, not a click.
* In add-mark mode (crosshair cursor) a left-drag draws a rectangle and emits
  ``rectDrawn`` on release; Esc cancels the rectangle being drawn, or, with none being
  drawn, leaves add-mark mode.

Decisions:

* Boxes use cosmetic pens (constant screen width at every zoom). Labels ignore the view
  transform, so their text is always the same readable size; they are re-placed after
  each zoom so they do not cover each other (each label tries a few spots around its box
  and takes the first one free, checked against a coarse grid, in screen pixels).
* "Fit" scales the whole image into the pane (it may enlarge a small image). While the
  user has not zoomed by hand, resizing the pane keeps it fitted.
* When marks are hidden, the highlighted box (and its label) stays visible and is the
  only box that can be hovered or clicked. Human-added boxes are marks too: they hide
  with the others.
* :meth:`set_screenshot` forgets the highlight, the spurious flags and the human-added
  boxes: they referred to the previous marks. Set them again after it.
* Hover tooltips never show the value of a secret (password / card) field.
"""
from __future__ import annotations

import html
import math

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (QBrush, QColor, QCursor, QFont, QFontMetrics, QPainter, QPen,
                           QImage, QPixmap, QTransform)
from PySide6.QtWidgets import (QFrame, QGraphicsItem, QGraphicsPixmapItem, QGraphicsRectItem,
                               QGraphicsScene, QGraphicsView, QLabel,
                               QToolTip)

from cockpit.core.marks import Mark

__all__ = ["ScreenshotView", "mark_tooltip", "INVALID_MESSAGE"]

INVALID_MESSAGE = "screenshot could not be shown"

_MIN_ZOOM = 0.05
_MAX_ZOOM = 16.0
_ZOOM_STEP = 1.25
_CLICK_SLOP = 4  # px a press may move and still count as a click
_CELL = 32  # grid cell (screen px) for label placement

_BOX_COLOR = QColor("black")
_LABEL_FG = QColor("white")
_FLAG_COLOR = QColor(150, 150, 150)
_EXTRA_COLOR = QColor("#2e7d32")
_HOVER_FILL = QColor(33, 150, 243, 45)

# Label pixmaps by (text, background rgba, device pixel ratio), shared by all views.
_PIXMAPS: dict[tuple[str, int, float], QPixmap] = {}

_Z_PIXMAP, _Z_MARKS, _Z_HIGHLIGHT, _Z_RUBBER = 0, 1, 10, 20
_Z_BOX, _Z_LABEL = 0, 1  # inside the marks layer


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


def _pen(color: QColor, width: float, dashed: bool = False) -> QPen:
    pen = QPen(color, width)
    pen.setCosmetic(True)  # same width on screen at every zoom
    pen.setJoinStyle(Qt.MiterJoin)
    if dashed:
        pen.setStyle(Qt.DashLine)
    return pen


class _Label:
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


class ScreenshotView(QGraphicsView):
    """A zoomable, pannable screenshot with clickable, hoverable Set-of-Mark boxes.

    Keys: ``+``/``=`` zoom in, ``-`` zoom out, ``0`` fit, ``1`` 100 %, Esc cancels add-mark
    drawing (or leaves add-mark mode). Ctrl+wheel zooms under the mouse. See the module
    docstring for the rest.
    """

    markClicked = Signal(int)
    rectDrawn = Signal(tuple)
    markHovered = Signal(object)
    addModeChanged = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._scene = QGraphicsScene(self)
        # Items are few kinds and we hit-test marks ourselves; a BSP index would only cost
        # time on every set_screenshot.
        self._scene.setItemIndexMethod(QGraphicsScene.NoIndex)
        self.setScene(self._scene)
        self.setRenderHint(QPainter.SmoothPixmapTransform, True)
        # Cosmetic pens and transform-ignoring labels reach outside their scene bounding
        # rects at some zooms; repainting the whole viewport leaves no trails.
        self.setViewportUpdateMode(QGraphicsView.FullViewportUpdate)
        self.setTransformationAnchor(QGraphicsView.NoAnchor)
        self.setResizeAnchor(QGraphicsView.AnchorViewCenter)
        self.setDragMode(QGraphicsView.NoDrag)
        self.setInteractive(False)  # we handle the mouse ourselves
        self.setFrameShape(QFrame.NoFrame)
        self.setFocusPolicy(Qt.StrongFocus)
        self.setBackgroundBrush(QColor(60, 60, 60))
        self.viewport().setMouseTracking(True)

        self._font = QFont()
        self._font.setPixelSize(11)
        self._font.setBold(True)
        self._fm = QFontMetrics(self._font)

        self._message = QLabel(self.viewport())
        self._message.setAlignment(Qt.AlignCenter)
        self._message.setWordWrap(True)
        self._message.setAttribute(Qt.WA_TransparentForMouseEvents, True)
        self._message.setStyleSheet("color: #dddddd; font-size: 14px;")

        self._relayout_timer = QTimer(self)
        self._relayout_timer.setSingleShot(True)
        self._relayout_timer.setInterval(30)
        self._relayout_timer.timeout.connect(self._layout_labels)

        self._pen_box = _pen(_BOX_COLOR, 2)
        self._pen_flag = _pen(_FLAG_COLOR, 1.5, dashed=True)
        self._pen_extra = _pen(_EXTRA_COLOR, 2, dashed=True)
        self._no_brush = QBrush(Qt.NoBrush)
        self._hover_brush = QBrush(_HOVER_FILL)

        self._reset_state()
        self._marks_visible = True
        self._add_mode = False
        self.clear()

    # ---------------------------------------------------------------- state

    def _reset_state(self) -> None:
        self._pixmap_item: QGraphicsPixmapItem | None = None
        self._layer: QGraphicsRectItem | None = None
        self._marks: list[Mark] = []
        self._by_id: dict[int, int] = {}  # mark id -> index in _marks
        self._boxes: list[QGraphicsRectItem] = []
        self._labels: list[_Label] = []
        self._hits: list[tuple[float, float, float, float, int]] = []  # x0,y0,x1,y1,index
        self._extra_items: list[QGraphicsRectItem] = []
        self._extra_labels: list[tuple[_Label, tuple[int, int, int, int]]] = []
        self._flagged: set[int] = set()
        self._hl_id: int | None = None
        self._hl_color = "#e53935"
        self._hl_box: QGraphicsRectItem | None = None
        self._hl_label: _Label | None = None
        self._hovered: int | None = None  # index in _marks
        self._size = (0, 0)
        self._fit_mode = True
        # mouse gesture
        self._press_pos: QPoint | None = None
        self._press_mark: int | None = None  # mark id pressed on (click candidate)
        self._panning = False
        self._pan_origin = (0, 0)
        self._rubber: QGraphicsRectItem | None = None
        self._rubber_start: QPointF | None = None

    # ---------------------------------------------------------------- public API

    def set_screenshot(self, png: bytes | QImage, marks: list[Mark], *, keep_view: bool = False) -> None:
        """Show `png` with `marks` as boxes. Fits to the pane unless `keep_view`.

        `png` may be an already decoded QImage (decoded off the GUI thread, which
        keeps the window responsive while runs go).

        Forgets the highlight, spurious flags and human-added boxes (they belong to the
        previous marks). An empty or unreadable PNG shows "screenshot could not be shown".
        """
        if isinstance(png, QImage):
            pix = QPixmap.fromImage(png)
            ok = not pix.isNull()
        else:
            pix = QPixmap()
            ok = bool(png) and pix.loadFromData(png) and not pix.isNull()
        if not ok:
            self.clear(INVALID_MESSAGE)
            return
        keep = keep_view and self._pixmap_item is not None and not self._fit_mode
        transform = QTransform(self.transform())
        hval, vval = self.horizontalScrollBar().value(), self.verticalScrollBar().value()
        marks_visible = self._marks_visible

        self._relayout_timer.stop()
        QToolTip.hideText()
        had_hover = self._hovered is not None
        self._clear_rubber()
        self._scene.clear()
        self._reset_state()
        self._marks_visible = marks_visible
        self._message.hide()

        self._size = (pix.width(), pix.height())
        self._pixmap_item = self._scene.addPixmap(pix)
        self._pixmap_item.setZValue(_Z_PIXMAP)
        self._pixmap_item.setTransformationMode(Qt.SmoothTransformation)
        self._scene.setSceneRect(QRectF(0, 0, pix.width(), pix.height()))

        layer = QGraphicsRectItem()
        layer.setFlag(QGraphicsItem.ItemHasNoContents, True)
        layer.setZValue(_Z_MARKS)
        self._scene.addItem(layer)
        self._layer = layer

        self._marks = list(marks or [])
        pen, pixmap, bg = self._pen_box, self._label_pixmap, _BOX_COLOR
        by_id, boxes, labels, hits = self._by_id, self._boxes, self._labels, self._hits
        # Boxes first, then labels: siblings of equal Z stack in insertion order, so every
        # label is above every box without a Z value per item.
        for i, m in enumerate(self._marks):
            x, y, w, h = m.bbox
            by_id[m.id] = i
            box = QGraphicsRectItem(x, y, w, h, layer)
            box.setPen(pen)
            boxes.append(box)
            if w > 0 and h > 0:
                hits.append((x, y, x + w, y + h, i))
        for m in self._marks:
            t = str(m.id)
            labels.append(_Label(t, pixmap(t, bg), layer))
        layer.setVisible(self._marks_visible)

        if keep:
            self._fit_mode = False
            self.setTransform(transform)
            self.horizontalScrollBar().setValue(hval)
            self.verticalScrollBar().setValue(vval)
            self._layout_labels()
        else:
            self.fit()  # lays the labels out
        if had_hover:
            self.markHovered.emit(None)
        self._update_cursor()

    def clear(self, message: str = "") -> None:
        """No screenshot: an empty pane with `message` centred in it."""
        self._relayout_timer.stop()
        had_hover = getattr(self, "_hovered", None) is not None
        self._clear_rubber()
        self._scene.clear()
        self._reset_state()
        self._scene.setSceneRect(QRectF(0, 0, 1, 1))
        self.resetTransform()
        self._message.setText(message)
        self._message.setGeometry(self.viewport().rect())
        self._message.setVisible(bool(message))
        if had_hover:
            QToolTip.hideText()
            self.markHovered.emit(None)

    def message(self) -> str:
        """The message shown instead of a screenshot ('' when a screenshot is shown)."""
        if self._pixmap_item is not None:
            return ""
        return self._message.text()

    def has_screenshot(self) -> bool:
        return self._pixmap_item is not None

    def marks(self) -> list[Mark]:
        return list(self._marks)

    def image_size(self) -> tuple[int, int]:
        """(width, height) of the shown image in pixels; (0, 0) with none."""
        return self._size

    def set_marks_visible(self, on: bool) -> None:
        self._marks_visible = bool(on)
        if self._layer is not None:
            self._layer.setVisible(self._marks_visible)
        if not self._marks_visible and self._hovered is not None and \
                self._marks[self._hovered].id != self._hl_id:
            self._set_hovered(None)

    def marks_visible(self) -> bool:
        return self._marks_visible

    def visible_mark_ids(self) -> list[int]:
        """Ids of the marks whose boxes are drawn now (for tests and status text)."""
        if self._layer is None or not self._layer.isVisible():
            return []
        return [m.id for m, box in zip(self._marks, self._boxes) if box.isVisible()]

    def set_highlight(self, mark_id: int | None, color: str = "#e53935") -> None:
        """Draw box `mark_id` thicker, in `color`, on top of the others (None: no highlight).

        The highlight stays visible when the marks are hidden. Unknown ids are ignored.
        """
        if self._hl_box is not None:
            self._scene.removeItem(self._hl_box)  # its label is its child
            self._hl_box = self._hl_label = None
        self._hl_id = None
        if mark_id is None or mark_id not in self._by_id:
            return
        self._hl_id = mark_id
        self._hl_color = color
        m = self._marks[self._by_id[mark_id]]
        x, y, w, h = m.bbox
        qc = QColor(color)
        box = QGraphicsRectItem(x, y, w, h)
        box.setPen(_pen(qc, 4))
        box.setZValue(_Z_HIGHLIGHT)
        self._scene.addItem(box)
        self._hl_box = box
        lab = _Label(str(m.id), self._label_pixmap(str(m.id), qc), box)
        lab.item.setZValue(1)
        self._hl_label = lab
        lab.item.setPos(self._labels[self._by_id[mark_id]].item.pos())

    def highlighted(self) -> int | None:
        """The highlighted mark id, or None."""
        return self._hl_id

    def highlight_visible(self) -> bool:
        return self._hl_box is not None and self._hl_box.isVisible()

    def set_flagged(self, spurious: set[int]) -> None:
        """Draw the boxes in `spurious` (mark ids) dashed and grey; the others normally."""
        new = set(spurious or ())
        for mid in self._flagged ^ new:
            i = self._by_id.get(mid)
            if i is None:
                continue
            if mid in new:
                self._boxes[i].setPen(self._pen_flag)
                lab = self._labels[i]
                lab.item.setPixmap(self._label_pixmap(lab.text, _FLAG_COLOR))
            else:
                self._boxes[i].setPen(self._pen_box)
                lab = self._labels[i]
                lab.item.setPixmap(self._label_pixmap(lab.text, _BOX_COLOR))
        self._flagged = {mid for mid in new if mid in self._by_id}

    def flagged(self) -> set[int]:
        return set(self._flagged)

    def set_extra_boxes(self, boxes: list[tuple[tuple[int, int, int, int], str]]) -> None:
        """Draw human-added marks: ``[((x, y, w, h), label), ...]``, green and dashed."""
        for item in self._extra_items:
            self._scene.removeItem(item)
        for lab, _ in self._extra_labels:
            self._scene.removeItem(lab.item)
        self._extra_items, self._extra_labels = [], []
        if self._layer is None:
            return
        for bbox, text in boxes or ():
            x, y, w, h = (int(v) for v in bbox)
            box = QGraphicsRectItem(x, y, w, h, self._layer)
            box.setPen(self._pen_extra)
            box.setZValue(_Z_BOX)
            self._extra_items.append(box)
            lab = _Label(str(text), self._label_pixmap(str(text), _EXTRA_COLOR), self._layer)
            lab.item.setZValue(_Z_LABEL)
            self._extra_labels.append((lab, (x, y, w, h)))
        self._layout_labels()

    def extra_box_count(self) -> int:
        return len(self._extra_items)

    def set_add_mode(self, on: bool) -> None:
        """Add-mark mode: a left-drag draws a rectangle (emits rectDrawn); Esc cancels."""
        on = bool(on)
        if on == self._add_mode:
            return
        self._add_mode = on
        self._clear_rubber()
        if on:
            self._set_hovered(None)
        self._update_cursor()
        self.addModeChanged.emit(on)

    def add_mode(self) -> bool:
        return self._add_mode

    def fit(self) -> None:
        """Fit the whole image into the pane; it stays fitted when the pane is resized."""
        self._fit(relayout=True)

    def _fit(self, relayout: bool) -> None:
        self._fit_mode = True
        if self._pixmap_item is None:
            return
        self.resetTransform()
        self.fitInView(self._scene.sceneRect(), Qt.KeepAspectRatio)
        z = self.zoom_factor()
        if not (_MIN_ZOOM <= z <= _MAX_ZOOM):
            self.setTransform(QTransform.fromScale(*(2 * [min(max(z, _MIN_ZOOM), _MAX_ZOOM)])))
        if relayout:
            self._relayout_timer.stop()
            self._layout_labels()
        else:
            self._relayout_timer.start()

    def zoom_in(self) -> None:
        self._zoom_by(_ZOOM_STEP)

    def zoom_out(self) -> None:
        self._zoom_by(1 / _ZOOM_STEP)

    def zoom_reset(self) -> None:
        """100 %: one image pixel per screen pixel."""
        self.set_zoom(1.0)

    def set_zoom(self, factor: float, anchor: QPoint | None = None) -> None:
        """Zoom to `factor` (1.0 = 100 %), keeping the scene point at `anchor` (viewport
        coordinates; default the centre) where it is."""
        if self._pixmap_item is None:
            return
        factor = min(max(float(factor), _MIN_ZOOM), _MAX_ZOOM)
        self._fit_mode = False
        if anchor is None:
            anchor = self.viewport().rect().center()
        before = self.mapToScene(anchor)
        self.setTransform(QTransform.fromScale(factor, factor))
        after = self.mapFromScene(before)
        d = after - anchor
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + d.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + d.y())
        self._relayout_timer.start()

    def zoom_factor(self) -> float:
        return self.transform().m11()

    def is_fitted(self) -> bool:
        return self._fit_mode

    def mark_at(self, x: float, y: float) -> Mark | None:
        """The smallest mark whose box contains image point (x, y), or None."""
        best, best_area = None, None
        for x0, y0, x1, y1, i in self._hits:
            if x0 <= x < x1 and y0 <= y < y1:
                area = (x1 - x0) * (y1 - y0)
                if best_area is None or area < best_area:
                    best, best_area = i, area
        return None if best is None else self._marks[best]

    def image_point(self, view_pos: QPoint | QPointF) -> QPointF:
        """Viewport position -> image coordinates."""
        p = view_pos.toPoint() if isinstance(view_pos, QPointF) else view_pos
        return self.mapToScene(p)

    def hover_tooltip(self) -> str:
        """The plain-text tooltip of the hovered mark ('' when none)."""
        return "" if self._hovered is None else mark_tooltip(self._marks[self._hovered])

    # ---------------------------------------------------------------- internals

    def _label_pixmap(self, text: str, bg: QColor) -> QPixmap:
        dpr = self.devicePixelRatioF() or 1.0
        key = (text, bg.rgba(), dpr)
        pm = _PIXMAPS.get(key)
        if pm is None:
            if len(_PIXMAPS) > 20000:
                _PIXMAPS.clear()
            w, h = self._fm.horizontalAdvance(text) + 5, self._fm.height()
            pm = QPixmap(math.ceil(w * dpr), math.ceil(h * dpr))
            pm.setDevicePixelRatio(dpr)
            pm.fill(bg)
            p = QPainter(pm)
            p.setFont(self._font)
            p.setPen(_LABEL_FG)
            p.drawText(QPointF(2.5, self._fm.ascent()), text)  # baseline: no text layout
            p.end()
            _PIXMAPS[key] = pm
        return pm

    def _zoom_by(self, f: float, anchor: QPoint | None = None) -> None:
        self.set_zoom(self.zoom_factor() * f, anchor)

    def _interactive_mark_at(self, view_pos: QPoint) -> Mark | None:
        """The mark under a viewport position that the user can see and use."""
        if self._pixmap_item is None:
            return None
        p = self.mapToScene(view_pos)
        if self._marks_visible:
            return self.mark_at(p.x(), p.y())
        if self._hl_id is not None:  # only the highlighted box is shown
            m = self._marks[self._by_id[self._hl_id]]
            x, y, w, h = m.bbox
            if x <= p.x() < x + w and y <= p.y() < y + h:
                return m
        return None

    def _set_hovered(self, mark: Mark | None) -> None:
        idx = None if mark is None else self._by_id.get(mark.id)
        if idx == self._hovered:
            return
        if self._hovered is not None and self._hovered < len(self._boxes):
            self._boxes[self._hovered].setBrush(self._no_brush)
        if self._hl_box is not None:
            self._hl_box.setBrush(self._no_brush)
        self._hovered = idx
        if idx is not None:
            self._boxes[idx].setBrush(self._hover_brush)
            if self._hl_id == mark.id and self._hl_box is not None:
                self._hl_box.setBrush(self._hover_brush)
            if QToolTip.isVisible():
                self._show_tooltip(QCursor.pos())
        else:
            QToolTip.hideText()
        self.markHovered.emit(None if idx is None else self._marks[idx])

    def _show_tooltip(self, global_pos: QPoint) -> None:
        text = self.hover_tooltip()
        if not text:
            QToolTip.hideText()
            return
        rich = "<p style='white-space:pre'>" + html.escape(text) + "</p>"
        QToolTip.showText(global_pos, rich, self.viewport())

    def _layout_labels(self) -> None:
        """Place every label at the first free spot around its box, in screen pixels.

        Spots, in order: above the box, inside its top-left corner, left of it, above and
        inside its right end, below, right of it, inside bottom-left. A spot is free when
        it stays inside the image and covers no label placed before (coarse grid).
        """
        if self._pixmap_item is None:
            return
        z = self.zoom_factor() or 1.0
        W, H = self._size[0] * z, self._size[1] * z
        cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
        get = cells.get
        entries = [(lab, m.bbox) for lab, m in zip(self._labels, self._marks)]
        entries += self._extra_labels
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
        if self._hl_label is not None and self._hl_id in self._by_id:
            self._hl_label.item.setPos(self._labels[self._by_id[self._hl_id]].item.pos())

    def _clear_rubber(self) -> None:
        if getattr(self, "_rubber", None) is not None:
            if self._rubber.scene() is self._scene:
                self._scene.removeItem(self._rubber)
            self._rubber = None
        self._rubber_start = None

    def _clamp_to_image(self, p: QPointF) -> QPointF:
        w, h = self._size
        return QPointF(min(max(p.x(), 0.0), float(w)), min(max(p.y(), 0.0), float(h)))

    def _update_cursor(self, view_pos: QPoint | None = None) -> None:
        vp = self.viewport()
        if self._panning:
            vp.setCursor(Qt.ClosedHandCursor)
        elif self._add_mode:
            vp.setCursor(Qt.CrossCursor)
        elif self._pixmap_item is None:
            vp.unsetCursor()
        elif view_pos is not None and self._interactive_mark_at(view_pos) is not None:
            vp.setCursor(Qt.PointingHandCursor)
        else:
            vp.setCursor(Qt.OpenHandCursor)

    def _start_pan(self, pos: QPoint) -> None:
        self._panning = True
        self._press_mark = None
        self._press_pos = pos
        self._pan_origin = (self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        self._update_cursor()

    # ---------------------------------------------------------------- events

    def mousePressEvent(self, event):
        pos = event.position().toPoint()
        self.setFocus(Qt.MouseFocusReason)
        if self._pixmap_item is None:
            return
        if event.button() == Qt.MiddleButton:
            self._start_pan(pos)
            event.accept()
            return
        if event.button() != Qt.LeftButton:
            super().mousePressEvent(event)
            return
        if self._add_mode:
            self._clear_rubber()
            start = self._clamp_to_image(self.mapToScene(pos))
            self._rubber_start = start
            r = QGraphicsRectItem(QRectF(start, start))
            r.setPen(_pen(_EXTRA_COLOR, 2, dashed=True))
            r.setBrush(QColor(46, 125, 50, 40))
            r.setZValue(_Z_RUBBER)
            self._scene.addItem(r)
            self._rubber = r
            event.accept()
            return
        m = self._interactive_mark_at(pos)
        self._press_pos = pos
        if m is not None:
            self._press_mark = m.id
        else:
            self._start_pan(pos)
        event.accept()

    def mouseMoveEvent(self, event):
        pos = event.position().toPoint()
        if self._rubber is not None and self._rubber_start is not None:
            end = self._clamp_to_image(self.mapToScene(pos))
            self._rubber.setRect(QRectF(self._rubber_start, end).normalized())
            event.accept()
            return
        if self._press_mark is not None and self._press_pos is not None:
            if (pos - self._press_pos).manhattanLength() > _CLICK_SLOP:
                origin = self._press_pos
                self._start_pan(origin)  # the press became a drag: pan from where it began
        if self._panning and self._press_pos is not None:
            d = pos - self._press_pos
            self.horizontalScrollBar().setValue(self._pan_origin[0] - d.x())
            self.verticalScrollBar().setValue(self._pan_origin[1] - d.y())
            event.accept()
            return
        if not self._add_mode and self._press_pos is None:
            self._set_hovered(self._interactive_mark_at(pos))
            self._update_cursor(pos)
        event.accept()

    def mouseReleaseEvent(self, event):
        pos = event.position().toPoint()
        if self._rubber is not None and self._rubber_start is not None and \
                event.button() == Qt.LeftButton:
            end = self._clamp_to_image(self.mapToScene(pos))
            r = QRectF(self._rubber_start, end).normalized()
            self._clear_rubber()
            x, y = round(r.x()), round(r.y())
            w, h = round(r.right()) - x, round(r.bottom()) - y
            if w >= 2 and h >= 2:
                self.rectDrawn.emit((x, y, w, h))
            event.accept()
            return
        clicked = self._press_mark if event.button() == Qt.LeftButton else None
        was_panning = self._panning
        self._press_mark = None
        self._press_pos = None
        self._panning = False
        if clicked is not None and not was_panning:
            self.markClicked.emit(clicked)
        if self._pixmap_item is not None and not self._add_mode:
            self._set_hovered(self._interactive_mark_at(pos))
        self._update_cursor(pos)
        event.accept()

    def mouseDoubleClickEvent(self, event):
        self.mousePressEvent(event)  # treat as a second press: no special meaning

    def wheelEvent(self, event):
        if event.modifiers() & Qt.ControlModifier and self._pixmap_item is not None:
            dy = event.angleDelta().y() or event.angleDelta().x()
            if dy:
                self._zoom_by(_ZOOM_STEP ** (dy / 120.0), event.position().toPoint())
            event.accept()
            return
        super().wheelEvent(event)

    def keyPressEvent(self, event):
        key = event.key()
        if key == Qt.Key_Escape and self._add_mode:
            if self._rubber is not None:
                self._clear_rubber()
            else:
                self.set_add_mode(False)
            event.accept()
            return
        if self._pixmap_item is not None and not event.modifiers() & Qt.AltModifier:
            if key in (Qt.Key_Plus, Qt.Key_Equal):
                self.zoom_in()
            elif key == Qt.Key_Minus:
                self.zoom_out()
            elif key == Qt.Key_0:
                self.fit()
            elif key == Qt.Key_1:
                self.zoom_reset()
            else:
                super().keyPressEvent(event)
                return
            event.accept()
            return
        super().keyPressEvent(event)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._message.setGeometry(self.viewport().rect())
        if self._fit_mode and self._pixmap_item is not None:
            self._fit(relayout=False)  # labels follow once resizing pauses

    def viewportEvent(self, event):
        t = event.type()
        if t == QEvent.ToolTip:
            if self._hovered is not None:
                self._show_tooltip(event.globalPos())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        if t == QEvent.Leave:
            if self._press_pos is None:
                self._set_hovered(None)
        return super().viewportEvent(event)
