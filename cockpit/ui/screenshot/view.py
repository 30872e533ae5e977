"""The live screenshot pane: a clean screenshot with the Set-of-Mark boxes as a Qt overlay.

The image is the CLEAN screenshot (no boxes baked in, unlike the PNG the model gets from
:mod:`cockpit.core.page.overlay`); every mark is a box item plus a number label drawn over it,
so the boxes can be toggled, hovered, clicked, highlighted and flagged without redrawing
the image.

What this widget must NOT do: it never talks to the browser, the agent or the run store,
and it never decides anything. It only shows the data it is given (PNG bytes, marks,
highlight, flags, human-added boxes) and reports what the human did through signals:

* ``markClicked(int)``   -- a box was clicked (press and release within a few pixels);
* ``rectDrawn(tuple)``   -- in add-mark mode, a rectangle ``(x, y, w, h)`` in image pixels;
* ``markHovered(object)``-- the Mark under the mouse, or None when it leaves all boxes;
* ``addModeChanged(bool)`` -- add-mark mode was switched (also when Esc leaves it);
* ``pointClicked(tuple)`` -- a click on no box, or an Alt+click anywhere: the point ``(x, y)`` in image
  pixels (for take-over at a point and "the click should have been here").

Mouse and keys: see :mod:`.gestures` (hover, click, pan, drawing) and :mod:`.zoom` (the view's ``zoom``).

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

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QImage, QPainter, QPixmap, QTransform
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsItem,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QLabel,
    QToolTip,
)

from cockpit.core.page.marks import Mark
from cockpit.ui.screenshot.correction_overlay import CorrectionOverlay
from cockpit.ui.screenshot.gestures import ViewGestures
from cockpit.ui.screenshot.marks import (
    BOX_COLOR,
    HOVER_FILL,
    Z_HIGHLIGHT,
    Z_MARKS,
    Z_PIXMAP,
    MarkLabel,
    make_pen,
    mark_tooltip,
    place_labels,
    render_label,
)
from cockpit.ui.screenshot.pointer import PointerMarker
from cockpit.ui.screenshot.zoom import ViewZoom

__all__ = ["ScreenshotView", "INVALID_MESSAGE"]

INVALID_MESSAGE = "screenshot could not be shown"


class ScreenshotView(QGraphicsView):
    """A zoomable, pannable screenshot with clickable, hoverable Set-of-Mark boxes.

    Keys: ``+``/``=`` zoom in, ``-`` zoom out, ``0`` fit, ``1`` 100 %, Esc cancels add-mark
    drawing (or leaves add-mark mode). Ctrl+wheel zooms under the mouse. See the module
    docstring for the rest.

    Built from parts it owns, each keeping its own state: :class:`.zoom.ViewZoom` (fit and
    zoom, the keys and Ctrl+wheel), :class:`.gestures.ViewGestures` (hover, click, pan,
    add-mark drawing, Esc), :class:`.pointer.PointerMarker` and
    :class:`.correction_overlay.CorrectionOverlay` (spurious flags, added boxes). The
    first two filter the view's events, ask it through its public methods and report
    through signals, which the view passes on as its own.
    """

    markClicked = Signal(int)
    rectDrawn = Signal(tuple)
    markHovered = Signal(object)
    addModeChanged = Signal(bool)
    pointClicked = Signal(tuple)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.zoom = ViewZoom(self)
        self.zoom.relayout.connect(self._layout_labels)
        self._gestures = ViewGestures(self)
        g = self._gestures
        g.hoverChanged.connect(self._paint_hover)
        for mine, theirs in ((self.markClicked, g.markClicked), (self.rectDrawn, g.rectDrawn),
                             (self.markHovered, g.markHovered), (self.addModeChanged, g.addModeChanged),
                             (self.pointClicked, g.pointClicked)):
            theirs.connect(mine)
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

        self._pen_box = make_pen(BOX_COLOR, 2)
        self._no_brush = QBrush(Qt.NoBrush)
        self._hover_brush = QBrush(HOVER_FILL)
        self._pointer = PointerMarker(self._scene)  # a pixel action's crosshair, drag arrow, resolved box
        self._corrections = CorrectionOverlay(self._scene, self._label_pixmap)  # spurious flags, added boxes

        self._reset_state()
        self._marks_visible = True
        self.clear()

    # ---------------------------------------------------------------- state

    def _reset_state(self) -> None:
        self._pixmap_item: QGraphicsPixmapItem | None = None
        self._layer: QGraphicsRectItem | None = None
        self._marks: list[Mark] = []
        self._by_id: dict[int, int] = {}  # mark id -> index in _marks
        self._boxes: list[QGraphicsRectItem] = []
        self._labels: list[MarkLabel] = []
        self._hits: list[tuple[float, float, float, float, int]] = []  # x0,y0,x1,y1,index
        self._hl_id: int | None = None
        self._hl_color = "#e53935"
        self._hl_box: QGraphicsRectItem | None = None
        self._hl_label: MarkLabel | None = None
        self._pointer.forget()  # the scene is cleared with its items
        self._corrections.forget()
        self._size = (0, 0)
        self.zoom.reset()

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
        keep = keep_view and self._pixmap_item is not None and not self.zoom.is_fitted()
        transform = QTransform(self.transform())
        hval, vval = self.horizontalScrollBar().value(), self.verticalScrollBar().value()
        marks_visible = self._marks_visible

        self.zoom.stop()
        QToolTip.hideText()
        had_hover = self._gestures.reset()
        self._scene.clear()
        self._reset_state()
        self._marks_visible = marks_visible
        self._message.hide()

        self._size = (pix.width(), pix.height())
        self._pixmap_item = self._scene.addPixmap(pix)
        self._pixmap_item.setZValue(Z_PIXMAP)
        self._pixmap_item.setTransformationMode(Qt.SmoothTransformation)
        self._scene.setSceneRect(QRectF(0, 0, pix.width(), pix.height()))

        self._add_marks(marks)

        if keep:
            self.zoom.restore(transform, hval, vval)
            self._layout_labels()
        else:
            self.zoom.fit()  # lays the labels out
        if had_hover:
            self.markHovered.emit(None)
        self._gestures.update_cursor()

    def _add_marks(self, marks: list[Mark]) -> None:
        """The marks layer of a new screenshot: a box and a numbered label per mark (set_screenshot)."""
        layer = QGraphicsRectItem()
        layer.setFlag(QGraphicsItem.ItemHasNoContents, True)
        layer.setZValue(Z_MARKS)
        self._scene.addItem(layer)
        self._layer = layer

        self._marks = list(marks or [])
        pen, pixmap, bg = self._pen_box, self._label_pixmap, BOX_COLOR
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
            labels.append(MarkLabel(t, pixmap(t, bg), layer))
        layer.setVisible(self._marks_visible)

    def clear(self, message: str = "") -> None:
        """No screenshot: an empty pane with `message` centred in it."""
        self.zoom.stop()
        had_hover = self._gestures.reset()
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
        hovered = self._gestures.hovered()
        if not self._marks_visible and hovered is not None and hovered.id != self._hl_id:
            self._gestures.set_hovered(None)

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
        box.setPen(make_pen(qc, 4))
        box.setZValue(Z_HIGHLIGHT)
        self._scene.addItem(box)
        self._hl_box = box
        lab = MarkLabel(str(m.id), self._label_pixmap(str(m.id), qc), box)
        lab.item.setZValue(1)
        self._hl_label = lab
        lab.item.setPos(self._labels[self._by_id[mark_id]].item.pos())

    def set_pointer(self, action, pointer: dict | None = None, color: str = "#e53935") -> None:
        """Mark where a pixel action acted: a crosshair at its point, an arrow to a drag's end,
        and the resolved element's box (``pointer["resolved"]["box"]``), all in `color`.

        `action` is the action text (or an Action); a mark action, None or text that does not
        parse draws nothing. Points are viewport CSS pixels, scaled to the image by
        ``pointer["frame"]`` (see :mod:`.pointer`). Forgotten by set_screenshot.
        """
        self._pointer.draw(None if self._pixmap_item is None else action, pointer, self._size, color)

    def pointer_marker(self) -> QGraphicsItem | None:
        """The crosshair drawn by set_pointer (its pos() is the point in image pixels), or None."""
        return self._pointer.marker()

    def highlighted(self) -> int | None:
        """The highlighted mark id, or None."""
        return self._hl_id

    def highlight_visible(self) -> bool:
        return self._hl_box is not None and self._hl_box.isVisible()

    def set_flagged(self, spurious: set[int]) -> None:
        """Draw the boxes in `spurious` (mark ids) dashed and grey; the others normally."""
        self._corrections.set_flagged(spurious, self._by_id, self._boxes, self._labels)

    def flagged(self) -> set[int]:
        return self._corrections.flagged()

    def set_extra_boxes(self, boxes: list[tuple[tuple[int, int, int, int], str]]) -> None:
        """Draw human-added marks: ``[((x, y, w, h), label), ...]``, green and dashed."""
        self._corrections.set_extra_boxes(boxes, self._layer)
        if self._layer is not None:
            self._layout_labels()

    def extra_box_count(self) -> int:
        return self._corrections.extra_box_count()

    def set_add_mode(self, on: bool) -> None:
        """Add-mark mode: a left-drag draws a rectangle (emits rectDrawn); Esc cancels."""
        self._gestures.set_add_mode(on)

    def add_mode(self) -> bool:
        return self._gestures.add_mode()

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

    def usable_mark_at(self, view_pos: QPoint) -> Mark | None:
        """The mark under a viewport position that the user can see and use: with the marks
        hidden, only the highlighted box."""
        if self._pixmap_item is None:
            return None
        p = self.image_point(view_pos)
        if self._marks_visible:
            return self.mark_at(p.x(), p.y())
        if self._hl_id is not None:  # only the highlighted box is shown
            m = self._marks[self._by_id[self._hl_id]]
            x, y, w, h = m.bbox
            if x <= p.x() < x + w and y <= p.y() < y + h:
                return m
        return None

    def on_image(self, point: QPointF) -> bool:
        """Whether image point `point` lies on the shown image."""
        return self._pixmap_item is not None and self._pixmap_item.contains(point)

    def hover_tooltip(self) -> str:
        """The plain-text tooltip of the hovered mark ('' when none)."""
        hovered = self._gestures.hovered()
        return "" if hovered is None else mark_tooltip(hovered)

    # ---------------------------------------------------------------- Qt events

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._message.setGeometry(self.viewport().rect())
        self.zoom.refit()

    # ---------------------------------------------------------------- internals

    def _set_hovered(self, mark: Mark | None) -> None:
        self._gestures.set_hovered(mark)

    def _show_tooltip(self, global_pos: QPoint) -> None:
        self._gestures.show_tooltip(global_pos)

    def _paint_hover(self, old: Mark | None, new: Mark | None) -> None:
        """Fill the hovered box (and the highlight, when it is that mark); clear the one before."""
        for mark, brush in ((old, self._no_brush), (new, self._hover_brush)):
            i = None if mark is None else self._by_id.get(mark.id)
            if i is not None and i < len(self._boxes):
                self._boxes[i].setBrush(brush)
        if self._hl_box is not None:
            on = new is not None and new.id == self._hl_id
            self._hl_box.setBrush(self._hover_brush if on else self._no_brush)

    def _label_pixmap(self, text: str, bg: QColor) -> QPixmap:
        return render_label(text, bg, self._font, self._fm, self.devicePixelRatioF() or 1.0)

    def _layout_labels(self) -> None:
        """Place every label at the first free spot around its box, in screen pixels
        (see :func:`.marks.place_labels`)."""
        if self._pixmap_item is None:
            return
        z = self.zoom.zoom_factor() or 1.0
        entries = [(lab, m.bbox) for lab, m in zip(self._labels, self._marks)]
        entries += self._corrections.extra_labels()
        place_labels(entries, z, self._size)
        if self._hl_label is not None and self._hl_id in self._by_id:
            self._hl_label.item.setPos(self._labels[self._by_id[self._hl_id]].item.pos())
