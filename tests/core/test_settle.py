"""Settling waits for what a person waits for, and an observation is of one moment (issue #16).

Real headless Chromium on the fixture pages settle_*.html: what the agent's observation holds after
the page kept working past its load (a debounce timer, a web worker, an idle callback and a dynamic
import, a transition), and what a settle that hit its cap says was still pending.
"""
from contextlib import contextmanager

from cockpit.core.actions import parse_action
from cockpit.core.agent.execute import Executor
from cockpit.core.page.observation import MAX_RETRIES, observe


def texts(obs) -> list[str]:
    return [m.text for m in obs.marks]


def mark_id(obs, text):
    for m in obs.marks:
        if text in (m.text, m.aria_label, m.placeholder):
            return m.id
    raise AssertionError(f"no mark {text!r} in {texts(obs)}")


@contextmanager
def config(browser, **values):
    before = {k: getattr(browser.config, k) for k in values}
    for k, v in values.items():
        setattr(browser.config, k, v)
    try:
        yield
    finally:
        for k, v in before.items():
            setattr(browser.config, k, v)


def test_debounced_autocomplete_suggestions_are_marked_after_typing(page, browser):
    obs = observe(page("settle_autocomplete.html"))
    out = Executor(browser).run(parse_action(f"Type [{mark_id(obs, 'City')}]; aur"), obs.marks)
    assert out.settle["settled"], out.settle
    seen = texts(observe(browser))
    assert {"Aurora", "Aurich", "Auray"} <= set(seen), seen
    assert "Berlin" not in seen


def test_worker_built_results_are_marked(page, browser):
    seen = texts(observe(page("settle_worker.html")))
    assert "Settling a page" in seen and "Settle cap and pending work" in seen, seen


def test_render_after_idle_callback_and_dynamic_import(page, browser):
    seen = texts(observe(page("settle_idle.html")))
    assert "Open report" in seen and "Share report" in seen, seen


def test_drawer_links_after_its_transition_are_marked(page, browser):
    obs = observe(page("settle_pulse.html"))
    out = Executor(browser).run(parse_action(f"Click [{mark_id(obs, 'Open menu')}]"), obs.marks)
    assert out.settle["settled"], out.settle
    seen = texts(observe(browser))
    assert "Profile" in seen and "Settings" in seen, seen


def test_infinite_decorative_animation_does_not_hold_the_page(page, browser):
    page("settle_pulse.html")
    result = browser.settle()
    assert result["settled"] and result["pending"] == [], result


def test_infinite_spinner_stops_at_the_cap_and_says_what_was_pending(page, browser):
    with config(browser, settle_signal_cap_ms=600, settle_cap_ms=1500):
        page("settle_spinner.html")
        result = browser.settle()
    assert not result["settled"], result
    assert any(p.startswith("spinner div.spinner") for p in result["pending"]), result
    assert "text 'Loading…'" in result["pending"], result


def test_cap_reports_pending_work(page, browser):
    """A request slower than the cap: the result names it."""
    page("settle.html")
    browser.js("fetch('/__delay/3000')")
    with config(browser, settle_cap_ms=500):
        result = browser.settle()
    assert not result["settled"] and "fetch 1" in result["pending"], result


def test_static_page_settles_with_nothing_pending(page, browser):
    page("settle_static.html")
    result = browser.settle()
    assert result["settled"] and result["pending"] == [], result


def test_observation_marks_again_when_the_page_changed_meanwhile(page, browser):
    obs = observe(page("settle_static.html"))
    assert obs.stats["retries"] == 0
    obs = observe(page("settle_ticker.html"))  # changes every 4 ms: every try meets a change
    assert obs.stats["retries"] == MAX_RETRIES
    assert "Stop" in texts(obs)
