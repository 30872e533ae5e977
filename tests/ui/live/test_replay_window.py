""""Replay in browser" in the Live tab (#38): the status bar says the browser runs, and the step log lists the
steps replayed. Real windows (offscreen), real Chromium, a run of the demo policy replayed on the demo shop."""
from cockpit.core.store import Store
from tests.ui.windowtools import LONG, records, wait_idle


def test_a_replay_shows_its_browser_and_its_steps(qtbot, window_factory):
    first = window_factory(demo=True)
    first.live.task_bar.set_task("What is the price of the Glass French Press in the Demo Shop?", "demo:index.html")
    first.toolbar.policy.setCurrentText("never")
    assert first.start_run()
    wait_idle(qtbot, first)
    run, steps, _ = records(first)
    assert run["status"] == "answered"
    first.close()

    w = window_factory()  # a new window: the replay is the first thing its browser does
    assert w.status.browser.text() in ("browser: not started", "browser: ready")  # ready: warmed up already
    assert w.start_replay(run["id"], speed=1.0)
    qtbot.waitUntil(lambda: w.bridge.state == "replaying", timeout=LONG)
    assert w.status.browser.text() == "browser: running"  # before #38: "browser: not started", Chromium running
    wait_idle(qtbot, w)
    assert w.live.banner.fullText().startswith("replay: replayed ")
    with Store(w.store_root) as s:
        replayed = [r for r in s.steps(run["id"]) if r["status"] == "ok"]  # ANSWER is not acted in a replay
    rows = w.live.log_panel.items
    assert sorted(rows) == [r["step"] for r in replayed] and replayed  # before #38 the log stayed empty
    for r in replayed:
        assert rows[r["step"]].text(1) == r["action"] and rows[r["step"]].text(3).startswith("replayed: ")
    # a replayed row opens the step it replayed, as recorded (walkthroughs 4 and 6: "No step selected")
    first = replayed[0]
    w.live.log_panel.setCurrentItem(rows[first["step"]])
    qtbot.waitUntil(lambda: w.live.banner.fullText().startswith(f"step {first['step']} "), timeout=5000)
    assert w.live.view.has_screenshot() and "No step selected" not in w.live.details.summary.toPlainText()
    assert first["action"] in w.live.details.summary.toPlainText()


def test_the_browser_started_ahead_of_the_first_run_is_said(qtbot, window_factory):
    """Walkthrough 4: the window starts Chromium ahead of the first run (the warm-up), and the status bar said
    "browser: not started" while it ran."""
    w = window_factory()
    qtbot.waitUntil(lambda: w.status.browser.text() != "browser: not started", timeout=LONG)
    assert w.status.browser.text() == "browser: ready" and w.bridge.session is not None


def test_a_one_step_replay_shows_the_page_it_left(qtbot, window_factory, site):
    """Walkthrough 6: a replay of a run of one click and its answer ended with the pane still saying "Replaying run
    …" (it ended before the live view's first frame); it shows the page the replay left."""
    from cockpit.core.llm.modelserver import ModelServer
    from tests.clitools import cockpit, ok
    w = window_factory()
    home = w.store_root
    w.close()
    with ModelServer(["Thought: the details.\nAction: Click [1]", "Thought: done.\nAction: ANSWER; 4217"]) as srv:
        ok(cockpit(home, "run", "--task", "What is the secret number?", "--url", site.url("agent_start.html"),
                   "--base-url", srv.base_url, "--model", "m", "--approval", "allow"))
    with Store(home) as s:
        (run,) = s.runs()
    w = window_factory()
    w.bridge.live_interval = 60  # no periodic frame comes in time: only the one the replay ends with
    assert w.start_replay(run["id"], speed=None)
    wait_idle(qtbot, w)
    qtbot.waitUntil(lambda: w.live.view.has_screenshot(), timeout=5000)  # before: "Replaying run …" for good


def test_the_replay_summary_says_how_well_the_pages_matched():
    """Walkthrough 7: "the page matched throughout" stood beside a row replayed at similarity 0.62 on another box."""
    from types import SimpleNamespace as S

    from cockpit.ui.live.bridge import matched
    assert matched([S(similarity=None, id_changed=False)]) == "the pages were not checked"
    assert matched([S(similarity=1.0, id_changed=False), S(similarity=1.0, id_changed=False)]) == \
        "the page matched throughout"
    assert matched([S(similarity=1.0, id_changed=False), S(similarity=0.62, id_changed=True)]) == \
        "the pages matched well enough (lowest similarity 0.62; 1 element found under another box number)"
