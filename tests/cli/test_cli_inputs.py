"""`cockpit observe`, `cockpit run --dry-run` and `cockpit runs` on the inputs a new user typed: refused
ports, file:// URLs, missing files and folders, task files read from another folder, notes that are not
problems, and `runs --json` / `--status` (real processes, real Chromium, pages served on 127.0.0.1)."""
import json
import re

import pytest

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import LocalSite
from cockpit.core.tasks.taskfile import load_tasks
from tests.clitools import cockpit, free_port, no_traceback

PAGE = "<!doctype html><title>Pay page</title><button>Pay now</button>"


@pytest.fixture
def pages(tmp_path):
    folder = tmp_path / "walk-pages"
    folder.mkdir()
    (folder / "pay.html").write_text(PAGE)
    return folder


def no_browser_started(home) -> bool:
    return not list((home / "profiles").glob("session-*")) if (home / "profiles").exists() else True


# ---------------------------------------------------------------- C1: a refused connection

@pytest.mark.fault("input")
def test_observe_refused_port_says_could_not_load_with_the_error_code(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/x"
    r = cockpit(tmp_path / "home", "observe", url)
    no_traceback(r)
    assert r.returncode == 3, r.stderr
    assert f"cockpit: error: could not load {url}: ERR_CONNECTION_REFUSED" in r.stderr
    assert "WebDriverException" not in r.stderr and "unknown error" not in r.stderr


# ---------------------------------------------------------------- C2: file:// URLs, missing files, folders

def test_observe_file_url_serves_the_local_page(tmp_path, pages):
    r = cockpit(tmp_path / "home", "observe", (pages / "pay.html").as_uri())
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert re.match(r"http://127\.0\.0\.1:\d+/pay\.html\n'Pay page': 1 mark ", r.stdout), r.stdout
    assert '<button> "Pay now"' in r.stdout


@pytest.mark.fault("input")
@pytest.mark.parametrize("arg, says", [
    ("nope.html", "no such file: nope.html"),
    ("./nope.html", "no such file: ./nope.html"),
    ("sub/nope.htm", "no such file: sub/nope.htm"),
])
def test_observe_missing_file_is_bad_input_not_a_web_address(tmp_path, arg, says):
    home = tmp_path / "home"
    r = cockpit(home, "observe", arg, cwd=tmp_path)
    no_traceback(r)
    assert r.returncode == 2, r.stderr
    assert f"cockpit: error: {says}" in r.stderr
    assert "opening" not in r.stderr and "ERR_NAME_NOT_RESOLVED" not in r.stderr  # no web address guessed
    assert no_browser_started(home)


@pytest.mark.fault("input")
def test_observe_missing_file_url_and_folders_are_refused(tmp_path, pages):
    home = tmp_path / "home"
    r = cockpit(home, "observe", (pages / "gone.html").as_uri())
    assert r.returncode == 2 and f"no such file: {pages / 'gone.html'}" in r.stderr, r.stderr
    for arg in (str(pages), "walk-pages", pages.as_uri() + "/"):
        r = cockpit(home, "observe", arg, cwd=tmp_path)
        no_traceback(r)
        assert r.returncode == 2, (arg, r.stderr)
        assert "is a folder: name an HTML file in it; it holds pay.html" in r.stderr, (arg, r.stderr)
    assert no_browser_started(home)


@pytest.mark.fault("input")
def test_observe_out_naming_a_file_is_refused_before_the_browser_starts(tmp_path, pages):
    home = tmp_path / "home"
    taken = tmp_path / "notes.txt"
    taken.write_text("keep me")
    for out in (taken, taken / "sub"):
        r = cockpit(home, "observe", str(pages / "pay.html"), "--out", str(out))
        no_traceback(r)
        assert r.returncode == 2, r.stderr
        assert f"{taken} is a file" in r.stderr
    assert taken.read_text() == "keep me"
    assert no_browser_started(home)
    r = cockpit(home, "observe", str(pages / "pay.html"), "--out", str(tmp_path / "new" / "dir"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "new" / "dir" / "marks.json").is_file()


def test_observe_localhost_without_a_scheme_gets_http(tmp_path, pages):
    with LocalSite(pages) as site:
        port = site.httpd.server_address[1]
        r = cockpit(tmp_path / "home", "observe", f"localhost:{port}/pay.html")
    assert r.returncode == 0, r.stderr
    assert f"'localhost:{port}/pay.html' has no scheme; opening http://localhost:{port}/pay.html" in r.stderr
    assert r.stdout.startswith(f"http://localhost:{port}/pay.html")


# ---------------------------------------------------------------- C3: relative task URLs

def test_relative_task_url_is_read_from_the_task_files_folder(tmp_path, pages):
    tasks = pages / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "pay", "task": "What is the page title?", "url": "pay.html"}) + "\n"
                     + json.dumps({"id": "gone", "task": "t", "url": "gone.html"}) + "\n")
    elsewhere = tmp_path / "walk"
    elsewhere.mkdir()
    (elsewhere / "gone.html").write_text(PAGE)  # in the current folder, not the task file's: not used
    home = tmp_path / "home"
    for cwd in (elsewhere, pages):
        r = cockpit(home, "run", "--tasks", str(tasks), "--dry-run", cwd=cwd)
        no_traceback(r)
        assert f"pay  {(pages / 'pay.html').as_uri()}  What is the page title?" in r.stdout, (cwd, r.stdout)
        assert "https://pay.html" not in r.stdout + r.stderr
        assert (f'line 2: "url" names a local file, but {pages / "gone.html"} does not exist (a relative '
                "path is read from the task file's folder); task skipped") in r.stderr
        assert "1 task selected, 1 problem\n" in r.stdout and r.returncode == 1

    def title_answer(body):
        text = body["messages"][-1]["content"][0]["text"]
        return "Thought: read it.\nAction: ANSWER; " + re.search(r"The page is '([^']*)'", text).group(1)

    with ModelServer(title_answer) as srv:
        r = cockpit(home, "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m", cwd=elsewhere)
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Pay page", r.stdout  # the one task found: its page opened from /tmp/walk


def test_task_loader_resolves_relative_paths_against_the_file(tmp_path, pages, monkeypatch):
    (pages / "sub").mkdir()
    (pages / "sub" / "b.html").write_text(PAGE)
    tasks = pages / "t.jsonl"
    tasks.write_text("\n".join(json.dumps({"task": "t", "url": u, "id": u}) for u in
                               ("pay.html", "sub/b.html", "./sub/b.html", "sub", "example.com/a.html",
                                "example.com/" + "a" * 300)) + "\n")  # too long to be a file name
    monkeypatch.chdir(tmp_path)
    tf = load_tasks(tasks.relative_to(tmp_path))
    assert [t.url for t in tf.tasks] == [(pages / "pay.html").as_uri(), (pages / "sub/b.html").as_uri(),
                                         (pages / "sub/b.html").as_uri(), "https://example.com/a.html",
                                         "https://example.com/" + "a" * 300]
    assert [(p.line, p.note) for p in tf.problems] == [(4, False), (5, True), (6, True)]
    assert f"{pages / 'sub'} is a folder, not a page" in tf.problems[0].message
    assert (tf.problem_count, tf.note_count) == (1, 2)


# ---------------------------------------------------------------- C4: notes are not problems

@pytest.mark.fault("input")
def test_dry_run_counts_notes_apart_from_problems(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    lines = [json.dumps({"id": f"n{i}", "task": "t", "url": f"example{i}.com/x"}) for i in range(3)]
    lines += ['{"task": "cut off', json.dumps({"id": "ok", "task": "t", "url": "https://example.com/"}),
              json.dumps({"task": "no url"})]
    tasks.write_text("\n".join(lines) + "\n")
    home = tmp_path / "home"
    r = cockpit(home, "run", "--tasks", str(tasks), "--dry-run")
    no_traceback(r)
    assert "4 tasks selected, 2 problems, 3 notes\n" in r.stdout, r.stdout
    assert r.returncode == 1
    assert (f'cockpit: {tasks}: line 1: "url" has no scheme, using https://example0.com/x '
            "(a note, not a problem)") in r.stderr
    assert f"cockpit: {tasks}: line 4: not valid JSON" in r.stderr

    tasks.write_text("\n".join(lines[:3]) + "\n")  # notes only: nothing wrong with the file
    r = cockpit(home, "run", "--tasks", str(tasks), "--dry-run")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 tasks selected, 0 problems, 3 notes\n" in r.stdout and "would run 3 tasks\n" in r.stdout

    tasks.write_text(lines[0] + "\n" + lines[3] + "\n")  # one of each: singular words
    r = cockpit(home, "run", "--tasks", str(tasks), "--dry-run")
    assert "1 task selected, 1 problem, 1 note\n" in r.stdout and "would run 1 task\n" in r.stdout, r.stdout
    assert r.returncode == 1


def test_report_past_the_first_twenty_counts_problems_and_notes_apart(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    lines = [json.dumps({"id": f"n{i}", "task": "t", "url": f"example{i}.com"}) for i in range(25)]
    lines += ["{broken"] * 3
    tasks.write_text("\n".join(lines) + "\n")
    r = cockpit(tmp_path / "home", "run", "--tasks", str(tasks), "--dry-run")
    assert "... 3 more problems and 5 more notes (3 problems, 25 notes in all;" in r.stderr, r.stderr
    assert r.returncode == 1 and "25 tasks selected, 3 problems, 25 notes" in r.stdout


# ---------------------------------------------------------------- C5: cockpit runs

def test_runs_json_gives_config_and_memories_as_json_and_refuses_unknown_status(tmp_path, pages):
    home = tmp_path / "home"
    url = str(pages / "pay.html")

    def answer(body):
        return "Thought: done.\nAction: ANSWER; Pay page"

    with ModelServer(answer) as srv:
        first = cockpit(home, "run", "--task", "What is the pay page title?", "--url", url,
                        "--base-url", srv.base_url, "--model", "m")
        assert first.returncode == 0, first.stderr
        second = cockpit(home, "run", "--task", "What is the pay page title?", "--url", url, "--no-resume",
                         "--memory", "1", "--base-url", srv.base_url, "--model", "m")
        assert second.returncode == 0, second.stderr
    r = cockpit(home, "runs", "--json")
    assert r.returncode == 0, r.stderr
    newer, older = json.loads(r.stdout)
    assert isinstance(newer["config"], dict) and isinstance(older["config"], dict)
    assert newer["memories"] == [older["id"]]
    shown = json.loads(cockpit(home, "runs", newer["id"], "--json").stdout)["run"]
    assert shown["memories"] == [older["id"]] and isinstance(shown["config"], dict)

    bogus = cockpit(home, "runs", "--status", "bogus")
    no_traceback(bogus)
    assert bogus.returncode == 2 and bogus.stdout == ""
    assert ("unknown status 'bogus'; the statuses are running, answered, refused, max_steps, stopped, failed, "
            "interrupted, closed") in bogus.stderr
    answered = cockpit(home, "runs", "--status", "answered", "--json")
    assert answered.returncode == 0 and len(json.loads(answered.stdout)) == 2
