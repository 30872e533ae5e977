"""`cockpit import webvoyager DIR --tasks FILE` where a folder's messages do not say its task and the task file
does: that is what --tasks is for, so it is said as news ("1 task taken from tasks.jsonl"), not counted as a
problem nor printed as a warning (issue #38: it read "1 problem" and "warning: … the task is not in the
messages"). A folder the task file does not know still is a problem."""
import json

from cockpit.core.store import Store
from tests.clitools import cockpit, no_traceback, ok
from tests.webvoyager_runs import webvoyager_messages, wv_folder


def without_task():
    """WebVoyager's messages with the "Now given a task: … Please interact with …" line cut out."""
    msgs = webvoyager_messages()
    msgs[1]["content"][0]["text"] = msgs[1]["content"][0]["text"].split("\n", 1)[1]
    return msgs


def test_a_task_the_task_file_supplies_is_news_not_a_problem(tmp_path):
    results = tmp_path / "results"
    wv_folder(results, "Allrecipes--3", messages=without_task())
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"web_name": "Allrecipes", "id": "Allrecipes--3", "ques": "Find a lasagna",
                                 "web": "https://www.allrecipes.com/"}) + "\n")
    r = cockpit(tmp_path / "home", "import", "webvoyager", str(results), "--tasks", str(tasks))
    no_traceback(r)
    out = ok(r)
    assert out.splitlines()[0] == "imported 1 run, skipped 0 already imported, 0 problems"
    assert "1 task taken from tasks.jsonl" in out and "taskAllrecipes--3: Allrecipes--3" in out
    assert "warning" not in r.stderr and "not in the messages" not in r.stderr + out
    with Store(tmp_path / "home") as store:
        [run] = store.run_summaries()
        run = store.run(run["id"])
        assert run["task"] == "Find a lasagna" and run["url"] == "https://www.allrecipes.com/"
        assert not run["config"]["problems"]  # Review shows no import problem for it either


def test_a_task_neither_the_folder_nor_the_task_file_has_is_still_a_problem(tmp_path):
    results = tmp_path / "results"
    wv_folder(results, "Allrecipes--3", messages=without_task())
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"web_name": "Other", "id": "Other--1", "ques": "Something else",
                                 "web": "https://example.com/"}) + "\n")
    r = cockpit(tmp_path / "home", "import", "webvoyager", str(results), "--tasks", str(tasks))
    out = ok(r)
    assert out.splitlines()[0].endswith("1 problem") and "taken from" not in out
    assert "warning:" in r.stderr and "the task is not in the messages" in r.stderr
