"""ScreenshotView: boxes over a clean screenshot, toggling, hover, click, add mode, zoom."""
from __future__ import annotations

import random
import time

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from cockpit.core.page.marks import Mark
from cockpit.ui.screenshot.marks import mark_tooltip
from cockpit.ui.screenshot.view import INVALID_MESSAGE, ScreenshotView
from tests.ui.screenshot.screenshot_support import MARKS, H, W, centre, drag, make_png, vp


def test_boxes_present_and_toggle(view):
    assert view.image_size() == (W, H)
    assert view.has_screenshot() and view.message() == ""
    assert sorted(view.visible_mark_ids()) == [1, 2, 3, 4, 5]
    view.set_marks_visible(False)
    assert not view.marks_visible()
    assert view.visible_mark_ids() == []
    view.set_marks_visible(True)
    assert sorted(view.visible_mark_ids()) == [1, 2, 3, 4, 5]


def test_click_on_box_emits_mark_clicked(qtbot, view):
    with qtbot.waitSignal(view.markClicked, timeout=1000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=centre(view, 1))
    assert blocker.args == [1]
    # the inner of two nested boxes wins
    with qtbot.waitSignal(view.markClicked, timeout=1000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=centre(view, 3))
    assert blocker.args == [3]
    with qtbot.waitSignal(view.markClicked, timeout=1000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=vp(view, 410, 480))
    assert blocker.args == [2]


def test_click_outside_boxes_and_drag_do_not_click(qtbot, view):
    with qtbot.assertNotEmitted(view.markClicked, wait=50):
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=vp(view, 20, 700))
        # a press on a box that moves away is a pan, not a click
        drag(qtbot, view, centre(view, 1), centre(view, 1) + QPoint(40, 30))


def test_mark_at_picks_innermost(view):
    assert view.mark_at(460, 360).id == 3
    assert view.mark_at(410, 310).id == 2
    assert view.mark_at(150, 120).id == 1
    assert view.mark_at(5, 5) is None
    assert view.mark_at(300, 120) is None  # right edge is exclusive


def test_hover_emits_and_tooltip(qtbot, view):
    with qtbot.waitSignal(view.markHovered, timeout=1000) as blocker:
        qtbot.mouseMove(view.viewport(), centre(view, 1))
    assert isinstance(blocker.args[0], Mark) and blocker.args[0].id == 1
    tip = view.hover_tooltip()
    assert tip.startswith('[1] <button> "Add to cart"')
    assert "reason: native" in tip
    # the shown tooltip (a ToolTip event on the viewport) carries the same text
    pos = centre(view, 1)
    ev = QHelpEvent(QEvent.ToolTip, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), ev)
    assert "Add to cart" in QToolTip.text()

    with qtbot.waitSignal(view.markHovered, timeout=1000) as blocker:
        qtbot.mouseMove(view.viewport(), centre(view, 4))
    assert blocker.args[0].id == 4
    tip = view.hover_tooltip()
    assert "hunter2" not in tip and "input type=password" in tip
    QApplication.sendEvent(view.viewport(), QHelpEvent(
        QEvent.ToolTip, centre(view, 4), view.viewport().mapToGlobal(centre(view, 4))))
    assert "hunter2" not in QToolTip.text()

    with qtbot.waitSignal(view.markHovered, timeout=1000) as blocker:
        qtbot.mouseMove(view.viewport(), vp(view, 20, 700))
    assert blocker.args == [None]
    assert view.hover_tooltip() == ""


def test_tooltip_text():
    tip = mark_tooltip(MARKS[2])
    assert tip.splitlines()[0] == '[3] <a> "Checkout"'
    href = next(line for line in tip.splitlines() if line.startswith("href: "))
    assert len(href) < 80 and "…" in href
    tip = mark_tooltip(MARKS[4])
    assert '"Search"' in tip and "value: shoes" in tip
    # a secret field whose only label is its value: the value never shows
    secret = Mark(9, (0, 0, 10, 10), "input", type="password", value="s3cret!", secret=True)
    assert "s3cret!" not in mark_tooltip(secret)
    assert mark_tooltip(MARKS[1]).splitlines()[:2] == ['[2] <div> "Cart"', "role: dialog"]


def test_highlight_stays_when_marks_hidden(qtbot, view):
    assert view.highlighted() is None and not view.highlight_visible()
    view.set_highlight(3)
    assert view.highlighted() == 3 and view.highlight_visible()
    view.set_marks_visible(False)
    assert view.visible_mark_ids() == []
    assert view.highlight_visible()
    # the highlighted box is still clickable; hidden boxes are not
    with qtbot.waitSignal(view.markClicked, timeout=1000) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=centre(view, 3))
    assert blocker.args == [3]
    with qtbot.assertNotEmitted(view.markClicked, wait=50):
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=centre(view, 1))
    view.set_highlight(1, "#1e88e5")
    assert view.highlighted() == 1 and view.highlight_visible()
    view.set_highlight(None)
    assert view.highlighted() is None and not view.highlight_visible()
    view.set_highlight(99)  # unknown id: ignored
    assert view.highlighted() is None


def test_flagged_and_extra_boxes(view):
    view.set_flagged({2, 4, 42})
    assert view.flagged() == {2, 4}
    view.set_flagged(set())
    assert view.flagged() == set()
    view.set_extra_boxes([((10, 10, 50, 40), "+1"), ((900, 600, 60, 60), "+2")])
    assert view.extra_box_count() == 2
    view.set_extra_boxes([])
    assert view.extra_box_count() == 0
    # a new screenshot forgets highlight, flags and extra boxes
    view.set_highlight(1)
    view.set_flagged({1})
    view.set_extra_boxes([((10, 10, 50, 40), "+1")])
    view.set_screenshot(make_png(), MARKS)
    assert view.highlighted() is None and view.flagged() == set()
    assert view.extra_box_count() == 0


def _assert_rect(got, want, tol):
    assert len(got) == 4
    for g, w in zip(got, want):
        assert abs(g - w) <= tol, (got, want)


def test_add_mode_draws_rect_at_fit(qtbot, view):
    view.set_add_mode(True)
    assert view.add_mode()
    assert view.viewport().cursor().shape() == Qt.CrossCursor
    with qtbot.assertNotEmitted(view.markClicked, wait=10):
        with qtbot.waitSignal(view.rectDrawn, timeout=1000) as blocker:
            drag(qtbot, view, vp(view, 100, 100), vp(view, 300, 200))
    tol = 1 / view.zoom.zoom_factor() + 1
    _assert_rect(blocker.args[0], (100, 100, 200, 100), tol)


def test_add_mode_draws_rect_at_200_percent(qtbot, view):
    view.zoom.set_zoom(2.0)
    qtbot.wait(10)  # let the scroll bars appear
    view.centerOn(200, 150)
    assert view.zoom.zoom_factor() == pytest.approx(2.0)
    a, b = vp(view, 100, 100), vp(view, 300, 200)
    assert view.viewport().rect().contains(a) and view.viewport().rect().contains(b)
    view.set_add_mode(True)
    with qtbot.waitSignal(view.rectDrawn, timeout=1000) as blocker:
        drag(qtbot, view, b, a)  # drawn backwards: still a normalized rect
    _assert_rect(blocker.args[0], (100, 100, 200, 100), 1)


def test_add_mode_escape(qtbot, view):
    view.set_add_mode(True)
    a, b = vp(view, 100, 100), vp(view, 300, 200)
    with qtbot.assertNotEmitted(view.rectDrawn, wait=10):
        qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=a)
        qtbot.mouseMove(view.viewport(), b)
        qtbot.keyClick(view, Qt.Key_Escape)  # cancels the rectangle
        qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=b)
    assert view.add_mode()
    with qtbot.waitSignal(view.addModeChanged, timeout=1000) as blocker:
        qtbot.keyClick(view, Qt.Key_Escape)  # nothing being drawn: leaves add mode
    assert blocker.args == [False] and not view.add_mode()
    assert view.viewport().cursor().shape() != Qt.CrossCursor


def test_keep_view(view):
    view.zoom.set_zoom(2.0)
    view.centerOn(700, 500)
    z = view.zoom.zoom_factor()
    h, v = view.horizontalScrollBar().value(), view.verticalScrollBar().value()
    view.set_screenshot(make_png(), MARKS[:2], keep_view=True)
    assert view.zoom.zoom_factor() == pytest.approx(z)
    assert (view.horizontalScrollBar().value(), view.verticalScrollBar().value()) == (h, v)
    assert sorted(view.visible_mark_ids()) == [1, 2]
    view.set_screenshot(make_png(), MARKS)
    assert view.zoom.is_fitted()


def test_invalid_png_and_clear(qtbot, view):
    view.set_screenshot(b"definitely not a png", MARKS)
    assert view.message() == INVALID_MESSAGE
    assert not view.has_screenshot() and view.image_size() == (0, 0)
    assert view.visible_mark_ids() == [] and view.mark_at(150, 120) is None
    view.set_screenshot(b"", [])
    assert view.message() == INVALID_MESSAGE
    # the mouse and keys do nothing harmful on an empty view
    with qtbot.assertNotEmitted(view.markClicked, wait=10):
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=QPoint(100, 100))
    qtbot.keyClick(view, Qt.Key_Plus)
    view.zoom.zoom_in()
    view.zoom.fit()
    view.set_highlight(1)
    assert view.highlighted() is None
    view.clear("No run yet — press Run")
    assert view.message() == "No run yet — press Run"
    view.set_screenshot(make_png(), MARKS)
    assert view.message() == "" and view.has_screenshot()


def test_thousand_marks(view):
    rng = random.Random(7)
    marks = [Mark(i + 1, (rng.randint(0, W - 60), rng.randint(0, H - 30), rng.randint(8, 60),
                          rng.randint(8, 30)), "a", text=f"link {i + 1}") for i in range(1000)]
    png = make_png()
    t0 = time.perf_counter()
    view.set_screenshot(png, marks)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    view.set_screenshot(png, marks)
    second = time.perf_counter() - t0
    print(f"set_screenshot with 1000 marks: {first * 1000:.1f} ms (first), "
          f"{second * 1000:.1f} ms (again)")
    assert len(view.visible_mark_ids()) == 1000
    m = marks[500]
    hit = view.mark_at(*m.center)
    assert hit is not None
    x, y, w, h = hit.bbox
    assert x <= m.center[0] < x + w and y <= m.center[1] < y + h
    view.set_marks_visible(False)
    assert view.visible_mark_ids() == []
    view.set_marks_visible(True)
    view.viewport().repaint()


def test_click_on_no_box_and_alt_click_emit_the_point(qtbot, view):
    """A still click on no box, or an Alt+click on a box, is a point in image pixels; a drag or a
    click beside the image is not."""
    with qtbot.assertNotEmitted(view.markClicked, wait=10):
        with qtbot.waitSignal(view.pointClicked, timeout=1000) as blocker:
            qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=vp(view, 20, 700))
    x, y = blocker.args[0]
    assert abs(x - 20) <= 2 and abs(y - 700) <= 2
    with qtbot.assertNotEmitted(view.markClicked, wait=10):
        with qtbot.waitSignal(view.pointClicked, timeout=1000) as blocker:
            qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.AltModifier, centre(view, 1))
    x, y = blocker.args[0]
    assert view.mark_at(x, y).id == 1
    view.zoom.set_zoom(2.0)
    qtbot.wait(10)
    view.centerOn(512, 384)
    with qtbot.assertNotEmitted(view.pointClicked, wait=10):
        drag(qtbot, view, vp(view, 330, 260), vp(view, 330, 260) + QPoint(-40, 0))
    view.zoom.fit()
    view.resize(1000, 600)  # fitted by height: grey bands beside the image
    qtbot.waitUntil(lambda: view.mapFromScene(QPointF(0, 0)).x() > 20, timeout=1000)
    with qtbot.assertNotEmitted(view.pointClicked, wait=10):
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=QPoint(5, 300))


def test_double_click_on_a_box_is_two_clicks(qtbot, view):
    """What Qt delivers for a double click (press, release, double click, release): the double
    click is a second press, so the box is clicked twice, no third time, and no point."""
    got = []
    view.markClicked.connect(got.append)
    pos = centre(view, 1)
    with qtbot.assertNotEmitted(view.pointClicked, wait=10):
        qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=pos)
        qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=pos)
        qtbot.mouseDClick(view.viewport(), Qt.LeftButton, pos=pos)
        qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=pos)
    assert got == [1, 1]


def hover(qtbot, view, pos: QPoint) -> None:
    """Move the mouse to `pos` from elsewhere (a move to where the mouse already is is no move)."""
    qtbot.mouseMove(view.viewport(), vp(view, 20, 700))
    qtbot.mouseMove(view.viewport(), pos)


def test_leaving_the_pane_and_add_mode_forget_the_hover(qtbot, view):
    hover(qtbot, view, centre(view, 1))
    qtbot.waitUntil(lambda: view.hover_tooltip() != "", timeout=1000)
    with qtbot.waitSignal(view.markHovered, timeout=1000) as blocker:
        QApplication.sendEvent(view.viewport(), QEvent(QEvent.Leave))
    assert blocker.args == [None] and view.hover_tooltip() == ""
    qtbot.mouseMove(view.viewport(), centre(view, 3))
    qtbot.waitUntil(lambda: view.hover_tooltip().startswith("[3]"), timeout=1000)
    with qtbot.waitSignal(view.markHovered, timeout=1000) as blocker:
        view.set_add_mode(True)
    assert blocker.args == [None] and view.hover_tooltip() == ""
    with qtbot.assertNotEmitted(view.markHovered, wait=10):  # no hover while drawing boxes
        qtbot.mouseMove(view.viewport(), centre(view, 1))
    with qtbot.assertNotEmitted(view.addModeChanged, wait=10):
        view.set_add_mode(True)  # already on: nothing to tell


def test_hiding_the_marks_keeps_only_the_highlight_hovered(qtbot, view):
    view.set_highlight(3)
    hover(qtbot, view, centre(view, 1))
    qtbot.waitUntil(lambda: view.hover_tooltip().startswith("[1]"), timeout=1000)
    with qtbot.waitSignal(view.markHovered, timeout=1000) as blocker:
        view.set_marks_visible(False)  # box 1 is gone: no longer hovered
    assert blocker.args == [None]
    with qtbot.waitSignal(view.markHovered, timeout=1000) as blocker:
        qtbot.mouseMove(view.viewport(), centre(view, 3))
    assert blocker.args[0].id == 3
    with qtbot.assertNotEmitted(view.markHovered, wait=10):
        view.set_marks_visible(True)
        view.set_marks_visible(False)  # the highlighted box stays hovered
    assert view.hover_tooltip().startswith("[3]")
    with qtbot.waitSignal(view.markHovered, timeout=1000) as blocker:
        view.set_screenshot(make_png(), MARKS)  # a new screenshot: nothing hovered
    assert blocker.args == [None] and view.hover_tooltip() == ""


def test_the_view_is_composed_of_parts_not_mixins():
    """ScreenshotView's bases are Qt's alone; zoom and gestures are QObjects it owns (issue #30)."""
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QGraphicsView

    from cockpit.ui.screenshot.gestures import ViewGestures
    from cockpit.ui.screenshot.zoom import ViewZoom
    assert ScreenshotView.__bases__ == (QGraphicsView,)
    assert all(not c.__module__.startswith("cockpit.") for c in ScreenshotView.__mro__[1:])
    assert issubclass(ViewZoom, QObject) and issubclass(ViewGestures, QObject)


def test_parts_belong_to_the_view(qtbot):
    from cockpit.ui.screenshot.gestures import ViewGestures
    from cockpit.ui.screenshot.zoom import ViewZoom
    v = ScreenshotView()
    qtbot.addWidget(v)
    zooms, gestures = v.findChildren(ViewZoom), v.findChildren(ViewGestures)
    assert len(zooms) == 1 and len(gestures) == 1
    assert zooms[0].is_fitted() and not gestures[0].add_mode() and gestures[0].hovered() is None
