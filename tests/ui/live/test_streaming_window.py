"""Waiting on a model in the window (issue #38), with the simulator as the model: it takes seconds and streams.
While the reply comes, the step's row and the strip under the screenshot show the wait, then the thought as it
is written with its tokens per second, then the action; Stop during a reply ends the run and hangs up on the
server. Real window (offscreen), real Chromium, the real openai client; at 1024x700."""
import threading

import pytest

from cockpit.core.demo.simulator import SIM_MODEL, SimulatorSettings, serve_simulator
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.words import plural
from tests.clitools import cockpit, ok
from tests.ui.windowtools import LONG, records, wait_idle


@pytest.fixture
def window_1024(window_factory):
    win = window_factory()
    win.resize(1024, 700)
    return win


def use(w, srv):
    w.settings.model = ModelConfig(base_url=srv.base_url, model=SIM_MODEL, max_retries=0, timeout=60)


def test_the_step_row_and_the_strip_show_the_wait_then_the_thought_as_it_is_written(qtbot, window_1024, site):
    w = window_1024
    settings = SimulatorSettings(latency=(2.5, 3.0), tokens_per_second=12.0, unreadable=0, wrong_target=0, seed=1)
    w.live.task_bar.set_task("Find the secret number on the details page", site.url("agent_start.html"))
    seen = {"rows": [], "heads": [], "thoughts": []}
    with serve_simulator(settings) as srv:
        use(w, srv)
        assert w.start_run()
        qtbot.waitUntil(lambda: 1 in w.live.log_panel.items, timeout=LONG)
        row = w.live.log_panel.items[1]
        strip = w.live.thinking

        def watch():  # what a person sees, sampled until the reply is in
            seen["rows"].append((row.text(1), row.text(3)))
            seen["heads"].append(strip.head.fullText())
            seen["thoughts"].append(strip.thought.fullText())
            return row.text(1).startswith("Click [") and not row.text(3)
        qtbot.waitUntil(watch, timeout=LONG)
        assert "[SIMULATOR: rule-based, not a model]" in w.live.banner.fullText() or w.runs.simulated
        wait_idle(qtbot, w)
    outcomes = [o for _, o in seen["rows"]]
    assert any(o.startswith("waiting for the model…") for o in outcomes)
    assert any(o.startswith("writing…") and "tok/s" in o for o in outcomes)
    heads = seen["heads"]
    assert any(h.startswith("Step 1: waiting for the model") for h in heads)
    assert any(h.startswith("Step 1: the model is writing — ") and "tokens/s" in h for h in heads)
    growing = [t for t in seen["thoughts"] if t.startswith("Thought: ")]
    assert len(set(growing)) >= 3 and len(growing[0]) < len(growing[-1])  # written a few words at a time
    # the thought came before the action: a row with a thought and no action yet was on screen
    thought_rows = [r for r, h in zip(seen["rows"], heads) if "writing" in h and not r[0]]
    assert thought_rows
    assert heads[-1].startswith("Step 1: the model's reply — ")
    run, steps, _ = records(w)
    assert run["status"] == "answered" and run["config"]["model"]["model"] == SIM_MODEL
    assert steps[0]["thought"].endswith("so I'll open it.")
    assert w.width() <= 1024 and w.height() <= 700
    assert not strip.isVisible()  # the run is over: the banner says how it ended


def test_stop_during_a_reply_ends_the_run_at_once_and_hangs_up_on_the_model(qtbot, window_1024, site):
    w = window_1024
    # a first token at once, then about 30 pieces at 2 a second: the reply would take some 15 s
    settings = SimulatorSettings(latency=(1.0, 1.5), tokens_per_second=2.0, unreadable=0, wrong_target=0)
    w.live.task_bar.set_task("Find the secret number on the details page", site.url("agent_start.html"))
    with serve_simulator(settings) as srv:
        use(w, srv)
        assert w.start_run()
        qtbot.waitUntil(lambda: 1 in w.live.log_panel.items
                        and w.live.log_panel.items[1].text(3).startswith("writing…")
                        and "Agent start" in w.live.thinking.thought.fullText(), timeout=LONG)
        thought = w.live.thinking.thought.fullText()
        w.toolbar.act_stop.trigger()
        wait_idle(qtbot, w, timeout=10_000)  # well before the reply would have ended
        gone = threading.Event()
        for _ in range(100):
            if srv.abandoned:
                break
            gone.wait(0.05)
        assert srv.abandoned == 1  # the connection was closed: the model stops writing
    run, steps, _ = records(w)
    assert run["status"] == "stopped" and steps[0]["status"] == "stopped"
    assert thought.startswith("Thought: I am on 'Agent start'.")
    assert "stopped" in w.live.log_panel.items[1].text(3)
    # what the model had written is kept (#38 B2): the step's Raw reply and `cockpit runs` show it
    assert steps[0]["reply"].startswith("Thought: I am on 'Agent start'.") and "cut off by Stop" in steps[0]["reply"]
    assert steps[0]["completion_tokens"] >= 2
    # walkthrough 8: the status bar said "0 tokens" while the step kept 4; it counts them as the step records them
    kept = (steps[0]["prompt_tokens"] or 0) + steps[0]["completion_tokens"]
    assert w.status.tokens.text().split(",")[0].split(" (")[0] == plural(kept, "token", grouped=True)
    w.live.log_panel.select_step(1)
    qtbot.waitUntil(lambda: "cut off by Stop" in w.live.details.raw.toPlainText(), timeout=5000)
    assert w.live.details.raw.toPlainText().startswith("Thought: I am on 'Agent start'.")
    printed = ok(cockpit(w.store_root, "runs", run["id"]))
    assert "reply:    Thought: I am on 'Agent start'." in printed and "cut off by Stop" in printed


def test_pause_while_the_model_writes_says_so_at_once_and_holds_its_action_unrun(qtbot, window_1024, site):
    w = window_1024
    settings = SimulatorSettings(latency=(1.0, 1.5), tokens_per_second=8.0, unreadable=0, wrong_target=0)
    start = site.url("agent_start.html")
    w.live.task_bar.set_task("Find the secret number on the details page", start)
    with serve_simulator(settings) as srv:
        use(w, srv)
        assert w.start_run()
        qtbot.waitUntil(lambda: 1 in w.live.log_panel.items
                        and w.live.log_panel.items[1].text(3).startswith("writing…"), timeout=LONG)
        w.toolbar.act_pause.trigger()
        assert w.status.state.text() == "pausing after this reply…"  # at once, not after the action ran
        assert not w.toolbar.act_pause.isEnabled()
        # the reply ends; its action waits at the gate, unrun, saying why
        qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
        panel = w.live.approval
        assert "held because you pressed Pause" in panel.title.text()
        assert "you pressed Pause while the model wrote this action" in panel.evidence.text()
        assert w.bridge.session.driver.current_url == start  # the click has not run
        panel.approve()
        qtbot.waitUntil(lambda: w.status.state.text() == "paused", timeout=LONG)
        run, steps, decisions = records(w)
        assert steps[0]["action"].startswith("Click [") and steps[0]["status"] == "ok"
        assert len(steps) == 1 and decisions[0]["approved"] == 1
        w.toolbar.act_stop.trigger()
        wait_idle(qtbot, w)


def test_a_proxy_page_instead_of_the_model_is_named_in_the_banner_the_status_and_each_retry(qtbot, window_1024, site):
    w = window_1024
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway from proxy</h1></body></html>"
    w.live.task_bar.set_task("Look around", site.url("agent_start.html"))
    heads = []
    with ModelServer(lambda b: Reply(body=page, content_type="text/event-stream", delay=0.4)) as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model="test-model", max_retries=2, backoff=0.1,
                                       timeout=30)
        assert w.start_run()
        qtbot.waitUntil(lambda: heads.append(w.live.thinking.head.fullText()) or not w.runs.running, timeout=LONG)
    said = "answered with an HTML page, not the API (502 Bad Gateway)"
    assert said in w.live.error_banner.text() and '"502 Bad Gateway from proxy"' in w.live.error_banner.text()
    assert said in w.status.message.fullText()
    run, steps, _ = records(w)
    assert run["status"] == "failed" and said in steps[0]["error"] and "stream closed early" not in steps[0]["error"]
    # a later attempt says why the one before failed
    assert any("(attempt 2, after an HTML page, not the API: 502 Bad Gateway)" in h for h in heads), set(heads)
