"""ScreenshotView's zoom and pan: fit, the zoom keys and their limits, Ctrl+wheel under the mouse, the plain
wheel, dragging the background."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from tests.ui.screenshot.screenshot_support import H, W, drag, vp


def test_zoom_fit_keys_and_resize(qtbot, view):
    fit = view.zoom.zoom_factor()
    assert view.zoom.is_fitted()
    assert fit == pytest.approx(min(800 / W, 600 / H), rel=0.02)
    view.zoom.zoom_in()
    assert view.zoom.zoom_factor() > fit and not view.zoom.is_fitted()
    view.zoom.zoom_out()
    view.zoom.zoom_out()
    assert view.zoom.zoom_factor() < fit
    view.zoom.fit()
    assert view.zoom.zoom_factor() == pytest.approx(fit) and view.zoom.is_fitted()
    view.zoom.zoom_reset()
    assert view.zoom.zoom_factor() == pytest.approx(1.0)

    view.setFocus()
    view.zoom.fit()
    qtbot.keyClick(view, Qt.Key_Plus)
    assert view.zoom.zoom_factor() > fit
    qtbot.keyClick(view, Qt.Key_0)
    assert view.zoom.zoom_factor() == pytest.approx(fit)
    qtbot.keyClick(view, Qt.Key_Minus)
    assert view.zoom.zoom_factor() < fit
    qtbot.keyClick(view, Qt.Key_1)
    assert view.zoom.zoom_factor() == pytest.approx(1.0)

    # resizing keeps "fit" until the user zooms by hand
    view.zoom.fit()
    view.resize(1000, 800)
    qtbot.waitUntil(lambda: view.zoom.zoom_factor() > fit * 1.1, timeout=1000)
    assert view.zoom.is_fitted()
    view.zoom.zoom_in()
    z = view.zoom.zoom_factor()
    view.resize(600, 400)
    qtbot.wait(20)
    assert view.zoom.zoom_factor() == pytest.approx(z)


def test_ctrl_wheel_zooms_under_mouse(view):
    view.zoom.zoom_reset()
    view.centerOn(500, 400)
    pos = vp(view, 450, 380)
    before = view.mapToScene(pos)
    z = view.zoom.zoom_factor()
    ev = QWheelEvent(QPointF(pos), QPointF(view.viewport().mapToGlobal(pos)), QPoint(0, 0),
                     QPoint(0, 120), Qt.NoButton, Qt.ControlModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), ev)
    assert view.zoom.zoom_factor() == pytest.approx(z * 1.25)
    after = view.mapToScene(pos)
    assert abs(after.x() - before.x()) <= 2 and abs(after.y() - before.y()) <= 2


def test_pan_by_dragging_background(qtbot, view):
    view.zoom.set_zoom(2.0)
    qtbot.wait(10)  # let the scroll bars appear
    view.centerOn(512, 384)
    h0, v0 = view.horizontalScrollBar().value(), view.verticalScrollBar().value()
    start = vp(view, 330, 260)  # no box there
    assert view.mark_at(330, 260) is None and view.viewport().rect().contains(start)
    with qtbot.assertNotEmitted(view.markClicked, wait=10):
        drag(qtbot, view, start, start + QPoint(-100, -50))
    assert view.horizontalScrollBar().value() == h0 + 100
    assert view.verticalScrollBar().value() == v0 + 50
    drag(qtbot, view, start, start + QPoint(60, 0), button=Qt.MiddleButton)
    assert view.horizontalScrollBar().value() == h0 + 40


def test_zoom_is_clamped_and_keys_with_alt_or_no_image_do_not_zoom(qtbot, view):
    view.zoom.set_zoom(100)
    assert view.zoom.zoom_factor() == pytest.approx(16.0)
    view.zoom.set_zoom(0.0001)
    assert view.zoom.zoom_factor() == pytest.approx(0.05)
    view.zoom.fit()
    fit = view.zoom.zoom_factor()
    view.setFocus()
    qtbot.keyClick(view, Qt.Key_Plus, Qt.AltModifier)
    assert view.zoom.zoom_factor() == pytest.approx(fit) and view.zoom.is_fitted()
    qtbot.keyClick(view, Qt.Key_Escape)  # not in add mode: nothing happens
    assert view.zoom.is_fitted() and not view.add_mode()
    view.clear("nothing")
    qtbot.keyClick(view, Qt.Key_1)
    assert view.zoom.zoom_factor() == pytest.approx(1.0) and view.zoom.is_fitted()  # clear() resets the transform


def test_plain_wheel_scrolls_and_ctrl_wheel_on_no_image_does_nothing(qtbot, view):
    view.zoom.set_zoom(2.0)
    qtbot.wait(10)
    view.centerOn(512, 384)
    v0, z = view.verticalScrollBar().value(), view.zoom.zoom_factor()
    pos = view.viewport().rect().center()
    wheel = QWheelEvent(QPointF(pos), QPointF(view.viewport().mapToGlobal(pos)), QPoint(0, 0),
                        QPoint(0, -120), Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), wheel)
    assert view.verticalScrollBar().value() > v0 and view.zoom.zoom_factor() == pytest.approx(z)
    view.clear()
    ctrl = QWheelEvent(QPointF(pos), QPointF(view.viewport().mapToGlobal(pos)), QPoint(0, 0),
                       QPoint(0, 120), Qt.NoButton, Qt.ControlModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), ctrl)
    assert view.zoom.zoom_factor() == pytest.approx(1.0) and not view.has_screenshot()
