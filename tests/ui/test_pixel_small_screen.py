"""A pixel-grounded run on a 1024x700 screen (issue #27, with issue #20's checks): the approval gate on a point
whose element has a very long label, the step log naming it, and take-over at a point on long text — the window
does not grow and nothing is cut off."""
from PySide6.QtCore import QPoint, Qt

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from testkit.pixelmodel import Move, PixelModel
from tests.ui.test_small_screen import SMALL, assert_fits
from tests.ui.windowtools import LONG


def test_a_pixel_gate_and_take_over_at_a_point_with_long_texts_fit_1024x700(qtbot, window_factory, browser, site):
    browser.goto(site.url("pixel_long.html"))
    model = PixelModel(browser, [Move("click", "#order", thought="Place the order. " * 40), Move("answer", text="x")],
                       "uitars", "qwen")
    with ModelServer(model) as srv:
        w = window_factory()
        w.resize(SMALL)
        w.settings.model = ModelConfig(base_url=srv.base_url, model="ui-tars", max_retries=0, dialect="uitars",
                                       coords="qwen")
        w.live.task_bar.set_task("order it " * 30, site.url("pixel_long.html"))
        assert w.start_run()
        qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
        assert w.live.view.pointer_marker() is not None
        assert "→ <button>" in w.live.log_panel.items[1].text(1)
        assert_fits(w, "pixel approval with a long label")
        qtbot.keyClick(w, Qt.Key_Backspace, Qt.ControlModifier)  # reject
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
        # A second run, paused before its first step (whose move would answer and end it), taken over there.
        assert w.start_run(paused=True)
        qtbot.waitUntil(lambda: w.bridge.state == "paused" and w.toolbar.act_take.isEnabled(), timeout=LONG)
        w.toolbar.act_take.trigger()
        qtbot.waitUntil(lambda: w.live.takeover.isVisible() and bool(w.live.view.marks()), timeout=LONG)
        got = browser.js("var r = document.getElementById('note').getBoundingClientRect();"
                         "return [r.left + 30, r.top + 10]")
        pos = w.live.view.mapFromScene(got[0], got[1])
        qtbot.mouseClick(w.live.view.viewport(), Qt.LeftButton, Qt.AltModifier, QPoint(pos.x(), pos.y()))
        assert w.live.takeover.point is not None
        assert_fits(w, "take-over at a point on long text")
        w.bridge.stop()
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
