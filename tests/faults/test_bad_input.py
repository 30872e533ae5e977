"""Fault suite, bad input: task files, WebVoyager result folders, addresses and pages that are
malformed, damaged, huge or endless, fed to `cockpit run`, `cockpit import`, `cockpit observe`
(real processes) and the agent (real Chromium).

What must hold: each bad input gets a message saying what is wrong and where (file and line, or
folder and file); everything valid still loads, imports or runs; no traceback.
Each test reports how many bad inputs it fed with record_property("inputs_tried", n).
"""
import functools
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

import pytest
from PIL import Image

from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, scripted
from cockpit.core.store import Store
from testkit import pagegen
from tests.clitools import cockpit as _cockpit
from tests.clitools import no_traceback
from tests.images import png
from tests.models import answer_with_title, model_client
from tests.webvoyager_runs import webvoyager_messages, wv_folder

cockpit = functools.partial(_cockpit, timeout=300)  # big inputs: more time


pytestmark = pytest.mark.fault("input")


# ---------------------------------------------------------------- task files for `cockpit run --tasks`

def messy_task_file(path, site):
    """Two good tasks among every kind of bad line; returns {line number: what its message must say}."""
    good = [json.dumps({"web_name": "Local", "id": "Local--1", "ques": "Title of the details page?",
                        "web": site.url("agent_details.html")}),
            # no scheme: a guess is made, said, and used
            json.dumps({"task": "Title of the order page?", "url": site.url("agent_order.html").split("://", 1)[1],
                        "id": "plain-2"})]
    bad = {
        '{"web_name": "Local", "id": "Local--9", "ques": "cut off"': "not valid JSON",
        json.dumps({"web_name": "Local", "id": "Local--8", "web": site.url("agent_start.html")}): 'missing "ques"',
        json.dumps({"task": "no address"}): 'missing "url"',
        json.dumps({"task": 42, "url": site.url("agent_start.html")}): '"task" must be a string, got a number',
        json.dumps({"task": "t", "url": ["http://x"]}): '"url" must be a string, got an array',
        json.dumps(["a", "list"]): "expected a JSON object (one task), got an array",
        json.dumps({"name": "not a task"}): 'not a task: no "ques", "task" or "intent" field',
        json.dumps({"task": "   ", "url": "http://x"}): '"task" is empty',
    }
    lines = [good[0].encode()]
    expect = {}
    for text, words in bad.items():
        lines.append(text.encode())
        expect[len(lines)] = words
    lines.append('{"task": "caf\xe9 ol\xe9", "url": "http://127.0.0.1:9/"}'.encode("latin-1"))  # not UTF-8
    expect[len(lines)] = "not valid UTF-8"
    lines.append(good[1].encode())
    expect[len(lines)] = '"url" has no scheme, using http://127.0.0.1:'
    path.write_bytes(b"\n".join(lines) + b"\n\n")
    return expect


def test_messy_task_file_names_every_bad_line_and_runs_the_good_tasks(site, tmp_path, record_property):
    tasks = tmp_path / "tasks.jsonl"
    expect = messy_task_file(tasks, site)
    record_property("inputs_tried", len(expect))
    home = tmp_path / "home"
    dry = cockpit(home, "run", "--tasks", str(tasks), "--dry-run")
    no_traceback(dry)
    assert dry.returncode == 1  # a check that found problems says so in its status
    assert "would run 3 tasks" in dry.stdout  # the good two, and the UTF-8 one (its text repaired)
    for line, words in expect.items():
        assert f"cockpit: {tasks}: line {line}: {words}" in dry.stderr, (line, dry.stderr)
    with ModelServer(answer_with_title) as srv:
        r = cockpit(home, "run", "--tasks", str(tasks), "--ids", "Local--1,plain-2", "--base-url", srv.base_url,
                    "--model", "m")
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert re.search(r"Local--1\s+answered\s+1\b.*Details", r.stdout), r.stdout
    assert re.search(r"plain-2\s+answered\s+1\b.*Order", r.stdout), r.stdout
    for line, words in expect.items():  # the same messages before a real run
        assert f"line {line}: {words}" in r.stderr


def test_empty_and_blank_task_files_are_refused_naming_the_file(tmp_path, record_property):
    cases = {"empty.jsonl": b"", "blank.jsonl": b"\n  \n\t\n"}
    record_property("inputs_tried", len(cases))
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        r = cockpit(tmp_path / "home", "run", "--tasks", str(tmp_path / name), "--model", "m")
        no_traceback(r)
        assert r.returncode == 2
        assert f"no tasks in {tmp_path / name} (" + ("the file is empty" if not data else "only blank lines") \
            in r.stderr


def _peak_kb(home, *args):
    """`cockpit *args` in a fresh process; (result, its peak resident memory in KB from VmHWM)."""
    code = ("import re, sys\n"
            "open('/proc/self/clear_refs', 'w').write('5')  # forget the parent's high-water mark\n"
            "from cockpit.cli import main\n"
            "rc = main(sys.argv[1:])\n"
            "print('peak_kb', re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1),"
            " file=sys.stderr)\n"
            "sys.exit(rc)\n")
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, COCKPIT_HOME=str(home)), stdin=subprocess.DEVNULL)
    return r, int(re.search(r"peak_kb (\d+)", r.stderr).group(1))


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="needs Linux /proc to measure memory")
def test_100_mb_task_file_is_streamed_the_valid_tasks_load(tmp_path, record_property):
    big = tmp_path / "big.jsonl"
    with open(big, "w", encoding="utf-8") as f:
        for i in range(3):
            f.write(json.dumps({"task": f"task {i}", "url": f"https://example.com/{i}"}) + "\n")
        junk = '{"task": "broken ' + "x" * 1000 + "\n"
        for _ in range(10):
            f.write(junk * 10_000)
        f.write("[" + "y" * (20 * 2 ** 20) + "\n")  # one 20 MB line
        f.write(json.dumps({"task": "the last one", "url": "https://example.com/last"}) + "\n")
    size = big.stat().st_size
    assert size > 100 * 2 ** 20
    small = tmp_path / "small.jsonl"
    small.write_text(json.dumps({"task": "t", "url": "https://example.com/"}) + "\n")
    record_property("inputs_tried", 1)  # one 100 MB file (of 100,001 bad lines)
    _, base_kb = _peak_kb(tmp_path / "home", "run", "--tasks", str(small), "--dry-run")
    t0 = time.monotonic()
    r, peak_kb = _peak_kb(tmp_path / "home", "run", "--tasks", str(big), "--dry-run")
    seconds = time.monotonic() - t0
    record_property("load_seconds", round(seconds, 1))
    record_property("extra_memory_mb", round((peak_kb - base_kb) / 1024, 1))
    no_traceback(r)
    assert r.returncode == 1
    assert f"{big} ({size / 2 ** 20:.1f} MB): 4 tasks selected, 100001 problems" in r.stdout
    assert "would run 4 tasks" in r.stdout and "the last one" in r.stdout
    assert f"cockpit: {big}: line 4: not valid JSON" in r.stderr
    assert "... 99981 more problems (100001 in all" in r.stderr  # 20 shown, the rest counted
    assert r.stderr.count("\n") < 40  # not a hundred thousand lines of complaints
    # streamed: it never held the file (or its 20 MB line) in memory whole
    assert (peak_kb - base_kb) * 1024 < size / 2, f"{peak_kb - base_kb} KB more than for a one-line file"
    assert seconds < 120, f"took {seconds:.0f} s"


def test_100_mb_json_array_is_refused_with_its_size(tmp_path, record_property):
    big = tmp_path / "webarena.json"
    record = json.dumps({"task_id": 0, "intent": "x" * 900, "start_url": "https://example.com/"})
    with open(big, "w") as f:
        f.write("[\n")
        for _ in range(110_000):
            f.write(record + ",\n")
        f.write(record + "\n]\n")
    record_property("inputs_tried", 1)
    r = cockpit(tmp_path / "home", "run", "--tasks", str(big), "--dry-run")
    no_traceback(r)
    assert r.returncode == 2
    assert f"{big} is a {big.stat().st_size / 2 ** 20:.0f} MB JSON array" in r.stderr
    assert "JSONL" in r.stderr


# ---------------------------------------------------------------- addresses without a scheme

def test_url_without_a_scheme_for_run_and_observe(site, tmp_path, record_property):
    bare = site.url("agent_details.html").split("://", 1)[1]  # 127.0.0.1:<port>/agent_details.html
    record_property("inputs_tried", 4)
    home = tmp_path / "home"
    with ModelServer(answer_with_title) as srv:
        r = cockpit(home, "run", "--task", "Title?", "--url", bare, "--base-url", srv.base_url, "--model", "m")
    no_traceback(r)
    assert r.returncode == 0 and r.stdout.strip() == "Details", r.stderr
    assert f"'{bare}' has no scheme; opening http://{bare}" in r.stderr  # said, not silently guessed
    o = cockpit(home, "observe", bare)
    no_traceback(o)
    assert o.returncode == 0 and o.stdout.startswith(f"http://{bare}")
    assert f"has no scheme; opening http://{bare}" in o.stderr
    for args in (["run", "--task", "t", "--url", "pages/missing.html", "--model", "m"],
                 ["observe", "pages/missing.html"]):  # a file that is not there is not a web address
        m = cockpit(home, *args, cwd=tmp_path)
        no_traceback(m)
        assert m.returncode in (2, 3) and "no such file: pages/missing.html" in m.stderr


# ---------------------------------------------------------------- huge and endless pages

@pytest.fixture(scope="module")
def page_50k(tmp_path_factory):
    d = tmp_path_factory.mktemp("bigpage")
    (d / "big50k.html").write_text(pagegen.generate(50_000))
    return d / "big50k.html"


def test_a_50000_element_page_through_observe_and_an_agent_step(page_50k, browser, tmp_path, record_property):
    record_property("inputs_tried", 1)
    r = cockpit(tmp_path / "home", "observe", str(page_50k), "--json")
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    marks = json.loads(r.stdout)
    assert 20 < len(marks) < 1000  # the viewport's elements, not fifty thousand
    assert marks[0]["id"] == 1 and any("Product 0" in m.get("text", "") for m in marks)
    from cockpit.core.localserver import LocalSite
    with LocalSite(page_50k.parent) as local, Store(tmp_path / "store") as store, \
            ModelServer(scripted(["Thought: many products.\nAction: Scroll [WINDOW]; down",
                                  "Thought: enough.\nAction: ANSWER; many"])) as srv, \
            model_client(srv) as client:
        result = Agent(browser, client, store, config=AgentConfig(max_steps=3, wait_seconds=0.2)).run(Fresh(
            "How many products?", local.url(page_50k.name)))
        sent = [len(json.dumps(b)) for b in srv.requests]
        steps = store.steps(result.run_id)
    assert (result.status, result.answer, result.steps) == ("answered", "many", 2)
    assert all(20 < s["n_marks"] < 1000 for s in steps)
    assert steps[0]["status"] == "ok" and "scrolled" in steps[0]["outcome"]
    assert max(sent) < 2_000_000  # the request stays the size of a viewport's list and two screenshots


def test_an_endless_feed_through_observe_and_agent_steps(site, browser, tmp_path, record_property):
    record_property("inputs_tried", 1)
    url = site.url("fault_infinite_scroll.html")
    r = cockpit(tmp_path / "home", "observe", url)
    no_traceback(r)
    assert r.returncode == 0 and "'Feed (25 items)'" in r.stdout  # observing does not scroll the feed

    def scroll_until(body):
        text = body["messages"][-1]["content"][0]["text"]
        n = int(re.search(r"The page is 'Feed \((\d+) items\)'", text).group(1))
        return (f"Thought: {n} so far.\nAction: ANSWER; {n}" if n >= 100
                else "Thought: more.\nAction: Scroll [WINDOW]; down")
    with Store(tmp_path / "store") as store, ModelServer(scroll_until) as srv, \
            model_client(srv) as client:
        result = Agent(browser, client, store, config=AgentConfig(max_steps=8, wait_seconds=0.2)).run(Fresh(
            "Scroll until the feed has 100 items", url))
        steps = store.steps(result.run_id)
    assert result.status == "answered" and int(result.answer) >= 100, result
    titles = [s["title"] for s in steps]
    counts = [int(re.search(r"\d+", t).group()) for t in titles]
    assert counts == sorted(counts) and counts[0] == 25 and len(set(counts)) == len(counts)  # it grew each time
    assert all(s["n_marks"] < 200 for s in steps)  # what the model is shown stays the viewport's worth


def test_agent_step_limit_ends_an_endless_feed(site, browser, tmp_path, record_property):
    record_property("inputs_tried", 1)
    with Store(tmp_path / "store") as store, \
            ModelServer(scripted(["Thought: more.\nAction: Scroll [WINDOW]; down"], repeat_last=True)) as srv, \
            model_client(srv) as client:
        result = Agent(browser, client, store, config=AgentConfig(max_steps=4, wait_seconds=0.2)).run(Fresh(
            "Read everything", site.url("fault_infinite_scroll.html")))
        assert (result.status, result.steps, len(srv.requests)) == ("max_steps", 4, 4)
        assert [s["step"] for s in store.steps(result.run_id)] == [1, 2, 3, 4]


# ---------------------------------------------------------------- WebVoyager result folders for `cockpit import`

def test_import_damaged_webvoyager_folders_names_folder_and_file(tmp_path, record_property):
    root = tmp_path / "results"
    good = wv_folder(root, "Good--1", shots=(1, 2, 4))  # step 3 followed a format error: no screenshot, fine
    missing = wv_folder(root, "MissingShot--2", shots=(1, 4))  # step 2 was shown one; its file is gone
    corrupt = wv_folder(root, "CorruptShot--3", shots=(1, 2, 3, 4))
    (corrupt / "screenshot1.png").write_bytes(png()[:70])  # truncated
    no_msgs = wv_folder(root, "NoMessages--4", shots=(1, 2, 3, 4))
    (no_msgs / "interact_messages.json").unlink()
    bad_json = wv_folder(root, "BadJson--5", shots=(1, 2, 3, 4))
    (bad_json / "interact_messages.json").write_text(json.dumps(webvoyager_messages())[:-40])
    latin1 = wv_folder(root, "Latin1--6", shots=(1, 2, 3, 4))
    (latin1 / "interact_messages.json").write_bytes(
        json.dumps(webvoyager_messages(), ensure_ascii=False).replace("lasagna", "lasa\u00f1a").encode("latin-1"))
    (latin1 / "agent.log").write_bytes(b"Iter: 1 caf\xe9\n")
    expect = {missing: ["screenshot2.png is missing"],
              corrupt: ["screenshot1.png is not a valid PNG"],
              no_msgs: ["interact_messages.json is missing"],
              bad_json: ["interact_messages.json is not valid JSON (", "line 1, column"],
              latin1: ["interact_messages.json is not valid UTF-8", "agent.log is not valid UTF-8"]}
    record_property("inputs_tried", 6)
    home = tmp_path / "home"
    r = cockpit(home, "import", "webvoyager", str(root))
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert "imported 6 runs, skipped 0 already imported" in r.stdout
    warnings = [line for line in r.stderr.splitlines() if line.startswith("warning: ")]
    for folder, words in expect.items():
        mine = [w for w in warnings if w.startswith(f"warning: {folder}: ")]
        for word in words:
            assert any(word in w for w in mine), (folder, word, mine)
    assert not any(w.startswith(f"warning: {good}:") for w in warnings)
    with Store(home) as store:
        runs = {r["config"]["imported_from"]: r for r in (store.run(x["id"]) for x in store.runs())}
        assert runs[str(good)]["answer"] == "Vegetarian Four Cheese Lasagna" and runs[str(good)]["steps"] == 4
        assert runs[str(missing)]["steps"] == 4  # every reply kept; step 2 without its screenshot
        gap = store.step(runs[str(missing)]["id"], 2)
        assert gap["screenshot"] is None and gap["action"] == "Click [7]"
        assert store.step(runs[str(corrupt)]["id"], 1)["screenshot"] is None
        assert "lasa\ufffda" in runs[str(latin1)]["task"]  # repaired and marked, not dropped
        assert runs[str(no_msgs)]["steps"] == 0 and runs[str(bad_json)]["steps"] == 0
        for folder, run in runs.items():  # the store keeps each folder's problems with its run
            assert bool(run["config"]["problems"]) == (folder != str(good)), folder


def noise_png(size=(900, 900)) -> bytes:
    rnd = random.Random(7)
    img = Image.frombytes("RGB", size, bytes(rnd.getrandbits(8) for _ in range(size[0] * size[1] * 3)))
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=0)
    return buf.getvalue()


def test_an_import_that_hits_a_disk_error_leaves_no_half_imported_run(tmp_path, record_property):
    root = tmp_path / "results"
    big = wv_folder(root, "ABig--1", shots=(1, 2, 3, 4))
    (big / "screenshot2.png").write_bytes(noise_png())  # > 2 MB: over the file size limit below
    assert (big / "screenshot2.png").stat().st_size > 2 * 2 ** 20
    small = wv_folder(root, "Small--2", shots=(1, 2, 3, 4))
    record_property("inputs_tried", 1)
    home = tmp_path / "home"
    Store(home).close()
    capped = ("import os, resource, sys\n"  # files it writes may not grow past 1 MB: like a disk filling up
              "resource.setrlimit(resource.RLIMIT_FSIZE, (2 ** 20, 2 ** 20))\n"
              "os.execv(sys.executable, [sys.executable, '-m', 'cockpit'] + sys.argv[1:])\n")
    r = subprocess.run([sys.executable, "-c", capped, "import", "webvoyager", str(root)], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, COCKPIT_HOME=str(home)), stdin=subprocess.DEVNULL)
    no_traceback(r)
    assert r.returncode == 1
    assert f"cockpit: error: {big}: not imported: File too large" in r.stderr and "nothing of it was kept" in r.stderr
    assert "imported 1 run," in r.stdout and "1 folder NOT imported" in r.stdout
    with Store(home) as store:
        runs = [store.run(x["id"]) for x in store.runs()]
        assert [x["config"]["imported_from"] for x in runs] == [str(small)]  # no row of the failed one
        assert runs[0]["steps"] == 4
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert sorted(p.name for p in (home / "runs").iterdir()) == [runs[0]["id"]]  # and no files of it
    again = cockpit(home, "import", "webvoyager", str(root))  # with room again, it imports; the other is kept
    assert again.returncode == 0 and "imported 1 run, skipped 1 already imported" in again.stdout
    with Store(home) as store:
        assert len(store.runs()) == 2
    shutil.rmtree(root)
