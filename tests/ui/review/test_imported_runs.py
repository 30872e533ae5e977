"""Imported runs in Review (#38): the Started column gives the run's own start time where its source records
one (browser-use's step times, a WebVoyager agent.log) and says "imported <date>" where it records none; and
importing the same browser-use history again, with or without --agent, says which run it already is."""
import datetime as dt
import json

from cockpit.core.store import Store
from cockpit.ui.review.runs_model import column
from tests.clitools import cockpit, ok
from tests.images import numbered_png

RAN_AT = 1740000000.5  # 2025-02-19: long before the import


def history(start: float | None) -> dict:
    meta = {"step_number": 1, **({"step_start_time": start, "step_end_time": start + 4} if start else {})}
    return {"history": [
        {"model_output": {"current_state": {"evaluation_previous_goal": "", "memory": "", "next_goal": "done"},
                          "action": [{"done": {"text": "30 kg", "success": True}}]},
         "result": [{"is_done": True, "success": True, "extracted_content": "30 kg"}],
         "state": {"screenshot": None, "url": "https://example.org/", "title": "Example"}, "metadata": meta}]}


def started_cells(p) -> dict[str, str]:
    m = p.browser.model
    return {m.rows[r]["task"]: m.data(m.index(r, column("started"))) for r in range(m.rowCount())}


def test_started_is_the_runs_own_time_or_says_imported(qtbot, panel, store, tmp_path):
    (tmp_path / "timed").mkdir()
    (tmp_path / "timed" / "AgentHistory.json").write_text(json.dumps(history(RAN_AT)))
    (tmp_path / "untimed").mkdir()
    (tmp_path / "untimed" / "AgentHistory.json").write_text(json.dumps(history(None)))
    wv = tmp_path / "wv" / "20240601_12_30_00" / "taskOld--1"  # WebVoyager's own layout, its agent.log times
    wv.mkdir(parents=True)
    (wv / "screenshot1.png").write_bytes(numbered_png(1))
    (wv / "interact_messages.json").write_text(json.dumps([
        {"role": "user", "content": "Now given a task: Find the old page  Please interact with https://example.org"},
        {"role": "assistant", "content": "Thought: done\n\nAction: ANSWER; old"}]))
    (wv / "agent.log").write_text("2024-06-01 12:31:05,250 - INFO - Iter: 1\n")
    ok(cockpit(store.root, "import", "browser-use", str(tmp_path / "timed"), "--task", "Timed run"))
    ok(cockpit(store.root, "import", "browser-use", str(tmp_path / "untimed"), "--task", "Untimed run"))
    ok(cockpit(store.root, "import", "webvoyager", str(tmp_path / "wv")))
    cells = started_cells(panel())
    today = dt.datetime.now().strftime("%Y-%m-%d")
    assert cells["Untimed run"].startswith(f"imported {today}")  # no time in the history: not a made-up start
    assert cells["Timed run"] == dt.datetime.fromtimestamp(RAN_AT).strftime("%Y-%m-%d %H:%M:%S")
    assert cells["Find the old page"] == "2024-06-01 12:31:05"  # agent.log's first time, not the folder's


def test_importing_a_history_again_without_agent_names_the_run(tmp_path):
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "AgentHistory.json").write_text(json.dumps(history(RAN_AT)))
    home = tmp_path / "home"
    ok(cockpit(home, "import", "browser-use", str(tmp_path / "h"), "--agent", "my-agent", "--task", "T"))
    with Store(home) as store:
        (first,) = store.runs()
    again = cockpit(home, "import", "browser-use", str(tmp_path / "h"), "--task", "T")  # --agent forgotten
    ok(again)
    assert "imported 0 runs, skipped 1 already imported" in again.stdout
    assert f"already imported as run {first['id']}" in again.stdout
    with Store(home) as store:
        assert [r["id"] for r in store.runs()] == [first["id"]]  # no duplicate


def test_a_webvoyager_import_shows_the_screenshot_with_its_boxes(qtbot, panel, store, tmp_path):
    """Walkthrough 5: WebVoyager keeps no box positions, so Review showed the clean screenshot with no boxes and
    `Click [4]` could not be checked by eye; the screenshot WebVoyager drew its boxes on is shown, and said to be."""
    from cockpit.ui.review.run_viewer import BOXES_IN_IMAGE_NOTE
    wv = tmp_path / "wv" / "20240601_12_30_00" / "taskBoxes--1"
    wv.mkdir(parents=True)
    (wv / "screenshot1.png").write_bytes(numbered_png(1))  # the marked one
    (wv / "screenshot1_no_box.png").write_bytes(numbered_png(2))
    (wv / "interact_messages.json").write_text(json.dumps([
        {"role": "user", "content": "Now given a task: Find the boxes  Please interact with https://example.org"},
        {"role": "assistant", "content": "Thought: there\n\nAction: Click [4]"}]))
    ok(cockpit(store.root, "import", "webvoyager", str(tmp_path / "wv")))
    p = panel()
    (run,) = store.runs()
    p.show_run(run["id"])
    v = p.viewer
    qtbot.waitUntil(lambda: v.view.has_screenshot(), timeout=5000)
    # the note is the shown image's: set when the image shown is not the clean one
    qtbot.waitUntil(lambda: v.image_note.text() == BOXES_IN_IMAGE_NOTE, timeout=5000)
    assert v.image_note.isVisible()
