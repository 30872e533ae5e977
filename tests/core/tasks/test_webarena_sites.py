"""WebArena's raw config (config_files/test.raw.json): placeholders mapped as WebArena maps them (issue #22).

tests/data/webarena_test.raw.json is three tasks in the real file's format: a shopping-admin task with a
storage_state, a map task, and a two-tab reddit + wikipedia task with a placeholder in its reference URL.
"""
import json
import re

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from cockpit.core.tasks.taskfile import load_tasks
from tests import DATA
from tests.clitools import cockpit

RAW = DATA / "webarena_test.raw.json"


def test_placeholders_come_from_the_environment_and_site_options(monkeypatch):
    monkeypatch.setenv("SHOPPING_ADMIN", "http://admin.example:7780/admin/")
    monkeypatch.setenv("REDDIT", "http://forum.example:9999")
    tf = load_tasks(RAW, {"wikipedia": "http://wiki.example:8888", "map": "http://map.example:3000"})
    by = {t.id: t for t in tf.tasks}
    assert by["0"].url == "http://admin.example:7780/admin"  # the trailing slash, as WebArena's own join
    assert by["7"].url == "http://map.example:3000"
    # two tabs: Cockpit starts at the first, keeps both, and says so
    assert by["45"].url == "http://forum.example:9999/f/dataisbeautiful/60156"
    assert by["45"].extra["start_urls"][1].startswith("http://wiki.example:8888/")
    assert by["45"].extra["eval"]["reference_url"] == "http://forum.example:9999/f/dataisbeautiful"
    notes = [p.message for p in tf.problems if p.note]
    assert any("opens 2 tabs" in n for n in notes)
    # what the user must provide: a logged-in session, per storage_state
    assert any("1 task needs a logged-in session (WebArena's storage_state ./.auth/shopping_admin_state.json)" in n
               for n in notes), notes
    assert by["0"].extra["require_login"] is True and by["0"].extra["storage_state"].endswith("admin_state.json")
    assert tf.problem_count == 0


def test_an_unmapped_placeholder_is_a_problem_that_says_what_to_set(monkeypatch, tmp_path):
    for name in ("SHOPPING", "SHOPPING_ADMIN", "REDDIT", "GITLAB", "MAP", "WIKIPEDIA", "HOMEPAGE"):
        monkeypatch.delenv(name, raising=False)
    r = cockpit(tmp_path / "home", "run", "--tasks", str(RAW), "--dry-run", "--site", "map=http://127.0.0.1:3000")
    assert r.returncode == 1, r.stderr  # one task would run; the others have problems
    assert "__SHOPPING_ADMIN__ is not mapped to an address: set SHOPPING_ADMIN=URL in the environment" in r.stderr
    assert "--site shopping_admin=URL" in r.stderr
    assert "would run 1 task" in r.stdout
    bad = cockpit(tmp_path / "home", "run", "--tasks", str(RAW), "--dry-run", "--site", "map")
    assert bad.returncode == 2 and "give NAME=URL" in bad.stderr


def test_a_mapped_task_runs_on_the_mapped_site(site, tmp_path, monkeypatch):
    for name in ("SHOPPING_ADMIN", "REDDIT", "WIKIPEDIA"):
        monkeypatch.delenv(name, raising=False)
    raw = json.loads(RAW.read_text())
    raw[1]["start_url"] = "__MAP__/agent_start.html"
    tasks = tmp_path / "test.raw.json"
    tasks.write_text(json.dumps(raw))

    def respond(body):
        text = body["messages"][-1]["content"][0]["text"]
        assert re.search(r"http://127\.0\.0\.1:\d+/agent_start\.html", text), text[:300]
        return "Thought: seen\nAction: ANSWER; Pittsburgh International Airport"
    home = tmp_path / "home"
    with ModelServer(respond) as srv:
        r = cockpit(home, "run", "--tasks", str(tasks), "--ids", "7", "--site", f"map={site.url('').rstrip('/')}",
                    "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0, r.stderr
    with Store(home) as store:
        run = store.runs()[0]
    assert run["status"] == "answered" and run["url"] == site.url("agent_start.html")
