"""Pixel actions on the screenshot pane (crosshair, drag arrow, resolved box) and in the step log (→ element)."""
from __future__ import annotations

import io

from PIL import Image
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor

from cockpit.core.agent import events as ev
from cockpit.ui.live.step_log import StepLogPanel
from cockpit.ui.screenshot.view import ScreenshotView

RED = "#e53935"


def _png(w: int, h: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), "white").save(buf, "PNG")
    return buf.getvalue()


def _pointer(scale: int = 1) -> dict:
    return {"resolved": {"mark": None, "tag": "button", "text": "Place order", "box": [550, 450, 100, 50],
                         "desc": '<button> "Place order"'},
            "frame": {"viewport": [1024, 768], "image": [1024 * scale, 768 * scale]}}


def _items(view, kind):
    return [i for i in view.scene().items() if i.data(0) == kind]


def _view(qtbot, scale: int = 1) -> ScreenshotView:
    v = ScreenshotView()
    qtbot.addWidget(v)
    v.resize(800, 600)
    v.set_screenshot(_png(1024 * scale, 768 * scale), [])
    return v


def test_click_draws_a_crosshair_and_the_resolved_box(qtbot):
    v = _view(qtbot)
    v.set_pointer("Click (600, 475)", _pointer(), RED)
    cross = v.pointer_marker()
    assert cross is not None and cross.data(0) == "crosshair"
    assert cross.scenePos() == QPointF(600, 475)
    assert cross.pen().color() == QColor(RED)
    (box,) = _items(v, "resolved")
    assert box.rect() == QRectF(550, 450, 100, 50) and box.pen().color() == QColor(RED)
    assert not _items(v, "drag")


def test_device_scale_2_scales_point_and_box(qtbot):
    v = _view(qtbot, scale=2)
    v.set_pointer("Click (600, 475)", _pointer(scale=2), RED)
    assert v.pointer_marker().scenePos() == QPointF(1200, 950)
    (box,) = _items(v, "resolved")
    assert box.rect() == QRectF(1100, 900, 200, 100)


def test_drag_draws_a_line_and_arrow_to_the_end(qtbot):
    v = _view(qtbot)
    v.set_pointer("Drag (100, 200) to (300, 250)", None, RED)
    assert v.pointer_marker().scenePos() == QPointF(100, 200)
    (line,) = _items(v, "drag")
    assert (line.line().p1(), line.line().p2()) == (QPointF(100, 200), QPointF(300, 250))
    (arrow,) = _items(v, "arrow")
    assert arrow.scenePos() == QPointF(300, 250)
    assert not _items(v, "resolved")  # no pointer facts: no box


def test_mark_actions_and_new_screenshots_draw_nothing(qtbot):
    v = _view(qtbot)
    v.set_pointer("Click [3]", _pointer(), RED)
    assert v.pointer_marker() is None
    v.set_pointer("Hover (10, 20)", None, RED)
    assert v.pointer_marker().scenePos() == QPointF(10, 20)
    v.set_pointer("Scroll (50, 60) by (0, 400)", None, RED)  # replaces the last one
    assert len(_items(v, "crosshair")) == 1 and v.pointer_marker().scenePos() == QPointF(50, 60)
    v.set_screenshot(_png(1024, 768), [])
    assert v.pointer_marker() is None and not _items(v, "crosshair")


def test_step_log_names_the_element_hit(qtbot):
    log = StepLogPanel()
    qtbot.addWidget(log)
    log.add_event(ev.StepStarted("r1", 1))
    log.add_event(ev.ModelReplied("r1", 1, text="Action: Click (600, 475)", thought="order",
                                  action_text="Click (600, 475)"))
    assert log.items[1].text(1) == "Click (600, 475)"
    row = {"step": 1, "action": "Click (600, 475)", "pointer": _pointer()}
    log.set_pointer(1, row)
    log.set_pointer(1, row)  # twice (step finished, then opened): added once
    assert log.items[1].text(1) == 'Click (600, 475) → <button> "Place order"'
    log.set_pointer(1, {"step": 1, "action": "Click (600, 475)", "pointer": None})
    assert log.items[1].text(1) == 'Click (600, 475) → <button> "Place order"'
    log.add_event(ev.ApprovalDecided("r1", 1, True, "human:ada", action="Click (600, 475)"))
    assert log.items[1].text(2) == "approved by ada"  # the element named is not an edit
