"""Stop while the browser starts (#38): Chromium that starts slowly, or hangs, can be called off. Real window
(offscreen), real chromedriver and Chromium, started through a wrapper that makes Chromium take 40 s to start."""
import sys
import time

from cockpit.core.store import Store
from tests.clitools import processes_mentioning
from tests.ui.windowtools import LONG


def test_stop_while_the_browser_starts_ends_the_start_at_once(qtbot, window_factory, monkeypatch, tmp_path):
    w = window_factory(demo=True)
    qtbot.waitUntil(lambda: w.status.browser.text() == "browser: ready", timeout=LONG)  # the warm-up's browser
    slow = tmp_path / "slow-chromium"
    slow.write_text(f"#!{sys.executable}\nimport os, sys, time\ntime.sleep(40)\n"  # Chromium's arguments kept
                    "os.execvp('chromium', ['chromium'] + sys.argv[1:])\n")
    slow.chmod(0o755)
    monkeypatch.setenv("COCKPIT_CHROME", str(slow))
    w.settings.viewport = (1000, 700)  # another browser than the warmed one: this run starts its own
    w.toolbar.act_run.trigger()  # Run (F5)
    qtbot.wait(2000)  # Chromium is starting
    assert w.bridge.state == "starting" and "Starting the browser" in w.live.view.message()
    assert w.toolbar.act_stop.isEnabled(), "Stop is greyed out while the browser starts"
    assert not w.toolbar.act_run.isEnabled()
    began = time.monotonic()
    w.toolbar.act_stop.trigger()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert time.monotonic() - began < 10, "Stop waited for Chromium to start"
    assert w.live.banner.fullText() == "The run was stopped before it began."
    assert "stopped while the browser was starting: no run was begun" in w.live.view.message()
    assert not w.live.error_banner.isVisible()  # not a failure: what the person asked for
    assert w.status.state.text() == "idle" and w.toolbar.act_run.isEnabled()
    qtbot.waitUntil(lambda: processes_mentioning(str(w.store_root)) == [], timeout=10_000)  # no Chromium left
    with Store(w.store_root) as s:
        assert s.runs() == []  # no run was begun
