"""While the model's reply streams in, the whole window says it is arriving (#38: the status bar's state, and for
up to a second the step's details, said "waiting for the model" while the strip under the screenshot counted its
tokens). Real window (offscreen), real Chromium, the simulator as a slow streaming model."""
from cockpit.core.demo.simulator import SIM_MODEL, SimulatorSettings, serve_simulator
from cockpit.core.llm.client import ModelConfig
from tests.ui.windowtools import LONG, wait_idle


def test_the_state_and_the_details_say_the_reply_is_arriving_as_the_strip_does(qtbot, window_factory, site):
    w = window_factory()
    settings = SimulatorSettings(latency=(1.0, 1.5), tokens_per_second=6.0, unreadable=0, wrong_target=0, seed=1)
    w.live.task_bar.set_task("Find the secret number on the details page", site.url("agent_start.html"))
    seen = []
    with serve_simulator(settings) as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model=SIM_MODEL, max_retries=0, timeout=60)
        assert w.start_run()
        qtbot.waitUntil(lambda: 1 in w.live.log_panel.items, timeout=LONG)
        row = w.live.log_panel.items[1]

        def watch():  # what a person sees, sampled until the reply is in
            seen.append((w.live.thinking.head.fullText(), w.status.state.text(), w.live.details.summary.toPlainText()))
            return row.text(1).startswith("Click [")
        qtbot.waitUntil(watch, timeout=LONG)
        w.bridge.stop()
        wait_idle(qtbot, w)
    waiting = [s for s in seen if s[0].startswith("Step 1: waiting for the model")]
    writing = [s for s in seen if s[0].startswith("Step 1: the model is writing")]
    assert waiting and writing
    assert all(state == "waiting for the model" for _, state, _ in waiting)
    for head, state, details in writing:
        assert state == "the model is writing", (head, state)
        assert "waiting for the model" not in details and "writing…" in details, (head, details)
