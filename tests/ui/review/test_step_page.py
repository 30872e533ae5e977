"""Review and the web recording (issue #41): Replay "as recorded" gets past what a live replay cannot (a typed
card number, the order), the step view shows the element under the mark from the snapshot and the requests
the action caused, and "Open this step's page" opens the recorded page in a browser."""
from cockpit.core.store import Store
from tests.ui.windowtools import LONG, wait_idle


def test_replay_as_recorded_and_inspect_a_demo_run(qtbot, demo_window):
    w = demo_window
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.approval.approve_btn.click()  # the order is placed
    wait_idle(qtbot, w)
    parent = w.runs.run_id
    with Store(w.store_root) as s:
        steps = s.steps(parent)
    typed = next(r["step"] for r in steps if "(secret)" in (r["action"] or ""))

    w.modes.setCurrentWidget(w.review)
    w.review.show_run(parent)
    tools = w.review.viewer.tools
    tools.recorded_box.setChecked(True)
    tools.replay_speed.setCurrentIndex(tools.replay_speed.count() - 1)  # as fast as pages load
    tools.replay_btn.click()
    wait_idle(qtbot, w)
    assert not w.live.error_banner.isVisible(), w.live.error_banner.text()
    assert "from its recording" in w.live.banner.fullText(), w.live.banner.fullText()

    # the step view: what the recorded page had under the mark the model clicked, and what the click fetched
    w.modes.setCurrentWidget(w.review)
    w.review.show_run(parent)
    w.review.go(0)
    details = w.review.viewer.details
    details.setCurrentWidget(details.page)
    text = details.page.toPlainText()
    assert "Under mark [" in text and "CSS path" in text and "html > body" in text
    assert "Requests the action caused:" in text and "GET" in text
    w.review.go(typed - 1)
    assert "password" in details.page.toPlainText() or "cc-" in details.page.toPlainText() or \
        "<input" in details.page.toPlainText()

    w.review.go(0)
    tools.step_page_btn.click()
    qtbot.waitUntil(lambda: w.review.step_pages.page is not None or "Could not" in w.review.label_bar.status.text(),
                    timeout=LONG)
    page = w.review.step_pages.page
    assert page is not None, w.review.label_bar.status.text()
    assert "is open" in w.review.label_bar.status.text() and page.session.url == steps[0]["url"]
    w.review.step_pages.close()
