"""Review, as walkthrough 8 found it awkward: Compare with… clickable with nothing to compare, the Category box
cut at its start, an empty pale-green box with no run open, and a search that missed tasks with words in
between. A real store, Review offscreen at 1280x800; what is read is what a person sees."""
from cockpit.core.store.newrun import NewRun


def finished_run(store, task: str, steps: int = 1) -> str:
    rid = store.new_run(NewRun(task, "https://shop.test/", model="m"))
    for i in range(1, steps + 1):
        store.commit_step(rid, dict(step=i, thought="Looking.", action="Scroll [WINDOW]; down",
                                    action_text="Scroll down", status="ok", outcome="scrolled",
                                    url="https://shop.test/", title="Shop"))
    store.finish_run(rid, "max_steps")
    return rid


def opened(qtbot, p, rid):
    p.show_run(rid)
    qtbot.waitUntil(lambda: p.viewer.run is not None and p.viewer.run["id"] == rid, timeout=5000)


def test_compare_is_disabled_with_a_reason_when_the_task_has_no_other_run(qtbot, store, panel):
    alone = finished_run(store, "Find the phone number")
    first = finished_run(store, "Find the address")
    p = panel()
    opened(qtbot, p, alone)
    btn = p.viewer.tools.compare_btn
    assert not btn.isEnabled()
    assert btn.toolTip() == "Cannot compare: no other run of this task (runs of the same task are compared)"
    second = finished_run(store, "Find the address")
    opened(qtbot, p, first)
    assert btn.isEnabled() and btn.toolTip() == "Another run of the same task, side by side with steps aligned"
    assert second
