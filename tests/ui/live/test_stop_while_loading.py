"""Stop while the start page loads (walkthrough 8, B2): the pane said "Starting the browser…" with the browser up,
Stop did nothing until the page-load timeout (30 s), and the run was recorded "failed: the start page did not load"
(a site failure in Review and the reports). Real window (offscreen), real Chromium, a start page that answers
after 60 s (LocalSite's /__delay route), the scripted model server (never asked)."""
import time

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from tests.ui.windowtools import LONG


def test_stop_while_the_start_page_loads_ends_the_run_at_once_as_stopped(qtbot, window_factory, site):
    with ModelServer(["Thought: done.\nAction: ANSWER; never asked"]) as srv:
        w = window_factory()
        w.settings.model = ModelConfig(base_url=srv.base_url, model="m", max_retries=0)
        slow = site.url("__delay/60000")
        w.live.task_bar.set_task("Find the slow page's title", slow)
        w.toolbar.act_run.trigger()  # Run (F5)
        qtbot.waitUntil(lambda: bool(w.runs.run_id), timeout=LONG)  # the browser is up, the run begun
        qtbot.wait(1500)  # the start page is loading
        assert w.live.view.message() == f"The browser is up; opening the start page {slow}…"
        assert "Starting the browser" not in w.live.view.message()
        began = time.monotonic()
        w.toolbar.act_stop.trigger()  # Stop (Shift+F5)
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
        assert time.monotonic() - began < 5, "Stop waited for the page-load timeout"
    assert not w.live.error_banner.isVisible(), w.live.error_banner.text()  # not a failure: asked for
    assert w.live.view.message() == "The run was stopped while its start page was loading: no step was taken."
    assert w.live.banner.fullText().endswith("finished: stopped"), w.live.banner.fullText()
    with Store(w.store_root) as s:
        (run,) = s.runs()
        assert run["status"] == "stopped" and not run["error"], (run["status"], run["error"])
        assert s.steps(run["id"]) == []
