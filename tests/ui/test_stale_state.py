"""Nothing stale in the Live tab (issue #20): what the window shows matches the page, the run and the step picked.

Real demo runs (offscreen Qt, real headless Chromium, real store), asserting what a user would see.
"""
import pytest
from PySide6.QtCore import QPoint, Qt

from cockpit.core.store import Store

LONG = 90_000


@pytest.fixture
def window(window_factory):
    return window_factory(demo=True)


def steps_of(w):
    with Store(w.store_root) as s:
        return s.steps(w.run_id)


def wait_paused_after(qtbot, w, n):
    qtbot.waitUntil(lambda: bool(n in w.log_panel.items and w.log_panel.items[n].text(4))
                    and w.bridge.state == "paused", timeout=LONG)


def click_mark(qtbot, w, mark_id):
    m = next(m for m in w.view.marks() if m.id == mark_id)
    x, y, bw, bh = m.bbox
    pos = w.view.mapFromScene(x + bw / 2, y + bh / 2)
    qtbot.mouseClick(w.view.viewport(), Qt.LeftButton, pos=QPoint(pos.x(), pos.y()))


def stop(qtbot, w):
    w.bridge.stop()
    qtbot.waitUntil(lambda: not w.running, timeout=LONG)


def test_take_over_target_and_text_are_cleared_when_the_page_changes(qtbot, window):
    w = window
    w.step_clicked()
    wait_paused_after(qtbot, w, 1)  # the demo searched: a page of results
    w.act_take.trigger()
    qtbot.waitUntil(lambda: w.takeover.isVisible() and "during take-over" in w.banner.text(), timeout=LONG)
    product = next(m for m in w.view.marks() if m.tag == "a" and "product" in (m.href or ""))
    click_mark(qtbot, w, product.id)
    assert f"Target: [{product.id}]" in w.takeover.info.text()
    assert w.takeover.click_btn.text() == f"Click [{product.id}]"
    w.takeover.text.setText("blue mug")
    results_url = w.bridge.session.url
    w.takeover.click_btn.click()  # the human's click opens the product page
    qtbot.waitUntil(lambda: any(s["actor"] == "human" for s in steps_of(w)), timeout=LONG)
    qtbot.waitUntil(lambda: "during take-over" in w.banner.text() and results_url not in w.banner.text()
                    and w.takeover.down_btn.isEnabled(), timeout=LONG)
    assert "Target:" not in w.takeover.info.text()
    assert w.takeover.click_btn.text() == "Click target" and not w.takeover.click_btn.isEnabled()
    assert not w.takeover.type_btn.isEnabled()
    assert w.takeover.text.text() == ""
    stop(qtbot, w)
