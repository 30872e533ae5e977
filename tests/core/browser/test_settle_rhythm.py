"""Settling tells a page's own rhythm from an action's consequences (issue #32).

Real headless Chromium on settle_rhythm.html: a one-second countdown (setInterval), a 100 ms poll
re-armed from its own callback that asks the server every fifth run, and a check re-armed with a
fresh arrow function after a fetch. A click that changes nothing is settled without waiting for
those tickers; a click that starts a 300 ms debounced fetch is waited for until its results show.
"""
from selenium.webdriver.common.by import By

from tests.core.browser.test_settle import browser_config


def click_id(browser, element_id):
    browser.guarded(lambda: browser.driver.find_element(By.ID, element_id).click())


def test_a_click_that_changes_nothing_is_not_held_by_the_pages_tickers(page, browser):
    page("settle_rhythm.html")
    browser.settle()
    # Before #32, the re-armed poll counted as the click's work for a whole second:
    # with a 600 ms cap the page never settled and "timer 100ms" was pending.
    with browser_config(browser, settle_cap_ms=600):
        for _ in range(3):
            click_id(browser, "nothing")
            result = browser.settle()
            assert result["settled"] and result["pending"] == [], result
    # the tickers still run for the page
    polls = int(browser.js("return document.getElementById('polls').textContent"))
    assert polls >= 5, polls


def test_a_click_that_starts_a_debounced_fetch_is_waited_for(page, browser):
    page("settle_rhythm.html")
    browser.settle()
    click_id(browser, "search")
    result = browser.settle()
    links = browser.js("return [...document.querySelectorAll('#results a')].map(a => a.textContent)")
    assert result["settled"] and links == ["Red shoes", "Blue shoes"], (result, links)


def test_the_debounced_fetch_is_reported_pending_when_the_cap_cuts_it_short(page, browser):
    page("settle_rhythm.html")
    browser.settle()
    with browser_config(browser, settle_cap_ms=150):
        click_id(browser, "search")
        result = browser.settle()
    assert not result["settled"] and result["pending"] == ["timer 300ms"], result


def test_intervals_still_work_for_the_page(page, browser):
    page("settle_static.html")
    got = browser.js_async("""
        const done = arguments[arguments.length - 1], out = {ticks: 0};
        document.querySelector('button').click();
        const id = setInterval((a, b) => { out.ticks++; out.args = a + b;
          if (out.ticks === 3) { clearInterval(id); setTimeout(() => done(out), 60); } }, 10, 2, 3);
        out.id = typeof id;
    """)
    assert got == {"ticks": 3, "args": 5, "id": "number"}, got
