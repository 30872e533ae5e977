"""The mouse and Esc of the screenshot pane (:class:`.view.ScreenshotView`): hover, click, pan, draw.

A part the view owns. It keeps the gesture in progress (where the press was, on which box,
panning and from where, the rectangle being drawn), the hovered mark and add-mark mode.
It is an event filter on the view's viewport (the mouse, tooltips, leaving) and on the view
(Esc). It asks the view only through public methods (``has_screenshot``, ``usable_mark_at``, ``image_point``, ``image_size``,
``on_image`` and QGraphicsView's own scene, viewport and scroll bars) and reports through
its signals, which the view passes on as its own:

* ``markClicked(int)``, ``pointClicked(tuple)``, ``rectDrawn(tuple)``, ``addModeChanged(bool)``
  and ``markHovered(object)``, as documented on the view;
* ``hoverChanged(old, new)``: the hovered mark changed (the view paints the boxes), emitted
  just before the tooltip follows and ``markHovered``.

Mouse and keys (the zoom keys and Ctrl+wheel are :mod:`.zoom`'s):

* Ctrl+wheel zooms around the point under the mouse; the plain wheel scrolls.
* ``+`` / ``=`` zoom in, ``-`` zooms out, ``0`` fits the image to the pane, ``1`` is 100 %.
* Left-drag where there is no box pans (so does a middle-button drag anywhere); a left
  click on a box emits ``markClicked``. A press on a box that then moves more than a few
  pixels turns into a pan, not a click.
* In add-mark mode (crosshair cursor) a left-drag draws a rectangle and emits
  ``rectDrawn`` on release; Esc cancels the rectangle being drawn, or, with none being
  drawn, leaves add-mark mode.
"""
from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QCursor
from PySide6.QtWidgets import QGraphicsRectItem, QToolTip

from cockpit.core.page.marks import Mark
from cockpit.ui.screenshot.marks import EXTRA_COLOR, Z_RUBBER, make_pen, mark_tooltip

__all__ = ["ViewGestures"]

_CLICK_SLOP = 4  # px a press may move and still count as a click


class ViewGestures(QObject):
    """Hover and tooltips, click, pan and add-mark drawing over a screenshot view."""

    markClicked = Signal(int)
    rectDrawn = Signal(tuple)
    markHovered = Signal(object)
    addModeChanged = Signal(bool)
    pointClicked = Signal(tuple)
    hoverChanged = Signal(object, object)  # old mark, new mark (either may be None)

    def __init__(self, view):
        super().__init__(view)
        self._view = view
        self._add_mode = False
        self._hovered: Mark | None = None
        self._rubber: QGraphicsRectItem | None = None
        self._rubber_start: QPointF | None = None
        self.reset()
        view.viewport().installEventFilter(self)
        view.installEventFilter(self)

    def reset(self) -> bool:
        """A new (or no) image: no gesture, no rectangle, no hover (add-mark mode stays).
        True when a mark was hovered (the caller tells ``markHovered`` listeners once done)."""
        had_hover = self._hovered is not None
        self._clear_rubber()
        self._hovered = None
        self._press_pos: QPoint | None = None
        self._press_point: QPointF | None = None  # the scene point pressed, for pointClicked
        self._press_mark: int | None = None  # mark id pressed on (click candidate)
        self._panning = False
        self._pan_origin = (0, 0)
        return had_hover

    # ---------------------------------------------------------------- add mode

    def add_mode(self) -> bool:
        return self._add_mode

    def set_add_mode(self, on: bool) -> None:
        on = bool(on)
        if on == self._add_mode:
            return
        self._add_mode = on
        self._clear_rubber()
        if on:
            self.set_hovered(None)
        self.update_cursor()
        self.addModeChanged.emit(on)

    # ---------------------------------------------------------------- hover

    def hovered(self) -> Mark | None:
        return self._hovered

    def set_hovered(self, mark: Mark | None) -> None:
        old = self._hovered
        if (None if mark is None else mark.id) == (None if old is None else old.id):
            return
        self._hovered = mark
        self.hoverChanged.emit(old, mark)
        if mark is not None:
            if QToolTip.isVisible():
                self.show_tooltip(QCursor.pos())
        else:
            QToolTip.hideText()
        self.markHovered.emit(mark)

    def show_tooltip(self, global_pos: QPoint) -> None:
        text = "" if self._hovered is None else mark_tooltip(self._hovered)
        if not text:
            QToolTip.hideText()
            return
        rich = "<p style='white-space:pre'>" + html.escape(text) + "</p>"
        QToolTip.showText(global_pos, rich, self._view.viewport())

    def update_cursor(self, view_pos: QPoint | None = None) -> None:
        view = self._view
        vp = view.viewport()
        if self._panning:
            vp.setCursor(Qt.ClosedHandCursor)
        elif self._add_mode:
            vp.setCursor(Qt.CrossCursor)
        elif not view.has_screenshot():
            vp.unsetCursor()
        elif view_pos is not None and view.usable_mark_at(view_pos) is not None:
            vp.setCursor(Qt.PointingHandCursor)
        else:
            vp.setCursor(Qt.OpenHandCursor)

    # ---------------------------------------------------------------- helpers

    def _clear_rubber(self) -> None:
        if self._rubber is not None:
            if self._rubber.scene() is not None:
                self._rubber.scene().removeItem(self._rubber)
            self._rubber = None
        self._rubber_start = None

    def _image_point(self, pos: QPoint) -> QPointF:
        """A viewport position as an image point, clamped to the image."""
        p = self._view.image_point(pos)
        w, h = self._view.image_size()
        return QPointF(min(max(p.x(), 0.0), float(w)), min(max(p.y(), 0.0), float(h)))

    def _start_pan(self, pos: QPoint) -> None:
        view = self._view
        self._panning = True
        self._press_mark = None
        self._press_pos = pos
        self._pan_origin = (view.horizontalScrollBar().value(), view.verticalScrollBar().value())
        self.update_cursor()

    def _start_rubber(self, pos: QPoint) -> None:
        self._clear_rubber()
        start = self._image_point(pos)
        self._rubber_start = start
        r = QGraphicsRectItem(QRectF(start, start))
        r.setPen(make_pen(EXTRA_COLOR, 2, dashed=True))
        r.setBrush(QColor(46, 125, 50, 40))
        r.setZValue(Z_RUBBER)
        self._view.scene().addItem(r)
        self._rubber = r

    # ---------------------------------------------------------------- events

    def eventFilter(self, obj, event) -> bool:
        """The view's Esc and its viewport's mouse, tooltip and leave events; True when handled here."""
        t = event.type()
        if obj is self._view:
            if t == QEvent.KeyPress and self.key(event):
                event.accept()
                return True
            return False
        if t in (QEvent.MouseButtonPress, QEvent.MouseButtonDblClick):  # a double click is a second press
            self._view.setFocus(Qt.MouseFocusReason)
            return self.press(event)
        if t == QEvent.MouseMove:
            self.move(event)
            return True
        if t == QEvent.MouseButtonRelease:
            self.release(event)
            return True
        return self.viewport_event(event)

    def press(self, event) -> bool:
        """A mouse press on the viewport; False when Qt's own handler should have it."""
        pos = event.position().toPoint()
        if not self._view.has_screenshot():
            return True
        if event.button() == Qt.MiddleButton:
            self._start_pan(pos)
            event.accept()
            return True
        if event.button() != Qt.LeftButton:
            return False
        if self._add_mode:
            self._start_rubber(pos)
            event.accept()
            return True
        m = self._view.usable_mark_at(pos)
        self._press_pos = pos
        self._press_point = self._view.image_point(pos)  # a click on no box (or Alt+click) is a point
        if m is not None and not event.modifiers() & Qt.AltModifier:
            self._press_mark = m.id
        else:
            self._start_pan(pos)
        event.accept()
        return True

    def move(self, event) -> None:
        pos = event.position().toPoint()
        event.accept()
        if self._rubber is not None and self._rubber_start is not None:
            self._rubber.setRect(QRectF(self._rubber_start, self._image_point(pos)).normalized())
            return
        if self._press_mark is not None and self._press_pos is not None:
            if (pos - self._press_pos).manhattanLength() > _CLICK_SLOP:
                self._start_pan(self._press_pos)  # the press became a drag: pan from where it began
        if self._panning and self._press_pos is not None:
            d = pos - self._press_pos
            self._view.horizontalScrollBar().setValue(self._pan_origin[0] - d.x())
            self._view.verticalScrollBar().setValue(self._pan_origin[1] - d.y())
            return
        if not self._add_mode and self._press_pos is None:
            self.set_hovered(self._view.usable_mark_at(pos))
            self.update_cursor(pos)

    def release(self, event) -> None:
        pos = event.position().toPoint()
        event.accept()
        left = event.button() == Qt.LeftButton
        if self._rubber is not None and self._rubber_start is not None and left:
            r = QRectF(self._rubber_start, self._image_point(pos)).normalized()
            self._clear_rubber()
            x, y = round(r.x()), round(r.y())
            w, h = round(r.right()) - x, round(r.bottom()) - y
            if w >= 2 and h >= 2:
                self.rectDrawn.emit((x, y, w, h))
            return
        clicked = self._press_mark if left else None
        was_panning = self._panning
        still = self._press_pos is not None and (pos - self._press_pos).manhattanLength() <= _CLICK_SLOP
        point, self._press_point = self._press_point, None
        self._press_mark = None
        self._press_pos = None
        self._panning = False
        view = self._view
        if clicked is not None and not was_panning:
            self.markClicked.emit(clicked)
        elif clicked is None and still and point is not None and left and view.on_image(point):
            self.pointClicked.emit((int(point.x()), int(point.y())))
        if view.has_screenshot() and not self._add_mode:
            self.set_hovered(view.usable_mark_at(pos))
        self.update_cursor(pos)

    def key(self, event) -> bool:
        """Esc in add-mark mode cancels the rectangle being drawn, or leaves the mode; True when handled."""
        if event.key() != Qt.Key_Escape or not self._add_mode:
            return False
        if self._rubber is not None:
            self._clear_rubber()
        else:
            self.set_add_mode(False)
        return True

    def viewport_event(self, event) -> bool:
        """Tooltips and leaving the viewport; True when the event is done with."""
        t = event.type()
        if t == QEvent.ToolTip:
            if self._hovered is not None:
                self.show_tooltip(event.globalPos())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        if t == QEvent.Leave and self._press_pos is None:
            self.set_hovered(None)
        return False
