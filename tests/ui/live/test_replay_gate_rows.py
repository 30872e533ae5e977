""""Replay in browser" asks again before an irreversible step (#38): the step's row says what the gate asks about
and, rejected, that the step was not replayed (it was an empty row). Real windows (offscreen), real Chromium, a run
recorded by `cockpit run` with the scripted model server (it placed an order unasked), replayed on the same pages."""

from tests.ui.windowtools import LONG, wait_idle


def replay_to_the_gate(qtbot, window_factory, ordered):
    """The window replaying the run, asked before its order is placed again: (window, the row of that step)."""
    run, steps = ordered
    placed = next(s for s in steps if s["risk"] == "irreversible")
    w = window_factory()
    assert w.start_replay(run["id"], speed=None)
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)  # asked again before placing the order
    row = w.live.log_panel.items[placed["step"]]
    assert row.text(1) == placed["action"] and row.text(2) == "waiting for you", [row.text(c) for c in range(4)]
    earlier = [w.live.log_panel.items[s["step"]] for s in steps if s["step"] < placed["step"]]
    assert earlier and all(it.text(3).startswith("replayed: ") for it in earlier)
    return w, row


def test_a_replayed_step_rejected_at_the_gate_says_so_in_its_row(qtbot, window_factory, ordered):
    w, row = replay_to_the_gate(qtbot, window_factory, ordered)
    w.live.approval.reject_btn.click()
    wait_idle(qtbot, w)
    assert row.text(2) == "rejected by ada"
    assert row.text(3) == "not replayed: rejected at the gate"
    assert "not replayed: rejected at the gate" in row.toolTip(3)
    assert "was not approved" in w.live.error_banner.text()  # the replay's end, said as before


def test_a_replay_stopped_at_the_gate_says_so_in_the_row(qtbot, window_factory, ordered):
    w, row = replay_to_the_gate(qtbot, window_factory, ordered)
    w.toolbar.act_stop.trigger()
    wait_idle(qtbot, w)
    assert row.text(2) == "stopped before anyone decided"
    assert row.text(3) == "not replayed: the replay was stopped at the gate"
    assert not w.live.error_banner.isVisible(), w.live.error_banner.text()  # it said "internal error: Stopped"
    assert w.live.banner.fullText().startswith("replay: stopped")
