"""Zoom, pan, hover, click and add-mark drawing for :class:`.screenshot_view.ScreenshotView`.

A mixin that holds the mouse/key handling and the zoom of the screenshot pane; the
widget's state (marks, boxes, highlight) and signals live in ScreenshotView, which puts
this class before QGraphicsView in its bases so ``super()`` here reaches Qt's handlers.
See the :mod:`.screenshot_view` docstring for the gestures and keys.
"""
from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QCursor, QTransform
from PySide6.QtWidgets import QGraphicsRectItem, QToolTip

from cockpit.core.page.marks import Mark

from cockpit.ui.screenshot.marks import _EXTRA_COLOR, _Z_RUBBER, _pen, mark_tooltip

_MIN_ZOOM = 0.05
_MAX_ZOOM = 16.0
_ZOOM_STEP = 1.25
_CLICK_SLOP = 4  # px a press may move and still count as a click


class _ScreenshotInteraction:
    """Zoom/fit, hover and tooltips, pan/click/draw gestures and the Qt event handlers."""

    # ---------------------------------------------------------------- zoom

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

    def _zoom_by(self, f: float, anchor: QPoint | None = None) -> None:
        self.set_zoom(self.zoom_factor() * f, anchor)

    # ---------------------------------------------------------------- hover

    def hover_tooltip(self) -> str:
        """The plain-text tooltip of the hovered mark ('' when none)."""
        return "" if self._hovered is None else mark_tooltip(self._marks[self._hovered])

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

    # ---------------------------------------------------------------- gestures

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
        self._press_point = self.mapToScene(pos)  # a click on no box (or Alt+click) is a point
        alt = bool(event.modifiers() & Qt.AltModifier)
        if m is not None and not alt:
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
        still = self._press_pos is not None and (pos - self._press_pos).manhattanLength() <= _CLICK_SLOP
        point, self._press_point = self._press_point, None
        self._press_mark = None
        self._press_pos = None
        self._panning = False
        if clicked is not None and not was_panning:
            self.markClicked.emit(clicked)
        elif clicked is None and still and point is not None and event.button() == Qt.LeftButton \
                and self._pixmap_item is not None and self._pixmap_item.contains(point):
            self.pointClicked.emit((int(point.x()), int(point.y())))
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
