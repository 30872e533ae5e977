"""Walkthrough 9 B2: `cockpit demo` at 1024x700, Run, Pause, Step once, Take over (F8) (here: F8 at the gate).
The take-over panel takes the step log's room: the selected (newest) row stays in view, and a person's own step, "7 (you)", is scrolled
into view as it is added (before the fix the log showed rows 1–3, then 2–5).

Real window (offscreen), real Chromium, the demo policy on the bundled Demo Shop.
"""
from tests.ui.windowtools import LONG, wait_idle


def _in_view(log, step: int) -> bool:
    """Some of `step`'s row shows on the screen: in the step log's viewport, in the part of it the panels' scroll
    area does not cut off (the take-over panel pushes the log down, partly out of the area)."""
    return log.visualItemRect(log.items[step]).intersects(log.viewport().visibleRegion().boundingRect())


def test_the_take_over_panel_and_a_persons_step_keep_the_newest_row_in_view(qtbot, small_window):
    w = small_window
    log = w.live.log_panel
    assert w.start_run()
    # the demo's run holds at the gate on its irreversible step, the same place every time (a Pause lands where
    # the run happens to be; the walkthrough's Pause, Step once then F8 gave the same picture)
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    qtbot.wait(300)
    newest = max(log.items)
    assert log.current_step() == newest and _in_view(log, newest)
    w.live.right.setSizes([380, 320])  # the log's room as in the walkthrough: a few rows (its font was larger)
    qtbot.wait(300)
    w.toolbar.act_take.trigger()
    t = w.live.takeover
    qtbot.waitUntil(lambda: t.isVisible() and t.down_btn.isEnabled(), timeout=30_000)  # the fresh look is in
    qtbot.wait(300)
    # the panel pushed the log down: its selected, newest row still shows (before the fix: rows 1–3)
    assert _in_view(log, newest), (log.visualItemRect(log.items[newest]), log.viewport().rect())
    # the person types into a box: their row, "N (you)", is scrolled into view as it comes
    box = next(m for m in w.live.view.marks() if m.tag in ("input", "textarea"))
    t.set_target(box.id, box.label)  # as a click on its box does
    t.text.setText("Ada Lovelace")
    t.type_btn.click()
    qtbot.waitUntil(lambda: max(log.items) > newest and bool(log.items[max(log.items)].text(4))
                    and t.down_btn.isEnabled(), timeout=LONG)
    qtbot.wait(300)
    mine = max(log.items)
    assert log.items[mine].text(0) == f"{mine} (you)"
    assert _in_view(log, mine), (log.visualItemRect(log.items[mine]), log.viewport().rect())
    w.bridge.stop()
    wait_idle(qtbot, w)
