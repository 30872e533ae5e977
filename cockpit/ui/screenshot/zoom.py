"""The zoom of the screenshot pane (:class:`.view.ScreenshotView`): fit, zoom in and out, 100 %.

A part the view owns, an event filter on the view (keys) and its viewport (the wheel). It
keeps whether the image is fitted to the pane and the timer that re-places the number
labels once a zoom or a resize pauses; it changes the view only through
QGraphicsView's own public API (transform, scroll bars, fitInView) and asks it
``has_screenshot()``. When the labels must be placed again it emits ``relayout``.

Keys (:meth:`ViewZoom.key`): ``+`` / ``=`` zoom in, ``-`` zooms out, ``0`` fits, ``1`` is 100 %.
Ctrl+wheel (:meth:`ViewZoom.wheel`) zooms around the point under the mouse.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QTransform

__all__ = ["ViewZoom"]

_MIN_ZOOM = 0.05
_MAX_ZOOM = 16.0
_ZOOM_STEP = 1.25
_RELAYOUT_MS = 30


class ViewZoom(QObject):
    """Fit mode, the zoom factor (clamped to 5 %–1600 %) and the deferred label relayout of a view."""

    relayout = Signal()  # the labels should be placed again for the new zoom

    def __init__(self, view):
        super().__init__(view)
        self._view = view
        self._fitted = True
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(_RELAYOUT_MS)
        self._timer.timeout.connect(self.relayout)
        view.viewport().installEventFilter(self)
        view.installEventFilter(self)

    # ---------------------------------------------------------------- state

    def reset(self) -> None:
        """A new (or no) image: fitted, no relayout pending."""
        self._timer.stop()
        self._fitted = True

    def stop(self) -> None:
        """Forget a pending relayout."""
        self._timer.stop()

    def is_fitted(self) -> bool:
        return self._fitted

    def zoom_factor(self) -> float:
        return self._view.transform().m11()

    # ---------------------------------------------------------------- zoom

    def fit(self, relayout: bool = True) -> None:
        """Fit the whole image into the pane; it stays fitted when the pane is resized. The labels
        are placed now, or with `relayout` False once resizing pauses."""
        self._fitted = True
        view = self._view
        if not view.has_screenshot():
            return
        view.resetTransform()
        view.fitInView(view.sceneRect(), Qt.KeepAspectRatio)
        z = self.zoom_factor()
        if not (_MIN_ZOOM <= z <= _MAX_ZOOM):
            view.setTransform(QTransform.fromScale(*(2 * [min(max(z, _MIN_ZOOM), _MAX_ZOOM)])))
        if relayout:
            self._timer.stop()
            self.relayout.emit()
        else:
            self._timer.start()

    def refit(self) -> None:
        """The pane was resized: fit again if fitted (the labels follow once resizing pauses)."""
        if self._fitted and self._view.has_screenshot():
            self.fit(relayout=False)

    def restore(self, transform: QTransform, hval: int, vval: int) -> None:
        """Keep a zoom the user chose across a new image: its transform and scroll positions."""
        view = self._view
        self._fitted = False
        view.setTransform(transform)
        view.horizontalScrollBar().setValue(hval)
        view.verticalScrollBar().setValue(vval)

    def zoom_in(self) -> None:
        self.zoom_by(_ZOOM_STEP)

    def zoom_out(self) -> None:
        self.zoom_by(1 / _ZOOM_STEP)

    def zoom_reset(self) -> None:
        """100 %: one image pixel per screen pixel."""
        self.set_zoom(1.0)

    def zoom_by(self, f: float, anchor: QPoint | None = None) -> None:
        self.set_zoom(self.zoom_factor() * f, anchor)

    def set_zoom(self, factor: float, anchor: QPoint | None = None) -> None:
        """Zoom to `factor` (1.0 = 100 %), keeping the scene point at `anchor` (viewport
        coordinates; default the centre) where it is."""
        view = self._view
        if not view.has_screenshot():
            return
        factor = min(max(float(factor), _MIN_ZOOM), _MAX_ZOOM)
        self._fitted = False
        if anchor is None:
            anchor = view.viewport().rect().center()
        before = view.mapToScene(anchor)
        view.setTransform(QTransform.fromScale(factor, factor))
        d = view.mapFromScene(before) - anchor
        view.horizontalScrollBar().setValue(view.horizontalScrollBar().value() + d.x())
        view.verticalScrollBar().setValue(view.verticalScrollBar().value() + d.y())
        self._timer.start()

    # ---------------------------------------------------------------- input

    def eventFilter(self, obj, event) -> bool:
        """The zoom keys (on the view) and Ctrl+wheel; True when handled here."""
        t = event.type()
        if t == QEvent.KeyPress and obj is self._view and self.key(event):
            event.accept()
            return True
        return t == QEvent.Wheel and self.wheel(event)

    def key(self, event) -> bool:
        """Handle a zoom key; True when it was one (the caller accepts the event)."""
        if not self._view.has_screenshot() or event.modifiers() & Qt.AltModifier:
            return False
        key = event.key()
        if key in (Qt.Key_Plus, Qt.Key_Equal):
            self.zoom_in()
        elif key == Qt.Key_Minus:
            self.zoom_out()
        elif key == Qt.Key_0:
            self.fit()
        elif key == Qt.Key_1:
            self.zoom_reset()
        else:
            return False
        return True

    def wheel(self, event) -> bool:
        """Ctrl+wheel zooms around the mouse; True when handled (the plain wheel scrolls)."""
        if not (event.modifiers() & Qt.ControlModifier and self._view.has_screenshot()):
            return False
        dy = event.angleDelta().y() or event.angleDelta().x()
        if dy:
            self.zoom_by(_ZOOM_STEP ** (dy / 120.0), event.position().toPoint())
        event.accept()
        return True
