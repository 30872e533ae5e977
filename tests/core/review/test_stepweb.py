"""Inspecting a step as it was (issue #41): the element under the model's mark from the step's snapshot, the
requests its action caused, and a browser opened on the recorded page."""
from cockpit.core.browser.session import BrowserConfig
from cockpit.core.replay.stepview import open_step_page
from cockpit.core.review.stepweb import step_web


def test_the_step_view_finds_the_element_and_the_requests(recorded_run, store):
    run_id, shop = recorded_run
    shop.stop()  # all of it comes from the recording
    rows = store.steps(run_id, with_request=False)
    first = step_web(store, run_id, rows[0])
    assert first.recorded and first.snapshot and first.how.startswith("mark [")
    el = first.element
    assert el.tag == "a" and el.text == "Red kettle" and el.attributes["href"] == "web_item.html?id=2"
    assert el.css_path.startswith("html > body > ul > li:nth-of-type(") and el.css_path.endswith(" > a")
    assert [r["url"].rsplit("/", 1)[1] for r in first.requests][:1] == ["web_item.html?id=2"]
    assert {r["url"].rsplit("/", 1)[1] for r in first.requests} >= {"web_item.html?id=2", "web.css", "items.json"}

    typed = step_web(store, run_id, rows[1])  # the password field: its value is not in the snapshot
    assert typed.element.tag == "input" and typed.element.attributes["type"] == "password"
    assert typed.element.value == "" and typed.requests == []
    order = step_web(store, run_id, rows[2])
    assert order.element.tag == "button" and order.element.text == "Place order"
    assert [(r["method"], r["url"].rsplit("/", 1)[1], r["status"]) for r in order.requests][0] == \
        ("POST", "web_done.html", 200)


def test_open_this_steps_page_serves_it_from_the_recording(recorded_run, store):
    run_id, shop = recorded_run
    shop.change()
    before = len(shop.seen)
    page = open_step_page(store, run_id, 3, BrowserConfig())
    try:
        assert page.session.title == "Web item Red kettle"  # the item as it was, renamed since
        page.session.driver.refresh()  # a reload answers from the recording too
        page.session.settle()
        assert page.session.title == "Web item Red kettle" and page.missing == []
    finally:
        page.close()
    assert len(shop.seen) == before
