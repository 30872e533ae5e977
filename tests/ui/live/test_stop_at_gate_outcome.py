"""Stop while the gate asks (walkthrough 8, screenshot 123): the step's row said "stopped before anyone decided"
under Decision and left Outcome empty; Outcome now says the action was not run, and why.

Real window (offscreen), real Chromium, the demo policy on the bundled Demo Shop (it asks before "Place order").
"""
from tests.ui.windowtools import LONG, records, wait_idle


def test_a_step_stopped_at_the_gate_says_not_run_in_its_outcome(qtbot, window_factory):
    w = window_factory(demo=True)
    w.resize(1024, 700)
    assert w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    asked = w.live.approval.request
    w.toolbar.act_stop.trigger()
    wait_idle(qtbot, w)
    row = w.live.log_panel.items[asked.step]
    assert row.text(2) == "stopped before anyone decided"
    assert row.text(3) == "not run: stopped before anyone decided", row.text(3)
    assert records(w)[0]["status"] == "stopped"
