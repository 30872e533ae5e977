"""`cockpit import browser-use` (issue #28): histories in the two shapes browser-use has saved, written here
as its save_to_file writes them (0.1.40: current_state, base64 screenshots, click_element; 0.13: flat fields,
screenshot files, click/input/navigate with coordinates in the result)."""
import base64
import json

from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.m2w_import import import_browser_use
from tests.clitools import cockpit
from tests.images import numbered_png


def old_history() -> dict:
    el = {"tag_name": "button", "xpath": "html/body/div[1]/header/button[2]", "highlight_index": 12,
          "attributes": {"type": "button", "aria-label": "Search"},
          "viewport_coordinates": {"center": {"x": 963, "y": 72}, "width": 46, "height": 24}}
    return {"history": [
        {"model_output": {"current_state": {"evaluation_previous_goal": "Success - page loaded", "memory": "On homepage",
                                            "next_goal": "Click search"},
                          "action": [{"click_element": {"index": 12}}]},
         "result": [{"is_done": False, "extracted_content": "🖱️  Clicked button with index 12: Search",
                     "include_in_memory": True}],
         "state": {"tabs": [{"page_id": 0, "url": "https://www.qatarairways.com/", "title": "Qatar Airways"}],
                   "screenshot": base64.b64encode(numbered_png(1)).decode(), "interacted_element": [el],
                   "url": "https://www.qatarairways.com/", "title": "Qatar Airways"},
         "metadata": {"step_start_time": 1740000000.1, "step_end_time": 1740000004.2, "input_tokens": 5123,
                      "step_number": 1}},
        {"model_output": {"current_state": {"evaluation_previous_goal": "ok", "memory": "", "next_goal": "type"},
                          "action": [{"input_text": {"index": 15, "text": "baggage"}}, {"send_keys": {"keys": "Enter"}}]},
         "result": [{"is_done": False}, {"is_done": False, "error": "Element with index 15 does not exist"}],
         "state": {"screenshot": None, "interacted_element": [None, None], "url": "https://www.qatarairways.com/",
                   "title": "Qatar Airways"}, "metadata": {"step_number": 2}},
        {"model_output": {"current_state": {"evaluation_previous_goal": "found it", "memory": "", "next_goal": "done"},
                          "action": [{"done": {"text": "The allowance is 30 kg", "success": True}}]},
         "result": [{"is_done": True, "success": True, "extracted_content": "The allowance is 30 kg"}],
         "state": {"screenshot": base64.b64encode(numbered_png(3)).decode(), "interacted_element": [None],
                   "url": "https://www.qatarairways.com/baggage", "title": "Baggage"}, "metadata": {"step_number": 3}}]}


def new_history(shots) -> dict:
    return {"history": [
        {"model_output": {"thinking": "I should search.", "evaluation_previous_goal": "Page loaded. Verdict: Success",
                          "memory": "On homepage", "next_goal": "Click search", "action": [{"click": {"index": 12}}]},
         "result": [{"is_done": False, "extracted_content": 'Clicked button "Search"',
                     "metadata": {"click_x": 963.0, "click_y": 72.0}}],
         "state": {"tabs": [], "screenshot_path": str(shots / "step_1.png"),
                   "interacted_element": [{"node_name": "BUTTON", "bounds": {"x": 940.0, "y": 60.0, "width": 46.0,
                                                                             "height": 24.0}, "ax_name": "Search"}],
                   "url": "https://www.qatarairways.com/", "title": "Qatar Airways"},
         "metadata": {"step_start_time": 1730000000.1, "step_end_time": 1730000004.2, "step_number": 1}},
        {"model_output": {"evaluation_previous_goal": "ok", "memory": "", "next_goal": "scroll",
                          "action": [{"scroll": {"down": True, "pages": 1.0}}]},
         "result": [{"is_done": False}],
         "state": {"screenshot_path": "/elsewhere/on/another/machine/step_2.png", "interacted_element": [None],
                   "url": "https://www.qatarairways.com/", "title": "Qatar Airways"}, "metadata": {"step_number": 2}},
        {"model_output": {"evaluation_previous_goal": "ok", "memory": "", "next_goal": "finish",
                          "action": [{"done": {"text": "30 kg", "success": False, "files_to_display": []}}]},
         "result": [{"is_done": True, "success": False, "extracted_content": "30 kg"}],
         "state": {"screenshot_path": None, "interacted_element": [None], "url": "https://x.com", "title": "X"},
         "metadata": {"step_number": 3}}]}


def test_both_history_shapes_become_runs(tmp_path):
    root = tmp_path / "histories"
    (root / "new" / "screenshots").mkdir(parents=True)
    (root / "new" / "screenshots" / "step_1.png").write_bytes(numbered_png(7))
    # step 2's is found beside the file, not at its old path
    (root / "new" / "screenshots" / "step_2.png").write_bytes(numbered_png(8))
    (root / "old").mkdir()
    (root / "old" / "AgentHistory.json").write_text(json.dumps(old_history()))
    (root / "new" / "AgentHistory.json").write_text(json.dumps(new_history(root / "new" / "screenshots")))
    (root / "new" / "result.json").write_text(json.dumps({"task": "Find the baggage allowance"}))
    (root / "notes.json").write_text(json.dumps({"unrelated": True}))
    with Store(tmp_path / "home") as store:
        report = import_browser_use(store, root, task="", agent="browser-use")
        assert len(report.imported) == 2 and not report.failed
        runs = {store.run(r)["config"]["imported_from"].split("/")[-2]: store.run(r) for r in report.imported}
        old, new = runs["old"], runs["new"]
        assert (old["model"], old["source"], old["answer"], old["status"]) == (
            "browser-use", "browser-use", "The allowance is 30 kg", "answered")
        assert old["task"].startswith("(no task recorded") and new["task"] == "Find the baggage allowance"
        steps = store.steps(old["id"])
        assert [s["action"] for s in steps] == ["Click (963, 72)", None, "ANSWER; The allowance is 30 kg"]
        assert steps[1]["action_text"] == "input_text(index=15, text='baggage'); send_keys(keys='Enter')"
        assert steps[1]["status"] == "error" and "does not exist" in steps[1]["error"]
        assert "Evaluation: Success - page loaded" in steps[0]["thought"] and "Next goal: Click search" in steps[0]["thought"]
        assert store.read_file(steps[0]["screenshot_clean"]) == numbered_png(1) and steps[1]["screenshot_clean"] is None
        new_steps = store.steps(new["id"])
        assert [s["action"] for s in new_steps] == ["Click (963, 72)", "Scroll [WINDOW]; down", "ANSWER; 30 kg"]
        assert new_steps[0]["thought"].startswith("Thinking: I should search.")
        assert store.read_file(new_steps[1]["screenshot_clean"]) == numbered_png(8)
        verdicts = {(v["run_id"], v["judge"]): v["verdict"] for v in L.verdicts(store)}
        assert verdicts == {(old["id"], "browser-use:self_report"): 1, (new["id"], "browser-use:self_report"): 0}
        assert report.missing_screenshots == 1  # old step 2 (none saved); the answer needs none


def test_the_command_names_a_damaged_history_and_imports_the_rest(tmp_path):
    root = tmp_path / "h"
    root.mkdir()
    (root / "good.json").write_text(json.dumps(old_history()))
    (root / "bad.json").write_text('{"history": [1, 2')
    home = tmp_path / "home"
    r = cockpit(home, "import", "browser-use", str(root), "--task", "Find the baggage allowance")
    assert r.returncode == 1 and "imported 1 run," in r.stdout
    assert "bad.json" in r.stderr and "not valid JSON" in r.stderr
    with Store(home) as store:
        (run,) = store.runs()
        assert run["task"] == "Find the baggage allowance"


def test_odd_histories_import_what_they_can(tmp_path):
    odd = {"history": [
        {"model_output": {"action": [{"click_element": {"index": "abc"}}]}, "result": [{"metadata": ["x"]}],
         "state": {"interacted_element": {"not": "a list"}, "screenshot_path": "screenshots/step_1.png"}},
        {"model_output": {"action": [{"done": "finished"}]}, "result": [{"is_done": True}], "state": None},
        {"model_output": None, "result": None, "state": {"url": "https://x.org"}}]}
    for name in ("t1", "t2"):
        (tmp_path / "h" / name).mkdir(parents=True)
        (tmp_path / "h" / name / "AgentHistory.json").write_text(json.dumps(odd))
    (tmp_path / "h" / "t2" / "result.json").write_text(json.dumps({"task": "Find B"}))
    with Store(tmp_path / "home") as store:
        report = import_browser_use(store, tmp_path / "h", task="Find A")
        assert not report.failed and len(report.imported) == 1  # the two files are the same history: one run
        run = store.run(report.imported[0])
        assert run["answer"] == "finished" and run["task_id"] in ("t1", "t2")
        steps = store.steps(run["id"])
        assert steps[0]["action"] is None and steps[0]["action_text"] == "click_element(index='abc')"


def test_a_history_imported_without_a_task_says_so_and_takes_the_task_given_later(tmp_path):
    """Walkthrough 5: a history holding no task was imported as "(no task recorded: …)" without a word, and importing
    it again with the task was skipped as already imported: the run stayed taskless for good."""
    root = tmp_path / "bu" / "notes-search"
    root.mkdir(parents=True)
    (root / "AgentHistory.json").write_text(json.dumps(old_history()))
    home = tmp_path / "home"
    r = cockpit(home, "import", "browser-use", str(root))
    assert r.returncode == 0, r.stderr
    assert "holds no task and none was given: give it" in r.stderr  # said, not silent
    with Store(home) as store:
        (run,) = store.runs()
    assert run["task"].startswith("(no task recorded")
    r = cockpit(home, "import", "browser-use", str(root), "--task", "Find the note about Alice")
    assert r.returncode == 0, r.stderr
    assert f"already imported as run {run['id']}; it had no task, and now has the one given" in r.stdout
    with Store(home) as store:
        assert [x["task"] for x in store.runs()] == ["Find the note about Alice"]  # the same run, mended
    r = cockpit(home, "import", "browser-use", str(root), "--task", "Another task")
    assert "now has the one given" not in r.stdout  # a task it has is never replaced
    with Store(home) as store:
        assert store.run(run["id"])["task"] == "Find the note about Alice"


def test_an_imported_run_can_be_branched_and_replayed_without_a_traceback(tmp_path):
    """Walkthrough 6: an imported run's config names its agent ("browser-use") where a Cockpit run keeps its agent
    settings; branching it read that name as settings and failed with AttributeError (Branch did nothing in the
    window, a traceback on the terminal)."""
    from cockpit.core.replay.resume import recorded_approval_policy, resume_policy
    from cockpit.core.store.records import agent_settings
    root = tmp_path / "bu" / "one"
    root.mkdir(parents=True)
    local = json.dumps(old_history()).replace("https://www.qatarairways.com", "http://127.0.0.1:9")  # nothing there
    (root / "AgentHistory.json").write_text(local)
    home = tmp_path / "home"
    r = cockpit(home, "import", "browser-use", str(root), "--task", "Find the baggage allowance")
    assert r.returncode == 0, r.stderr
    with Store(home) as store:
        (run,) = store.runs()
        run = store.run(run["id"])
    assert agent_settings(run) == {} and recorded_approval_policy(run) == "irreversible"
    assert resume_policy(run, "every") == "every"
    r = cockpit(home, "branch", run["id"], "1", "--replay-only", timeout=240)
    assert "Traceback" not in r.stderr and "AttributeError" not in r.stderr, r.stderr
    assert r.returncode == 4 and "DIVERGED step 1: the start page http://127.0.0.1:9/ could not be opened" in r.stdout
