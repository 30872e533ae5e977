"""Nothing stale in the Live tab (issue #20): what the window shows matches the page, the run and the step picked.

Real demo runs (offscreen Qt, real headless Chromium, real store), asserting what a user would see.
"""
from PySide6.QtCore import Qt

from cockpit.core.store import Store
from tests.ui.windowtools import LONG, click_mark, wait_paused_after


def steps_of(w):
    with Store(w.store_root) as s:
        return s.steps(w.runs.run_id)


def stop(qtbot, w):
    w.bridge.stop()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)


def test_take_over_target_and_text_are_cleared_when_the_page_changes(qtbot, demo_window):
    w = demo_window
    w.step_clicked()
    wait_paused_after(qtbot, w, 1)  # the demo searched: a page of results
    w.toolbar.act_take.trigger()
    qtbot.waitUntil(lambda: w.live.takeover.isVisible() and "during take-over" in w.live.banner.fullText(), timeout=LONG)
    product = next(m for m in w.live.view.marks() if m.tag == "a" and "product" in (m.href or ""))
    click_mark(qtbot, w, product.id)
    assert f"Target: [{product.id}]" in w.live.takeover.info.text()
    assert w.live.takeover.click_btn.text() == f"Click [{product.id}]"
    w.live.takeover.text.setText("blue mug")
    results_url = w.bridge.session.url
    w.live.takeover.click_btn.click()  # the human's click opens the product page
    qtbot.waitUntil(lambda: any(s["actor"] == "human" for s in steps_of(w)), timeout=LONG)
    qtbot.waitUntil(lambda: "during take-over" in w.live.banner.fullText() and results_url not in w.live.banner.fullText()
                    and w.live.takeover.down_btn.isEnabled(), timeout=LONG)
    assert "Target:" not in w.live.takeover.info.text()
    assert w.live.takeover.click_btn.text() == "Click target" and not w.live.takeover.click_btn.isEnabled()
    assert not w.live.takeover.type_btn.isEnabled()
    assert w.live.takeover.text.text() == ""
    stop(qtbot, w)


def highlighted_step(w):
    it = w.live.log_panel.currentItem()
    return None if it is None else int(it.data(0, Qt.UserRole))


def details_title(w):
    return w.live.details.summary.toPlainText().splitlines()[0]


def test_the_highlighted_row_and_the_details_follow_the_run_to_its_end(qtbot, demo_window):
    w = demo_window
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    assert highlighted_step(w) == 10
    assert details_title(w) == "Step 10"  # in progress: not "No step selected" beside a highlighted row
    assert "waiting for you" in w.live.details.summary.toPlainText()
    w.live.approval.reject_btn.click()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    last = max(w.live.log_panel.items)
    assert last > 10 and highlighted_step(w) == last
    assert details_title(w) == f"Step {last}"
    assert "placing it was refused" in w.live.details.summary.toPlainText()  # the answer, once the run has it


def test_a_row_picked_during_the_run_stays_picked_and_shown(qtbot, demo_window):
    w = demo_window
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.log_panel.select_step(4)
    assert highlighted_step(w) == 4 and details_title(w) == "Step 4"
    w.live.approval.reject_btn.click()  # the agent goes on: a new row for its answer
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert max(w.live.log_panel.items) > 10
    assert highlighted_step(w) == 4 and details_title(w) == "Step 4"
    assert "step 4" in w.live.banner.fullText()
    w.live.log_panel.select_step(max(w.live.log_panel.items))  # back to the newest row: shown too
    assert details_title(w) == f"Step {max(w.live.log_panel.items)}"


def test_while_paused_the_pane_shows_the_live_page(qtbot, demo_window):
    w = demo_window
    w.step_clicked()  # one step (the demo types its search and presses Enter), then paused
    wait_paused_after(qtbot, w, 1)
    first = steps_of(w)[0]
    assert first["url_after"] != first["url"]  # the step's action opened another page
    qtbot.waitUntil(lambda: w.live.banner.fullText().startswith("live page now (paused)"), timeout=LONG)
    assert first["url_after"][:80] in w.live.banner.fullText()
    assert any(m.text.startswith("Wireless Headphones") for m in w.live.view.marks())  # the results, with their boxes
    w.step_clicked()  # the next step looks at the same page, as the model's view
    wait_paused_after(qtbot, w, 2)
    assert steps_of(w)[1]["url"] == first["url_after"]
    stop(qtbot, w)


def test_a_failed_start_resets_status_counters_and_pane(qtbot, demo_window, site, no_keyring, monkeypatch):
    from cockpit.core.llm.client import ModelConfig
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    w = demo_window
    w.live.task_bar.set_task("What is the price of the Glass French Press in the Demo Shop?", "demo:index.html")
    w.start_run()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert w.status.steps.text().startswith("row ") and "tokens" in w.status.tokens.text() and w.live.view.has_screenshot()
    w.toolbar.demo_box.setChecked(False)  # a model that needs a key, and there is none
    w.settings.model = ModelConfig(base_url="https://api.openai.com/v1", model="gpt-4o", max_retries=0)
    w.live.task_bar.set_task("Find a mug", site.url("agent_start.html"))
    w.start_run()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert w.live.error_banner.isVisible() and "key" in w.live.error_banner.text().lower()
    assert w.status.state.text() == "idle"
    assert w.status.steps.text() == "" and w.status.tokens.text() == ""  # not the last run's "row 3 · agent step 3/15", tokens
    assert not w.live.view.has_screenshot() and "did not start" in w.live.view.message()
    assert w.live.banner.fullText() == "The run did not start."
    w.toolbar.demo_box.setChecked(True)  # a new attempt: the banner goes at once
    w.live.task_bar.set_task("What is the price of the Glass French Press in the Demo Shop?", "demo:index.html")
    assert w.start_run()
    assert not w.live.error_banner.isVisible() and w.status.steps.text() == ""
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert not w.live.error_banner.isVisible() and w.status.steps.text().startswith("row ")


def first_page_cart(qtbot, w, before):
    """Start a demo run; the cart link on its first page, as the pane shows it; then stop it."""
    assert w.start_run()
    qtbot.waitUntil(lambda: w.runs.run_id not in ("", before) and w.runs.latest_step >= 1 and bool(w.live.view.marks()), timeout=LONG)
    cart = next(m.text for m in w.live.view.marks() if m.text.startswith("Cart ("))
    stop(qtbot, w)
    return cart


def test_each_run_starts_with_a_fresh_browser_profile_unless_kept(qtbot, demo_window):
    w = demo_window
    w.start_run()  # the demo puts the headphones in the cart, then is refused at "Place order"
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.approval.reject_btn.click()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    first = w.runs.run_id
    assert first_page_cart(qtbot, w, first) == "Cart (0)"  # the last run's cart is not this run's
    second = w.runs.run_id
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.approval.reject_btn.click()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    w.toolbar.keep_browser_box.setChecked(True)  # asked for: this run goes on in the browser as the last one left it
    assert first_page_cart(qtbot, w, second) == "Cart (1)"


def test_a_run_refused_at_the_gate_ends_refused_not_answered(qtbot, demo_window):
    from cockpit.ui.review.runs_model import COLUMNS
    w = demo_window
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.approval.reject_btn.click()  # "Place order" refused: the demo agent answers that it stopped
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    with Store(w.store_root) as s:
        assert s.run(w.runs.run_id)["status"] == "refused"
        assert [r["id"] for r in s.runs(status="refused")] == [w.runs.run_id]
    assert "finished: refused (stopped at the gate)" in w.live.banner.fullText()
    w.modes.setCurrentWidget(w.review)  # Review: the runs list and its status filter say so too
    m = w.review.browser.model
    status = [k for _, k in COLUMNS].index("status")
    assert m.data(m.index(0, status)) == "refused"  # short in the list (walkthrough 5: it squeezed the Task column)
    assert m.data(m.index(0, status), Qt.ToolTipRole) == "refused (stopped at the gate)"
    assert w.review.browser.f_status.findText("refused") > 0


def test_a_window_closed_at_once_leaves_no_browser_behind(qtbot, window_factory, monkeypatch, tmp_path):
    """The browser warms up in the background as the window opens; closing first must not leave it running."""
    import time

    from cockpit.ui.live import bridge as bridge_mod
    from tests.clitools import processes_mentioning
    home = tmp_path / "quick-home"
    monkeypatch.setenv("COCKPIT_HOME", str(home))
    real = bridge_mod.run_in_background

    def late(work, **kw):  # the warm-up's thread gets going a moment after the window closed
        def slow():
            time.sleep(1.0)
            return work()
        return real(slow, **kw)
    monkeypatch.setattr(bridge_mod, "run_in_background", late)
    w = window_factory(demo=True)
    qtbot.wait(50)  # the warm-up is asked for as the window opens
    w.close()
    time.sleep(5)  # the late warm-up would have started Chromium by now
    assert processes_mentioning(str(home)) == []


def test_closing_the_window_at_the_approval_gate_is_clean(qtbot, demo_window):
    """Events of the stopped run that arrive after the window closed its store must not reach it."""
    w = demo_window
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.close()
    qtbot.wait(1500)  # the stopped run's last events are delivered (pytest-qt fails on an exception in a slot)
    with Store(w.store_root) as s:
        assert s.run(w.runs.run_id)["status"] == "stopped"


def test_a_run_still_going_when_the_window_closes_keeps_its_bridge_until_it_ends(qtbot, tmp_path):
    """A run that does not stop within shutdown's wait emits on its bridge afterwards: the bridge must not
    be deleted with the window until then (a QObject freed under its worker's emit crashes the process)."""
    import shiboken6

    from cockpit.core.settings import Settings
    from cockpit.ui.live import bridge as bridge_mod
    from cockpit.ui.main_window import MainWindow
    w = MainWindow(settings=Settings(annotator="ada"), store_root=tmp_path / "home", demo=True)  # deleted here
    w.show()
    qtbot.waitExposed(w)
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    b = w.bridge
    b.shutdown(timeout=0)  # as if the run's last browser call outlasted the wait
    assert b in bridge_mod._outliving and b.parent() is None
    w.close()
    w.deleteLater()
    qtbot.wait(100)  # the window is gone; its run's last events still go to a living bridge, not to the window
    assert not shiboken6.isValid(w) and shiboken6.isValid(b)
    qtbot.waitUntil(lambda: b not in bridge_mod._outliving, timeout=LONG)
    assert shiboken6.isValid(b) and not b.busy
