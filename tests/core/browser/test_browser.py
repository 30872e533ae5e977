"""Browser session life cycle: viewport, remote drivers, a browser that dies."""
import io
import os
import signal
import subprocess
import time

import pytest
from PIL import Image

from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.errors import BrowserDied, BrowserError, BrowserNotFound
from cockpit.core.page.observation import observe


def test_custom_viewport_is_exact(site):
    with BrowserSession(BrowserConfig(viewport=(800, 600))) as b:
        b.goto(site.url("grid.html"))
        obs = observe(b)
        assert Image.open(io.BytesIO(obs.screenshot)).size == (800, 600)
        assert obs.viewport == (800, 600)


def test_profile_is_isolated_and_removed(site):
    b = BrowserSession().start()
    profile = b.profile_dir
    assert profile.exists() and (profile / "downloads").is_dir()
    b.close()
    assert not profile.exists()


def test_remote_webdriver_url(site, tmp_path, chromedriver_url):
    cfg = BrowserConfig(webdriver_url=chromedriver_url,
                        extra_args=[f"--user-data-dir={tmp_path / 'p'}", "--no-sandbox"])
    with BrowserSession(cfg) as b:
        b.goto(site.url("grid.html"))
        obs = observe(b)
        assert [m.text for m in obs.marks] == ["A", "B", "C", "D", "E"]
        assert obs.viewport == (1024, 768)


def test_a_remote_browser_that_cannot_start_is_said_at_once(chromedriver_url):
    # As root, Chrome needs --no-sandbox; on a remote endpoint Cockpit does not add it (the node's user
    # counts). Its crash is an answer no retry changes: said at once, not after the session-start timeout.
    cfg = BrowserConfig(webdriver_url=chromedriver_url, extra_args=["--user-data-dir=/nonexistent/x"],
                        session_start_timeout=120)
    t0 = time.monotonic()
    with pytest.raises(BrowserError, match="refused the session"):
        BrowserSession(cfg).start()
    assert time.monotonic() - t0 < 30


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="Chrome runs sandboxed as a user")
def test_a_node_run_as_root_without_no_sandbox_is_told_the_fix(chromedriver_url):
    """A remote endpoint run as root whose Chrome exits at start: the message names the cause and the fix."""
    with pytest.raises(BrowserError) as err:
        BrowserSession(BrowserConfig(webdriver_url=chromedriver_url, session_start_timeout=60)).start()
    text = str(err.value)
    assert "Chrome exited as it started" in text and "--chrome-arg=--no-sandbox" in text, text


def test_missing_browser_binary_is_a_clear_error_and_leaves_nothing():
    from cockpit.core import paths
    before = set(paths.browser_profiles().iterdir())
    with pytest.raises(BrowserNotFound, match="not found at /nope/chrome"):
        BrowserSession(BrowserConfig(chrome_binary="/nope/chrome")).start()
    assert set(paths.browser_profiles().iterdir()) == before  # no stray profile folder


def _children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


@pytest.mark.fault("browser")
def test_killed_browser_raises_browser_died_quickly(site):
    b = BrowserSession(BrowserConfig(command_timeout=10)).start()
    try:
        b.goto(site.url("grid.html"))
        driver_pid = b._service.process.pid
        for pid in _children(driver_pid):  # chromium, started by chromedriver
            os.kill(pid, signal.SIGKILL)
        t = time.perf_counter()
        with pytest.raises(BrowserDied):
            observe(b)
            b.goto(site.url("grid.html"))
        assert time.perf_counter() - t < 15
        assert not b.alive
    finally:
        b.close()
