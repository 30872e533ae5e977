"""Review's run tools on an imported run (walkthrough 3, A16: Re-ask was offered on an imported WebVoyager run,
then refused in a dialog). Re-ask, "as recorded" and "Open this step's page" are disabled where they cannot
work, their tooltip saying why; on a run Cockpit recorded itself Re-ask stays enabled.

A real store, a WebVoyager results folder imported as the window imports it, the Review panel offscreen.
"""
from cockpit.core.store.exchange import import_folders
from testkit.fakeruns import make_run
from tests.webvoyager_runs import webvoyager_results


def test_reask_and_the_recording_tools_are_disabled_with_the_reason_on_an_imported_run(qtbot, panel, store,
                                                                                      tmp_path):
    import_folders(store, webvoyager_results(tmp_path))
    imported = store.runs()[0]["id"]
    own = make_run(store, steps=2, task="a run of our own")
    p = panel("ada")
    tools = p.viewer.tools
    p.show_run(imported)
    qtbot.waitUntil(lambda: p.viewer.current() is not None)
    assert not tools.reask_btn.isEnabled()
    assert tools.reask_btn.toolTip().startswith("Cannot re-ask: step 1 of run")
    assert "imported (webvoyager)" in tools.reask_btn.toolTip()
    assert not tools.recorded_box.isEnabled() and not tools.recorded_box.isChecked()
    assert "no web recording: it was imported" in tools.recorded_box.toolTip()
    assert not tools.step_page_btn.isEnabled() and "imported" in tools.step_page_btn.toolTip()
    assert tools.branch_btn.isEnabled() and tools.replay_btn.isEnabled()  # live, from the rebuilt history
    p.show_run(own)
    qtbot.waitUntil(lambda: p.viewer.current() is not None and p.viewer.run["id"] == own)
    assert tools.reask_btn.isEnabled()
    assert tools.reask_btn.toolTip().startswith("Send the exact request of this step again")


def test_with_no_run_open_the_run_tools_are_off(qtbot, panel, store):
    """Walkthrough 4: a search took the open run out of the list ("not in the list any more") and Branch, Replay,
    Compare and "Attempt this task yourself" stayed enabled; Branch then did nothing, without a word."""
    own = make_run(store, steps=2, task="a run of our own")
    make_run(store, steps=2, task="a run of our own")  # another run of its task: something to compare with
    p = panel("ada")
    tools = p.viewer.tools
    buttons = (tools.branch_btn, tools.replay_btn, tools.compare_btn, tools.attempt_btn, tools.reask_btn)
    assert not any(b.isEnabled() for b in buttons)  # "Pick a run on the left": nothing to do it on yet
    p.show_run(own)
    qtbot.waitUntil(lambda: p.viewer.current() is not None)
    assert tools.branch_btn.isEnabled() and tools.compare_btn.isEnabled()
    p.viewer.close_run("Run … is not in the list any more")
    assert not any(b.isEnabled() for b in (tools.branch_btn, tools.replay_btn, tools.compare_btn,
                                           tools.attempt_btn, tools.reask_btn))
    p.show_run(own)
    qtbot.waitUntil(lambda: p.viewer.current() is not None)
    assert tools.branch_btn.isEnabled() and tools.attempt_btn.isEnabled()


def test_a_run_with_no_start_address_cannot_be_replayed_or_branched(qtbot, panel, store):
    """Walkthrough 7: an imported Online-Mind2Web run with no start address offered Replay, which failed with
    "step 2: the start page  could not be opened" and replaced the Live fields."""
    rid = make_run(store, steps=2, task="a task with no address")
    store.set_run(rid, url="")
    p = panel("ada")
    tools = p.viewer.tools
    p.show_run(rid)
    qtbot.waitUntil(lambda: p.viewer.current() is not None)
    assert not tools.replay_btn.isEnabled() and not tools.branch_btn.isEnabled()
    assert tools.replay_btn.toolTip() == "Cannot replay: this run recorded no start address"
    assert tools.branch_btn.toolTip() == "Cannot branch: this run recorded no start address"
    p.show_run(make_run(store, steps=2, task="with one"))
    qtbot.waitUntil(lambda: bool(p.viewer.run["url"]))
    assert tools.replay_btn.isEnabled() and not tools.replay_btn.toolTip().startswith("Cannot")
