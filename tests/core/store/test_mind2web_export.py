"""`cockpit export RUN --format mind2web` then `cockpit import mind2web`: each step keeps its own screenshot
(walkthrough 9, B1: a run with format errors exported one screenshot per step but one action per real
action, so the import paired every later action with an earlier page)."""
import json
import re

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from tests.clitools import cockpit


def format_errors_around_a_click_then_answer():
    """A reply with no action on the start page, then the click to Details, another bad reply there, the answer."""
    bad_before = {"start": False, "details": False}

    def respond(body):
        text = body["messages"][-1]["content"][0]["text"]
        page = "details" if "The page is 'Details'" in text else "start"
        if not bad_before[page]:
            bad_before[page] = True
            return "Thought: not sure what to do\nI would look around."  # no Action: a format error
        if page == "details":
            return "Thought: here\nAction: ANSWER; Details"
        n = re.search(r"^\[(\d+)\]: <a> \"Open the details page\"", text, re.M).group(1)
        return f"Thought: open it\nAction: Click [{n}]"
    return respond


def test_round_trip_puts_each_steps_own_screenshot_on_it(site, tmp_path):
    home, out = tmp_path / "home", tmp_path / "m2w"
    with ModelServer(format_errors_around_a_click_then_answer()) as srv:
        r = cockpit(home, "run", "--task", "Open the details page", "--url", site.url("agent_start.html"),
                    "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0 and r.stdout.strip() == "Details", r.stderr
    with Store(home) as store:
        run_id = store.runs()[0]["id"]
        steps = store.step_records(run_id)
        assert [s.status for s in steps] == ["format_error", "ok", "format_error", "answered"]
        original = {s.step: store.read_file(s.screenshot_clean or s.screenshot, "shot") for s in steps}
    assert original[2] != original[4]  # the click's page (the start page) and the answer's (Details) differ
    e = cockpit(home, "export", run_id, "--format", "mind2web", "--out", str(out))
    assert e.returncode == 0, e.stderr
    folder = next(out.iterdir())
    result = json.loads((folder / "result.json").read_text())
    assert len(result["action_history"]) == 1 and result["action_history"][0].startswith("Click [")
    i = cockpit(home, "import", "mind2web", str(out))
    assert i.returncode == 0, i.stderr
    with Store(home) as store:
        back = next(run["id"] for run in store.runs() if run["source"] == "mind2web")
        imported = store.step_records(back)
        assert [s.action_text for s in imported] == [result["action_history"][0], "ANSWER; Details"]
        got = [store.read_file(s.screenshot_clean, "shot") for s in imported]
    # the click's own page (the start page), the answer's own (Details)
    assert [got[0] == original[2], got[1] == original[4]] == [True, True]
    # one screenshot per action (the page it was taken on), then the answer's page: as Online-Mind2Web numbers them
    assert sorted(p.name for p in (folder / "trajectory").iterdir()) == ["0_screenshot.png", "1_screenshot.png"]
    assert "paired with no step" not in i.stdout + i.stderr, i.stdout + i.stderr
