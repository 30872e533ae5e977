"""`cockpit run / runs / export / import / demo` as a user runs them, in real processes."""
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.store import Store, liveness
from tests.clitools import cockpit
from tests.clitools import processes_mentioning as _processes_mentioning
from tests.models import answer_with_title


def open_details_then_answer(answer, thought="go"):
    """Clicks "Open the details page" on the start page (thinking `thought`), then answers `answer` on Details."""
    def respond(body):
        text = body["messages"][-1]["content"][0]["text"]
        if "The page is 'Details'" in text:
            return f"Thought: here\nAction: ANSWER; {answer}"
        n = re.search(r"^\[(\d+)\]: <a> \"Open the details page\"", text, re.M).group(1)
        return f"Thought: {thought}\nAction: Click [{n}]"
    return respond


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
    r = cockpit(tmp_path, "run", "--task", "t", "--url", "http://127.0.0.1:1/", "--rules", str(tmp_path / "nope.json"))
    assert r.returncode == 2 and "risk rules file" in r.stderr and "nope.json" in r.stderr  # not silently ignored


def test_a_task_whose_start_page_did_not_load_stops_before_any_model_call(tmp_path):
    """#38: a blank start page (here from a task file) used to spend every step on an empty screenshot."""
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "blank--1", "ques": "Find the price", "web": "about:blank"}) + "\n")
    home = tmp_path / "home"
    with ModelServer(answer_with_title) as srv:
        r = cockpit(home, "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m")
        assert srv.requests == []
    why = "the start page did not load: 'about:blank' is not the address of a web page"
    assert r.returncode == 1 and f"(failed: {why}" in r.stdout and f"FAILED after 0 steps: {why}" in r.stderr
    with Store(home) as store:
        run = store.runs()[0]
        assert run["status"] == "failed" and run["error"].startswith(why)


def test_a_reply_the_dialect_cannot_read_is_said_in_the_terminal_as_review_shows_it(site, tmp_path):
    """#38: with a pixel preset, an unreadable reply printed a plausible action line and nothing else."""
    from cockpit.core.llm.modelserver import scripted
    home = tmp_path / "home"
    replies = ["Thought: open the details.\nAction: click(start_box='<|box_start|>(abc,def)<|box_end|>')",
               "Thought: done\nAction: finished(content='x')"]
    with ModelServer(scripted(replies)) as srv:
        r = cockpit(home, "run", "--task", "Open the details", "--url", site.url("agent_start.html"),
                    "--base-url", srv.base_url, "--model", "ui-tars", "--preset", "vllm-ui-tars-1.5")
    assert r.returncode == 0, r.stderr
    with Store(home) as store:
        step = store.steps(store.runs()[0]["id"])[0]
    assert step["status"] == "format_error" and step["error"].startswith("Format ERROR: start_box")
    lines = r.stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("step 1/"))
    assert lines[at + 1] == f"  not run: {step['error']}"  # the whole of what Review shows, right under the step


@pytest.mark.fault("kill")
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
    time.sleep(0.5)
    for pid in _processes_mentioning(str(home)):  # kill -9 orphans the browser: do not leave it running
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    with Store(home) as store:
        run = store.runs()[0]
        assert run["status"] == "running"  # as the killed process left it
        assert liveness.mark_interrupted(store) == 1
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
        "agent.log", "cockpit_steps.json", "interact_messages.json", "screenshot1.png", "screenshot1_no_box.png",
        "screenshot2.png", "screenshot2_no_box.png"]
    messages = json.loads((folder / "interact_messages.json").read_text())
    assert "Now given a task: Scroll once  Please interact with" in messages[1]["content"][0]["text"]
    assert messages[-1] == {"role": "assistant", "content": "Thought: done\nAction: ANSWER; bottom"}
    raw = (folder / "interact_messages.json").read_text()
    assert "data:image/png;base64,{b64_img}" in raw and "cockpit:step" not in raw and "iVBOR" not in raw
    i = cockpit(home, "import", "webvoyager", str(out))
    assert i.returncode == 0, i.stderr
    assert "imported 1 run," in i.stdout
    again = cockpit(home, "import", "webvoyager", str(out))
    assert "imported 0 runs, skipped 1" in again.stdout
    with Store(home) as store:
        orig, imp = store.run(run_id), store.run(i.stdout.split()[-1])
        assert (imp["task"], imp["url"], imp["answer"], imp["status"]) == (orig["task"], orig["url"], "bottom", "answered")
        a, b = store.steps(run_id), store.steps(imp["id"])
        assert [(s["thought"], s["action"]) for s in a] == [(s["thought"], s["action"]) for s in b]
        for x, y in zip(a, b):
            assert store.file(x["screenshot"]).read_bytes() == store.file(y["screenshot"]).read_bytes()


def test_import_a_folder_webvoyager_made(webvoyager_root, tmp_path):
    home = tmp_path / "home"
    bad = webvoyager_root / "20240120_15_30_05" / "taskAllrecipes--3" / "screenshot2.png"
    bad.write_bytes(b"not a png")
    r = cockpit(home, "import", "webvoyager", str(webvoyager_root))
    assert r.returncode == 0, r.stderr
    assert "imported 1 run," in r.stdout and "screenshot2.png is not a valid PNG" in r.stderr
    with Store(home) as store:
        run = store.runs()[0]
        assert run["task_id"] == "Allrecipes--3" and run["source"] == "webvoyager"
        assert run["answer"] == "Vegetarian Four Cheese Lasagna"
        steps = store.steps(run["id"])
        assert [s["action"] for s in steps] == ["Type [1]; vegetarian lasagna", "Click [7]",
                                                "Scroll [WINDOW]; down", "ANSWER; Vegetarian Four Cheese Lasagna"]
        assert steps[0]["screenshot"] and steps[1]["screenshot"] is None  # the broken one is not copied
    assert "Allrecipes" not in cockpit(home, "runs", "--search", "pizza").stdout


def test_ctrl_c_stops_the_batch_cleanly_and_a_rerun_resumes(site, tmp_path):
    home = tmp_path / "home"
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"web_name": "Local", "id": f"Local--{i}", "ques": f"q{i}",
                                         "web": site.url("agent_start.html")}) + "\n" for i in range(2)))
    asked = []

    def slow(body):
        asked.append(1)
        return Reply(text="Thought: t\nAction: ANSWER; done", delay=20 if len(asked) == 1 else 0)
    with ModelServer(slow) as srv:
        env = dict(os.environ, COCKPIT_HOME=str(home))
        proc = subprocess.Popen([sys.executable, "-m", "cockpit", "run", "--tasks", str(tasks),
                                 "--base-url", srv.base_url, "--model", "m"], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 60
        while not asked and time.monotonic() < deadline:
            time.sleep(0.1)
        assert asked, proc.stderr.read() if proc.poll() is not None else "the model was never asked"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert "interrupted" in err
        with Store(home) as store:  # the run in flight was stopped and recorded, not left 'running'
            assert [r["status"] for r in store.runs()] == ["stopped"]
        time.sleep(0.5)
        assert _processes_mentioning(str(home)) == []  # no browser left behind
        again = cockpit(home, "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m")
        assert again.returncode == 0, again.stderr
        assert re.search(r"Local--0\s+answered", again.stdout) and re.search(r"Local--1\s+answered", again.stdout)


def test_a_batch_stopped_while_its_browser_starts_runs_nothing(site, tmp_path, monkeypatch):
    from cockpit.core.agent import batch as batch_mod
    from cockpit.core.agent.approval import PolicyApprover
    from cockpit.core.agent.loop import AgentConfig
    from cockpit.core.browser.session import BrowserConfig
    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.tasks.task import Task
    real_start = batch_mod.BrowserSession.start

    def start(self):
        b.stop()  # Ctrl+C arrives while the browser is starting
        return real_start(self)
    monkeypatch.setattr(batch_mod.BrowserSession, "start", start)
    with ModelServer(lambda body: "Thought: t\nAction: ANSWER; x") as srv:
        b = batch_mod.Batch([Task("T--1", "q", site.url("agent_start.html"))],
                            ModelConfig(base_url=srv.base_url, model="m", max_retries=0), AgentConfig(),
                            BrowserConfig(), approver_factory=lambda: PolicyApprover(False),
                            store_root=tmp_path / "home", api_key="k")
        items = b.run()
    assert srv.requests == [] and items[0].result is None
    with Store(tmp_path / "home") as store:
        assert store.runs() == []


def test_resume_skips_only_the_same_task_not_another_file_s_line(site, tmp_path):
    home = tmp_path / "home"
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"  # plain files: ids come from line numbers
    a.write_text(json.dumps({"task": "Title of the start page?", "url": site.url("agent_start.html")}) + "\n")
    b.write_text(json.dumps({"task": "Title of the details page?", "url": site.url("agent_details.html")}) + "\n")
    with ModelServer(answer_with_title) as srv:
        first = cockpit(home, "run", "--tasks", str(a), "--base-url", srv.base_url, "--model", "m")
        assert first.returncode == 0, first.stderr
        other = cockpit(home, "run", "--tasks", str(b), "--base-url", srv.base_url, "--model", "m")
        assert other.returncode == 0, other.stderr
        assert other.stdout.strip() == "Details"  # task-1 of b.jsonl ran although task-1 of a.jsonl had finished
        again = cockpit(home, "run", "--tasks", str(a), "--base-url", srv.base_url, "--model", "m")
        assert "skipped" in again.stderr and len(srv.requests) == 2


def test_an_answer_written_loosely_is_exported_so_webvoyager_s_judge_finds_it(site, tmp_path):
    home = tmp_path / "home"
    with ModelServer(lambda b: "**Thought:** it says Details.\n**action:** answer [Details]") as srv:
        r = cockpit(home, "run", "--task", "Title?", "--url", site.url("agent_details.html"),
                    "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0 and r.stdout.strip() == "Details", r.stderr
    run_id = re.search(r"run (\S+):", r.stderr).group(1)
    e = cockpit(home, "export", run_id, "--out", str(tmp_path / "out"))
    assert e.returncode == 0, e.stderr
    last = json.loads((tmp_path / "out" / f"task{run_id}" / "interact_messages.json").read_text())[-1]
    # what WebVoyager's auto_eval.py looks for in the last message
    assert last["role"] == "assistant" and "Action: ANSWER" in last["content"]
    assert re.search(r"ANSWER[; ]+\[?(.[^\]]*)\]?", last["content"]).group(1).strip() == "Details"


def test_a_store_error_in_one_task_does_not_fail_the_rest_of_the_batch(site, tmp_path, monkeypatch):
    from cockpit.core.agent.approval import PolicyApprover
    from cockpit.core.agent.batch import Batch
    from cockpit.core.agent.loop import AgentConfig
    from cockpit.core.browser.session import BrowserConfig
    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.store.db import StoreError
    from cockpit.core.tasks.task import Task
    real_new_run, calls = Store.new_run, []

    def new_run(self, *a, **kw):
        calls.append(1)
        if len(calls) == 1:
            raise StoreError("the run database is locked by another program")
        return real_new_run(self, *a, **kw)
    monkeypatch.setattr(Store, "new_run", new_run)
    tasks = [Task(f"T--{i}", f"q{i}", site.url("agent_start.html")) for i in range(3)]
    with ModelServer(lambda body: "Thought: t\nAction: ANSWER; x") as srv:
        items = Batch(tasks, ModelConfig(base_url=srv.base_url, model="m", max_retries=0), AgentConfig(),
                      BrowserConfig(), approver_factory=lambda: PolicyApprover(False),
                      store_root=tmp_path / "home", api_key="k").run()
    assert [it.result.status for it in items] == ["failed", "answered", "answered"]
    assert "locked" in items[0].result.error


def test_a_webarena_task_file_tracks_hops_in_a_batch(site, tmp_path):
    tasks = tmp_path / "webarena.json"
    tasks.write_text(json.dumps([{
        "task_id": 7, "start_url": site.url("agent_start.html"), "intent": "Open the details page",
        "eval": {"eval_types": ["url_match"], "reference_url": "agent_details.html"}}]))
    home = tmp_path / "home"
    with ModelServer(open_details_then_answer("opened")) as srv:
        r = cockpit(home, "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0, r.stderr
    report = json.loads(cockpit(home, "hops", "--json").stdout)
    assert report["runs"] == 1 and report["task_success_rate"] == 1.0


def test_a_task_file_may_point_at_local_html_files(tmp_path):
    from tests import PAGES
    tasks = tmp_path / "local.jsonl"
    tasks.write_text(json.dumps({"id": "L1", "task": "Title?", "url": str(PAGES / "agent_details.html")}) + "\n")
    home = tmp_path / "home"
    with ModelServer(answer_with_title) as srv:
        r = cockpit(home, "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Details"  # served on 127.0.0.1 and opened
    assert "has no scheme" not in r.stderr


def test_serve_host_serves_local_task_pages_on_the_address_given(tmp_path):
    # For browsers on other machines (a Grid's nodes) local pages must be served on an address they reach;
    # 127.0.0.2 is another address of this machine's loopback, so the test stays on it.
    page = tmp_path / "site" / "hello.html"
    page.parent.mkdir()
    page.write_text("<!doctype html><title>Hello page</title><h1>Hello from a local file</h1>")
    seen = []

    def respond(body):
        text = body["messages"][-1]["content"][0]["text"]
        seen.append(re.search(r"http://[^\s')]+", text).group(0))
        return "Thought: read it\nAction: ANSWER; hello"
    home = tmp_path / "home"
    with ModelServer(respond) as srv:
        r = cockpit(home, "run", "--task", "What does the page say?", "--url", str(page), "--serve-host", "127.0.0.2",
                    "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0 and r.stdout.strip() == "hello", r.stderr
    assert seen and seen[0].startswith("http://127.0.0.2:") and seen[0].endswith("/hello.html"), seen
    with Store(home) as store:
        assert store.runs()[0]["url"].startswith("http://127.0.0.2:")


def test_mind2web_export_writes_online_mind2web_result_folders(site, tmp_path):
    from PIL import Image
    home = tmp_path / "home"
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "M2W--1", "task": "Open the details page", "url": site.url("agent_start.html")})
                     + "\n")
    with ModelServer(open_details_then_answer("Details", thought="open it")) as srv:
        r = cockpit(home, "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "m2w"
    e = cockpit(home, "export", "all", "--format", "mind2web", "--out", str(out))
    assert e.returncode == 0, e.stderr
    result = json.loads((out / "M2W--1" / "result.json").read_text())
    assert result["task_id"] == "M2W--1" and result["task"] == "Open the details page"
    assert result["final_result_response"] == "Details"
    assert len(result["action_history"]) == 1 and result["action_history"][0].startswith("Click [")
    assert result["thoughts"] == ["open it"]
    shots = sorted((out / "M2W--1" / "trajectory").iterdir())
    assert [p.name for p in shots] == ["0_screenshot.png", "1_screenshot.png"]  # the start page, the answer's page
    assert Image.open(shots[0]).size == (1024, 768)


def test_each_task_of_a_batch_starts_with_a_fresh_browser_unless_told_to_keep_its_state(site, tmp_path):
    """The page remembers visits in a cookie and in localStorage. Three tasks on it: each run sees a first visit,
    as WebVoyager's driver-per-task gives; with one worker, --keep-browser-state carries them over."""
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"web_name": "Local", "id": f"Local--{i}", "ques": f"Visits {i}?",
                                         "web": site.url("visits.html")}) + "\n" for i in range(3)))
    home = tmp_path / "home"
    with ModelServer(answer_with_title) as srv:
        # two workers: each starts the next task's browser while its task runs; one of them gets no task
        r = cockpit(home, "run", "--tasks", str(tasks), "--concurrency", "2", "--base-url", srv.base_url,
                    "--model", "m")
        assert r.returncode == 0, r.stderr
        assert r.stdout.count("cookie 0 storage 0") == 3, r.stdout
        assert not _processes_mentioning(str(home)), "a browser started for a next task is still running"
        kept = cockpit(home, "run", "--tasks", str(tasks), "--no-resume", "--keep-browser-state",
                       "--base-url", srv.base_url, "--model", "m")
        assert kept.returncode == 0, kept.stderr
        for i in range(3):
            assert re.search(rf"Local--{i}\s+answered\s+1\b.*cookie {i} storage {i}", kept.stdout), kept.stdout
    assert not _processes_mentioning(str(home)), "a browser of the batch is still running"
