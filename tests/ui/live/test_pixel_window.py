"""A pixel-grounded model in the window (issue #27): the crosshair at the gate, the step log naming the element
the point hit, and take-over at a point (offscreen Qt, real Chromium, real store, the scripted pixel model)."""
import pytest
from PySide6.QtCore import QPoint, Qt

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from testkit.pixelmodel import Move, PixelModel
from tests.ui.windowtools import LONG, wait_paused_after


@pytest.fixture
def pixel_window(window_factory, browser, site):
    """The window set up for a pixel model; the model locates targets in the shared test browser, on the same
    page at the same viewport, so its points are the window's browser's points too."""
    browser.goto(site.url("pixel_shop.html"))
    made = []

    def make(moves, dialect="plain"):
        model = PixelModel(browser, moves, dialect, "pixels")
        srv = ModelServer(model).start()
        made.append(srv)
        w = window_factory()
        w.settings.model = ModelConfig(base_url=srv.base_url, model="pixel", max_retries=0, dialect=dialect)
        w.live.task_bar.set_task("order a copy", site.url("pixel_shop.html"))
        return w, model
    yield make
    for srv in made:
        srv.stop()


def test_the_gate_shows_the_crosshair_and_the_log_names_the_element(qtbot, pixel_window):
    w, model = pixel_window([Move("click", "#order"), Move("answer", text="ordered")])
    assert w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    assert "Click (" in w.live.approval.title.text() and "irreversible" in w.live.approval.title.text()
    marker = w.live.view.pointer_marker()
    x, y = model.targets[0]
    assert marker is not None and abs(marker.pos().x() - x) <= 1 and abs(marker.pos().y() - y) <= 1
    qtbot.keyClick(w, Qt.Key_Return, Qt.ControlModifier)  # approve
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    with Store(w.store_root) as s:
        run, steps = s.run(w.runs.run_id), s.steps(w.runs.run_id)
    assert run["status"] == "answered" and steps[0]["url_after"].endswith("agent_ordered.html")
    assert '→ <button> "Place order"' in w.live.log_panel.items[1].text(1)  # the action column


def test_take_over_clicks_at_a_point_as_a_human_step(qtbot, pixel_window, browser):
    w, model = pixel_window([Move("click", "h1"), Move("answer", text="done")])
    w.step_clicked()
    wait_paused_after(qtbot, w, 1)  # step 1 done (its row is made when it starts, the run paused before it)
    w.toolbar.act_take.trigger()
    qtbot.waitUntil(lambda: w.live.takeover.isVisible() and w.live.takeover.down_btn.isEnabled(), timeout=LONG)
    qtbot.waitUntil(lambda: bool(w.live.view.marks()), timeout=LONG)  # the live page is on screen
    got = browser.js("var r = document.getElementById('press').getBoundingClientRect();"
                     "return [r.left + r.width / 2, r.top + r.height / 2]")
    pos = w.live.view.mapFromScene(got[0], got[1])
    qtbot.mouseClick(w.live.view.viewport(), Qt.LeftButton, Qt.AltModifier, QPoint(pos.x(), pos.y()))
    assert w.live.takeover.point is not None and w.live.takeover.click_btn.text().startswith("Click (")
    assert "Hold to highlight" in w.live.takeover.info.text()
    w.live.takeover.click_btn.click()
    qtbot.waitUntil(lambda: bool(_human_steps(w)), timeout=LONG)
    human = _human_steps(w)[0]
    assert human["action"].startswith("Click (") and human["status"] == "ok", human
    assert human["pointer"]["resolved"]["text"] == "Hold to highlight"
    assert human["outcome"].startswith("clicked at") and 'on <div> "Hold to highlight"' in human["outcome"]
    w.bridge.stop()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)


def _human_steps(w):
    with Store(w.store_root) as s:
        return [r for r in s.steps(w.runs.run_id) if r.get("actor") == "human"]


def test_the_windows_device_scale_reaches_its_browser_and_the_model(qtbot, pixel_window):
    """Issue #39: the device scale set in Model… (beside the viewport) is the scale of the window's runs."""
    w, model = pixel_window([Move("click", "#press"), Move("answer", text="done")], dialect="claude")
    w.settings.device_scale_factor = 2.0
    assert w.start_run()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert w.bridge.browser_config.device_scale_factor == 2.0
    with Store(w.store_root) as s:
        steps = s.steps(w.runs.run_id)
    assert steps[0]["pointer"]["frame"]["image"] == [2048, 1536] and steps[0]["status"] == "ok"
    x, y = model.said[0]  # the model pointed on the 2048x1536 screenshot; the click landed on the control
    assert abs(x / 2 - model.targets[0][0]) <= 1 and "Hold to highlight" in steps[0]["outcome"]


def test_a_ui_tars_answer_reads_as_cockpits_answer_in_the_step_log(qtbot, window_factory, site):
    """Walkthrough 9, A4: the Action column read "finished( content=' Deleted the …" where a Set-of-Mark run says
    "ANSWER; Deleted the item". Every action of a pixel dialect shows in Cockpit's grammar (a hotkey too); what the
    model wrote is in the expanded row and the raw reply is stored as it came."""
    replies = ["Thought: to the end of the list.\nAction: hotkey(key='end')",
               "Thought: it is gone.\nAction: finished(content='Deleted the item')"]
    with ModelServer(list(replies)) as srv:
        w = window_factory()
        w.settings.model = ModelConfig(base_url=srv.base_url, model="ui-tars", max_retries=0, dialect="uitars")
        w.live.task_bar.set_task("Delete the item", site.url("pixel_shop.html"))
        assert w.start_run()
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    with Store(w.store_root) as s:
        run, steps = s.run(w.runs.run_id), s.steps(w.runs.run_id)
    assert (run["status"], run["answer"]) == ("answered", "Deleted the item")
    rows = w.live.log_panel.items
    assert rows[2].text(1) == steps[1]["action"] == "ANSWER; Deleted the item"
    assert rows[1].text(1) == steps[0]["action"] == "Press [End]"
    for row, raw in ((rows[1], "hotkey(key='end')"), (rows[2], "finished(content='Deleted the item')")):
        assert f"model wrote: {raw}" in [row.child(i).text(0) for i in range(row.childCount())]
    assert [s["action_text"] for s in steps] == ["hotkey(key='end')", "finished(content='Deleted the item')"]
    assert [s["reply"] for s in steps] == replies  # byte for byte
