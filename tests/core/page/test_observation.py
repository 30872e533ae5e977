"""Observation: the screenshot taken beside the marking script, and the marking function a page cannot replace."""
import io

import pytest
from PIL import Image

from cockpit.core.page.observation import observe


def pixel(png: bytes, x: int, y: int):
    return Image.open(io.BytesIO(png)).convert("RGB").getpixel((x, y))


def test_screenshot_beside_marking_shows_the_current_page(page):
    b = page("obs_colors.html")
    assert b.direct_cdp() is not None  # local Chrome: a second DevTools connection is used
    obs = observe(b)
    assert Image.open(io.BytesIO(obs.screenshot)).size == (1024, 768)
    assert pixel(obs.screenshot, 150, 150) == (255, 0, 0)
    assert [m.text for m in obs.marks] == ["Turn blue"]  # the page's fake marking function was not used
    b.js("document.querySelector('button').click()")
    obs = observe(b)
    assert pixel(obs.screenshot, 150, 150) == (0, 0, 255)  # not a stale frame
    assert obs.thumb is not None and obs.thumb.size == (256, 192)


def test_a_broken_second_connection_falls_back_to_webdriver(page):
    b = page("obs_colors.html")
    direct = b.direct_cdp()
    direct._ws.close()  # as if Chrome dropped it
    try:
        obs = observe(b)
        assert pixel(obs.screenshot, 150, 150) == (255, 0, 0) and len(obs.marks) == 1
        assert b.direct_cdp() is None  # not retried for this tab
        assert pixel(observe(b).screenshot, 150, 150) == (255, 0, 0)
    finally:
        b._direct_tried.clear()  # the shared browser's other tests get the second connection again


def test_the_second_connection_does_not_go_through_a_proxy(page, monkeypatch):
    """Chrome's DevTools address is on this computer: an http proxy set in the environment (as on many
    office machines) must not be asked for it, which would turn the second connection off (or leak it)."""
    from cockpit.core.browser.cdp import DirectCDP
    b = page("obs_colors.html")
    address = b.driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")  # nothing listens there
    for var in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(var, raising=False)
    direct = DirectCDP.connect(address, b._main_handle, timeout=5)
    assert direct is not None
    try:
        assert pixel(direct.screenshot_png(), 150, 150) == (255, 0, 0)
    finally:
        direct.close()


def test_one_browsers_slow_screenshot_does_not_hold_up_anothers():
    """`cockpit run --concurrency N` observes N browsers from N threads: the screenshot thread pool must
    not make one browser's capture wait for another's (a heavy page, a hung tab)."""
    import threading

    from cockpit.core.page import observation

    gate = threading.Event()

    class Stuck:
        def screenshot_png(self):
            gate.wait(30)
            return b"a"

    class Quick:
        def screenshot_png(self):
            return b"b"

    stuck = observation._shooter.submit(observation._shoot, Stuck(), False)
    try:
        quick = observation._shooter.submit(observation._shoot, Quick(), False)
        assert quick.result(timeout=10) == (b"b", None)  # (the timeout only guards against a hang)
    finally:
        gate.set()
    assert stuck.result(timeout=10) == (b"a", None)


def test_marking_runs_on_its_own_connection_and_a_dialog_does_not_hang_it(page):
    import time

    from selenium.common.exceptions import UnexpectedAlertPresentException

    b = page("obs_colors.html")
    assert [m.text for m in observe(b).marks] == ["Turn blue"]
    direct = b.direct_cdp("script")
    assert direct is not None and direct is not b.direct_cdp()  # a connection of its own, beside the screenshots
    b.js("setTimeout(function () { alert('Are you sure?'); }, 0)")
    time.sleep(0.3)
    t = time.monotonic()
    with pytest.raises(UnexpectedAlertPresentException, match="Are you sure"):
        observe(b)  # said by WebDriver, as without the direct connection
    assert time.monotonic() - t < 2  # not the connection's 10 s wait
    b.answer_dialog(False)
    # a dialog opening while the script runs: the call gives up at once, and the page is marked afterwards
    b.js("setTimeout(function () { alert('again'); }, 0)")
    with pytest.raises(UnexpectedAlertPresentException):
        for _ in range(50):
            observe(b)
            time.sleep(0.01)
    b.answer_dialog(False)
    assert b.direct_cdp("script") is direct  # kept: the dialog was the page's, not the connection's
    obs = observe(b)
    assert [m.text for m in obs.marks] == ["Turn blue"] and pixel(obs.screenshot, 150, 150) == (255, 0, 0)


def test_marking_waits_for_the_screenshots_frame_not_for_the_page(page, monkeypatch):
    """With a screenshot being captured, the marking script runs just after the page's next frame (the
    capture needs that frame; see observation.collect_marks). The marks are those of an immediate run, and a
    page that replaced requestAnimationFrame and setTimeout does not leave the observation waiting."""
    import time

    from cockpit.core.page.observation import collect_marks

    b = page("obs_frames.html")
    at_once = collect_marks(b)["marks"]
    assert [m.text for m in at_once] == ["Go", "Next page"]
    after = collect_marks(b, after_frame=True)["marks"]
    assert [(m.text, m.bbox) for m in after] == [(m.text, m.bbox) for m in at_once]
    # the page's own animation turns 3 degrees a frame: by the time the script runs, a frame has been made
    turned = b.direct_cdp("script").evaluate(
        "(function () { var a0 = angle; return window.__cockpitAfterFrame(function () { return angle - a0 }, 1000)"
        " })()", await_promise=True)
    assert turned >= 3
    b.js("window.breakTimers()")
    through_webdriver = []
    real_js = b.js
    monkeypatch.setattr(b, "js", lambda *a, **k: through_webdriver.append(a) or real_js(*a, **k))
    t = time.monotonic()
    obs = observe(b)
    assert time.monotonic() - t < 1  # the direct connection would have waited 3 s or more before giving up
    assert [m.text for m in obs.marks] == ["Go", "Next page"] and not through_webdriver


def test_a_navigation_while_marking_keeps_the_marking_connection(page, site):
    """The marking script waits for a frame; a page that goes to another address meanwhile (a redirect, a
    script) makes that one call fail. The observation is still made (through WebDriver) and the direct
    connection is kept for the next ones, not given up for the rest of the tab."""
    import threading
    import time

    from cockpit.core.browser.cdp import DirectCDPNavigated

    b = page("obs_colors.html")
    direct = b.direct_cdp("script")
    threading.Timer(0.2, lambda: b.js("location.href = arguments[0]", site.url("agent_start.html"))).start()
    with pytest.raises(DirectCDPNavigated, match="navigated"):
        direct.evaluate("new Promise(function (done) { setTimeout(done, 2000) })", await_promise=True, timeout=5)
    time.sleep(0.5)
    assert "Open the details page" in [m.text for m in observe(b).marks]
    assert b.direct_cdp("script") is direct  # not a broken connection: kept
