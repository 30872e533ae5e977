"""`cockpit run / runs / export / import / demo` as a user runs them, in real processes."""
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from cockpit.core.modelserver import ModelServer, Reply
from cockpit.core.store import Store
from tests.core.test_webvoyager import webvoyager_root  # noqa: F401  (fixture)


def cockpit(home, *args, timeout=180, stdin=subprocess.DEVNULL):
    env = dict(os.environ, COCKPIT_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "cockpit", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=stdin)


def answer_with_title(body):
    """Answers at once with the page title it was shown."""
    text = body["messages"][-1]["content"][0]["text"]
    title = re.search(r"The page is '([^']*)'", text).group(1)
    return f"Thought: the title says it.\nAction: ANSWER; {title}"


def test_task_file_batch_reports_bad_lines_resumes_and_runs_in_parallel(site, tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    lines = [json.dumps({"web_name": "Local", "id": f"Local--{i}", "ques": f"Title of page {i}?",
                         "web": site.url(page)}) for i, page in enumerate(["agent_start.html", "agent_details.html",
                                                                            "agent_order.html"])]
    lines.insert(1, '{"web_name": "Local", "id": "Local--9", "ques": "broken"')
    lines.append(json.dumps({"web_name": "Local", "id": "Local--7", "web": site.url("agent_start.html")}))
    tasks.write_text("\n".join(lines) + "\n")
    home = tmp_path / "home"
    with ModelServer(answer_with_title) as srv:
        r = cockpit(home, "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m",
                    "--concurrency", "2", "--approval", "deny")
        assert r.returncode == 0, r.stderr
        assert "line 2: not valid JSON" in r.stderr
        assert re.search(r"line 5: missing \"ques\"", r.stderr)
        table = r.stdout
        for i, title in enumerate(["Agent start", "Details", "Order"]):
            assert re.search(rf"Local--{i}\s+answered\s+1\b.*{title}", table), table
        assert "] 3/3 " in r.stderr
        again = cockpit(home, "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m")
        assert again.returncode == 0, again.stderr
        assert again.stdout.count("skipped") == 3
        assert len(srv.requests) == 3  # nothing ran twice
        one = cockpit(home, "run", "--tasks", str(tasks), "--ids", "Local--1,Nope--1", "--no-resume",
                      "--base-url", srv.base_url, "--model", "m")
        assert "no task with id 'Nope--1'" in one.stderr
        assert len(srv.requests) == 4
    listing = cockpit(home, "runs")
    assert listing.stdout.count("answered") == 4
    found = cockpit(home, "runs", "--search", "page 2")
    assert found.stdout.count("answered") == 1 and "Title of page 2?" in found.stdout


def test_single_task_prints_the_answer_and_runs_shows_the_steps(site, tmp_path):
    home = tmp_path / "home"
    with ModelServer(answer_with_title) as srv:
        r = cockpit(home, "run", "--task", "What is the title?", "--url", site.url("agent_details.html"),
                    "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Details"
    assert "step 1/15  ANSWER; Details" in r.stderr
    run_id = re.search(r"run (\S+):", r.stderr).group(1)
    shown = cockpit(home, "runs", run_id[:17])
    assert "action:   ANSWER; Details" in shown.stdout and "answer: Details" in shown.stdout


def test_bad_arguments_are_explained(tmp_path):
    r = cockpit(tmp_path, "run", "--task", "only a task")
    assert r.returncode == 2 and "give --task TEXT and --url URL" in r.stderr
    r = cockpit(tmp_path, "run", "--tasks", str(tmp_path / "missing.jsonl"))
    assert r.returncode == 2 and "missing.jsonl" in r.stderr


def test_kill_9_mid_run_keeps_committed_steps_and_shows_interrupted(site, tmp_path):
    home = tmp_path / "home"
    calls = []

    def slow_third(body):
        calls.append(1)
        if len(calls) >= 3:
            return Reply(text="Thought: x\nAction: Wait", delay=60)
        return "Thought: scroll on\nAction: Scroll [WINDOW]; down"
    with ModelServer(slow_third) as srv:
        env = dict(os.environ, COCKPIT_HOME=str(home))
        proc = subprocess.Popen([sys.executable, "-m", "cockpit", "run", "--task", "scroll", "--url",
                                 site.url("agent_start.html"), "--base-url", srv.base_url, "--model", "m"],
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while len(calls) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(calls) >= 3, proc.stderr.read() if proc.poll() is not None else "model never asked a third time"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    with Store(home) as store:
        run = store.runs()[0]
        assert run["status"] == "running"  # as the killed process left it
        assert store.mark_interrupted() == 1
        run = store.run(run["id"])
        assert run["status"] == "interrupted" and run["steps"] == 2
        steps = store.steps(run["id"])
        assert [s["step"] for s in steps] == [1, 2] and all(s["status"] == "ok" for s in steps)
        assert all(store.file(s["screenshot"]).stat().st_size > 1000 for s in steps)
    assert "interrupted" in cockpit(home, "runs").stdout


def test_export_then_import_round_trip(site, tmp_path):
    home = tmp_path / "home"
    with ModelServer(lambda b: ("Thought: down\nAction: Scroll [WINDOW]; down" if len(b["messages"]) < 4
                                else "Thought: done\nAction: ANSWER; bottom")) as srv:
        r = cockpit(home, "run", "--task", "Scroll once", "--url", site.url("agent_start.html"),
                    "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0, r.stderr
    run_id = re.search(r"run (\S+):", r.stderr).group(1)
    out = tmp_path / "export"
    e = cockpit(home, "export", run_id, "--format", "webvoyager", "--out", str(out))
    assert e.returncode == 0, e.stderr
    folder = out / f"task{run_id}"
    assert sorted(p.name for p in folder.iterdir()) == [
        "agent.log", "interact_messages.json", "screenshot1.png", "screenshot1_no_box.png",
        "screenshot2.png", "screenshot2_no_box.png"]
    messages = json.loads((folder / "interact_messages.json").read_text())
    assert "Now given a task: Scroll once  Please interact with" in messages[1]["content"][0]["text"]
    assert messages[-1] == {"role": "assistant", "content": "Thought: done\nAction: ANSWER; bottom"}
    raw = (folder / "interact_messages.json").read_text()
    assert "data:image/png;base64,{b64_img}" in raw and "cockpit:step" not in raw and "iVBOR" not in raw
    i = cockpit(home, "import", "webvoyager", str(out))
    assert i.returncode == 0, i.stderr
    assert "imported 1 runs" in i.stdout
    again = cockpit(home, "import", "webvoyager", str(out))
    assert "imported 0 runs, skipped 1" in again.stdout
    with Store(home) as store:
        orig, imp = store.run(run_id), store.run(i.stdout.split()[-1])
        assert (imp["task"], imp["url"], imp["answer"], imp["status"]) == (orig["task"], orig["url"], "bottom", "answered")
        a, b = store.steps(run_id), store.steps(imp["id"])
        assert [(s["thought"], s["action"]) for s in a] == [(s["thought"], s["action"]) for s in b]
        for x, y in zip(a, b):
            assert store.file(x["screenshot"]).read_bytes() == store.file(y["screenshot"]).read_bytes()


def test_import_a_folder_webvoyager_made(webvoyager_root, tmp_path):  # noqa: F811
    home = tmp_path / "home"
    bad = webvoyager_root / "20240120_15_30_05" / "taskAllrecipes--3" / "screenshot2.png"
    bad.write_bytes(b"not a png")
    r = cockpit(home, "import", "webvoyager", str(webvoyager_root))
    assert r.returncode == 0, r.stderr
    assert "imported 1 runs" in r.stdout and "screenshot2.png is not a valid PNG" in r.stderr
    with Store(home) as store:
        run = store.runs()[0]
        assert run["task_id"] == "Allrecipes--3" and run["source"] == "webvoyager"
        assert run["answer"] == "Vegetarian Four Cheese Lasagna"
        steps = store.steps(run["id"])
        assert [s["action"] for s in steps] == ["Type [1]; vegetarian lasagna", "Click [7]",
                                                "Scroll [WINDOW]; down", "ANSWER; Vegetarian Four Cheese Lasagna"]
        assert steps[0]["screenshot"] and steps[1]["screenshot"] is None  # the broken one is not copied
    assert "Allrecipes" not in cockpit(home, "runs", "--search", "pizza").stdout
