"""Whose news the status bar shows: the Live run's news goes when another tab shows (walkthrough 4), whichever part
of the window said it (the start's banner too), and the take-over's lasting news comes back with the Live tab; a
task file loaded is said each time, not only when it took a bad file's message away.

Real window (offscreen), real Chromium, the demo policy on the bundled Demo Shop.
"""
import json

from tests.ui.windowtools import LONG, records, wait_idle, wait_paused_after


def test_the_take_over_s_news_comes_back_with_the_live_tab_and_a_start_s_banner_is_live_news(qtbot, window_factory):
    w = window_factory(demo=True)
    w.step_clicked()
    wait_paused_after(qtbot, w, 1)
    w.toolbar.act_take.trigger()
    qtbot.waitUntil(lambda: w.status.current().startswith("You have the browser — "), timeout=LONG)
    news = w.status.current()
    w.modes.setCurrentWidget(w.review)
    assert w.status.current() == ""  # not Review's news
    w.modes.setCurrentWidget(w.reports)
    w.modes.setCurrentWidget(w.live)  # before: the take-over said nothing more for as long as it lasted
    assert w.status.current() == news
    w.modes.setCurrentWidget(w.review)
    w.bridge.stop()  # the take-over ends on another tab: its news does not come back
    wait_idle(qtbot, w)
    w.modes.setCurrentWidget(w.live)
    assert not w.status.current().startswith("You have the browser")

    run_id = records(w)[0]["id"]
    assert w.start_replay(run_id, None)
    assert w.status.current().startswith(f"Replaying run {run_id}")
    w.modes.setCurrentWidget(w.review)  # before: the start's banner stayed, read as Review's news
    assert w.status.current() == ""
    w.modes.setCurrentWidget(w.live)
    wait_idle(qtbot, w)


def test_a_task_file_loaded_is_said_whether_or_not_a_banner_showed(qtbot, window_factory, tmp_path):
    w = window_factory(demo=True)
    good = tmp_path / "three.jsonl"
    good.write_text("".join(json.dumps({"id": f"t{i}", "task": f"task {i}", "url": "https://example.com/"}) + "\n"
                            for i in range(3)))
    assert not w.live.error_banner.isVisible()
    assert w.live.task_bar.load_file(good) == 3
    assert w.status.current() == "Tasks loaded from three.jsonl"  # before: said only when it cleared a banner
    assert not w.live.error_banner.isVisible()


def test_a_task_file_s_notes_are_news_not_a_red_problem(qtbot, window_factory, tmp_path):
    """Walkthrough 5: a URL given without its scheme showed a red banner "1 problem: … using http://…", where
    `cockpit run --dry-run` calls it "a note, not a problem"."""
    w = window_factory(demo=True)
    tasks = tmp_path / "notes.jsonl"
    tasks.write_text(json.dumps({"id": "a", "task": "task a", "url": "127.0.0.1:8731/"}) + "\n"
                     + json.dumps({"id": "b", "task": "task b", "url": "https://example.com/"}) + "\n")
    assert w.live.task_bar.load_file(tasks) == 2
    assert not w.live.error_banner.isVisible()
    said = w.status.current()
    assert said.startswith("Tasks loaded from notes.jsonl (1 note: line 1:") and "http://127.0.0.1:8731/" in said
    bad = tmp_path / "bad.jsonl"  # a real problem beside the note: red, the note named as one
    bad.write_text(json.dumps({"id": "c", "task": "task c", "url": "127.0.0.1:8731/"}) + "\n" + "{not json\n"
                   + json.dumps({"id": "d", "task": "task d", "url": "https://example.com/"}) + "\n")
    w.live.task_bar.load_file(bad)
    assert w.live.error_banner.isVisible()
    text = w.live.error_banner.text()
    assert "1 problem" not in text and "(a note)" in text and "line 2" in text, text
