"""Secrets (issue #9): the API key and text typed into password / card fields stay out of every record.

Two kinds of secret, searched for where a user (or whoever gets their files) could find them:

* The API key lives only in the keyring or the environment. A whole session runs in real
  `cockpit` processes against a model server that *requires* the key (so it surely was used),
  then every file under COCKPIT_HOME, every export and every line the commands printed is
  searched for it, bytes and URL-encoded, the SQLite file and its WAL included.
* Text the agent types into a secret field reaches the page, but the store, the events, the
  live step log, every export and the history sent back to the model show "(secret)"; the
  model is told that it typed a secret.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cockpit.core.llm.modelserver import ModelServer, Reply
from tests.faults import file_keyring
from tests.secret_scan import (
    EXPORT_FORMATS,
    KEY,
    KEY_FRAGMENT,
    ROOT,
    TRAINING_EXPORTS,
    count,
    db_hits,
    needles,
    prompt_text,
    scan_files,
)


def session_model(body):
    """The model for the whole session: what it answers depends on the task, and judges say SUCCESS."""
    text = prompt_text(body)
    if "SUCCESS" in body["messages"][0]["content"]:  # the judge's system prompt names the verdicts
        return "The answer matches the page.\nSUCCESS"
    if "task-401" in text:  # a server echoing the key it rejects, as some do
        return Reply.error(401, f"Incorrect API key provided: {KEY}. Find your key in your account.")
    if "task-500" in text:
        return Reply.error(500, f"upstream failure while serving key {KEY}", headers={"Retry-After": "0"})
    if "task-nochoices" in text:
        return Reply(body=json.dumps({"error": {"message": f"quota exceeded for {KEY}"}}))
    if "task-slow" in text:
        return Reply(text="Thought: wait\nAction: Wait", delay=60)
    if "Result of your last action" in text:
        title = re.findall(r"The page is '([^']*)'", text)[-1]
        return f"Thought: the title says it.\nAction: ANSWER; {title}"
    return "Thought: look further down first.\nAction: Scroll [WINDOW]; down"


class Session:
    """`cockpit` in real processes with one COCKPIT_HOME; keeps every line they printed."""

    def __init__(self, home: Path, env: dict):
        self.home = home
        self.env = env
        self.outputs: list[tuple[str, str]] = []  # (command, stdout + stderr)

    def __call__(self, *args, stdin: str | None = None, timeout=240, ok=(0,)) -> subprocess.CompletedProcess:
        r = subprocess.run([sys.executable, "-m", "cockpit", *args], capture_output=True, text=True, cwd=ROOT,
                           env=self.env, timeout=timeout, input=stdin,
                           stdin=None if stdin is not None else subprocess.DEVNULL)
        self.outputs.append((" ".join(args), r.stdout + r.stderr))
        assert r.returncode in ok, f"cockpit {' '.join(args)} -> {r.returncode}\n{r.stdout}\n{r.stderr}"
        return r

    def interrupted_run(self, srv: ModelServer, url: str) -> None:
        """A run stopped with Ctrl+C while the model is thinking: the stop path records the step in flight."""
        asked = len(srv.requests)
        proc = subprocess.Popen([sys.executable, "-m", "cockpit", "-v", "run", "--task", "task-slow", "--url", url,
                                 "--base-url", srv.base_url, "--model", "m"], cwd=ROOT, env=self.env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 90
        while len(srv.requests) == asked and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        self.outputs.append(("run task-slow (Ctrl+C)", out + err))
        assert proc.returncode == 130, err


def subprocess_env(home: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env.update(COCKPIT_HOME=str(home), PYTHONPATH=str(ROOT), **extra)
    return env


@pytest.mark.fault("secrets")
@pytest.mark.parametrize("key_from", ["environment", "keyring"])
def test_the_api_key_is_nowhere_after_a_whole_session(key_from, site, tmp_path, record_property):
    home, out = tmp_path / "home", tmp_path / "exports"
    keyring_file = tmp_path / "keyring.json"
    if key_from == "environment":
        env = subprocess_env(home, OPENAI_API_KEY=KEY, PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    else:
        env = subprocess_env(home, PYTHON_KEYRING_BACKEND=file_keyring.BACKEND,
                             **{file_keyring.ENV: str(keyring_file)})
    cockpit = Session(home, env)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"web_name": "Local", "id": f"Local--{i}", "ques": q,
                                         "web": site.url("agent_details.html")}) + "\n"
                             for i, q in enumerate(["task-ok: what is the title?", "task-401", "task-500",
                                                    "task-nochoices"])))
    bad_rules = tmp_path / "rules.json"
    bad_rules.write_text('{"rules": [ not json')

    with ModelServer(session_model, require_key=KEY) as srv:
        model = ("--base-url", srv.base_url, "--model", "m")
        if key_from == "keyring":
            assert cockpit("key", "status", "--base-url", srv.base_url, ok=(0,)).stdout.count("none needed")
            cockpit("key", "set", "--base-url", srv.base_url, stdin=KEY + "\n")
            assert KEY in keyring_file.read_text()  # the stand-in keyring holds it: the one allowed place
        status = cockpit("key", "status", "--base-url", srv.base_url).stdout
        assert ("from the system keyring" if key_from == "keyring" else "OPENAI_API_KEY") in status

        batch = cockpit("-v", "run", "--tasks", str(tasks), *model, "--retries", "1", "--approval", "allow", ok=(1,))
        assert re.search(r"Local--0\s+answered", batch.stdout), batch.stdout
        assert re.search(r"Local--1\s+failed", batch.stdout), batch.stdout
        cockpit.interrupted_run(srv, site.url("agent_details.html"))
        bad = cockpit("-v", "run", "--task", "task-rules", "--url", site.url("agent_details.html"), *model,
                      "--rules", str(bad_rules), ok=(2,))
        assert "rules" in bad.stderr

        listing = json.loads(cockpit("runs", "--json", "--limit", "100").stdout)
        assert sorted(r["status"] for r in listing) == ["answered", "failed", "failed", "failed", "stopped"]
        ok_run = next(r["id"] for r in listing if r["status"] == "answered")
        cockpit("-v", "runs")
        for r in listing:
            cockpit("runs", r["id"])
            cockpit("runs", r["id"], "--json")
        for fmt in EXPORT_FORMATS:
            dest = out / (f"{fmt}.out" if fmt in ("labels-jsonl", "labels-csv", "coco") else fmt)
            cockpit("-v", "export", "all", "--format", fmt, "--out", str(dest))
        for fmt, layout in TRAINING_EXPORTS:  # every step that ran: nobody labelled these runs
            cockpit("-v", "export", "all", "--format", fmt, "--layout", layout, "--steps", "all",
                    "--out", str(out / f"train-{fmt}-{layout}"))
        judged = cockpit("-v", "judge", "--no-canary", "--all", *model, "--retries", "0")
        assert "SUCCESS" in judged.stdout, judged.stdout
        cockpit("-v", "reask", ok_run, "2", "--show-request")
        cockpit("-v", "reask", ok_run, "1", "--json")

        assert srv.rejected == 0  # every request carried the key ...
        assert len(srv.requests) >= 8  # ... and there were many: runs, retries, judge, re-asks

    with_key = [body for body in srv.requests if KEY in json.dumps(body)]
    assert with_key == []  # nor did the key travel inside a request body
    failed = {r["task"]: r["error"] for r in listing if r["status"] == "failed"}
    assert "rejected the API key (401)" in failed["task-401"]
    assert "500" in failed["task-500"] and "returned no choices" in failed["task-nochoices"]

    # the search itself works: the task text it is fed is found in the store, the exports and the output
    control = needles("task-ok: what is the title?")
    assert db_hits(home / "cockpit.db", control) and any(count(text, control) for _, text in cockpit.outputs)
    assert {Path(p).suffix for p in scan_files([home, out], control)} >= {".db", ".html", ".json", ".log", ".out",
                                                                         ".parquet", ".jsonl"}
    assert list(out.rglob("*.gif")) and list(home.rglob("*.png"))

    find = needles(KEY, KEY_FRAGMENT)
    in_files = scan_files([home, out], find)
    in_db = db_hits(home / "cockpit.db", find)
    in_output = {cmd: n for cmd, text in cockpit.outputs if (n := count(text, find))}
    hits = sum(in_files.values()) + sum(in_db.values()) + sum(in_output.values())
    record_property("key_hits", hits)
    assert hits == 0, f"the API key leaked: files {in_files}, database {in_db}, printed by {in_output}"


def widget_text(w, attr: str) -> str | None:
    """w.text() and the like, for any Qt object that has such a getter without arguments."""
    getter = getattr(w, attr, None)
    if not callable(getter):
        return None
    try:
        return str(getter())
    except TypeError:  # a same-named method wanting arguments (a delegate's displayText)
        return None


@pytest.mark.fault("secrets")
def test_the_settings_dialog_sends_the_key_and_keeps_it_only_in_the_keyring(qtbot, tmp_path, monkeypatch,
                                                                            record_property):
    import keyring
    from PySide6.QtWidgets import QDialog

    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.settings import Settings, settings_path
    from cockpit.ui.settings.dialog import ModelSettingsDialog

    home = tmp_path / "home"
    monkeypatch.setenv("COCKPIT_HOME", str(home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv(file_keyring.ENV, str(tmp_path / "keyring.json"))
    before = keyring.get_keyring()
    keyring.set_keyring(file_keyring.FileKeyring())
    try:
        with ModelServer(["OK"] * 3, require_key=KEY) as srv:
            dlg = ModelSettingsDialog(Settings(model=ModelConfig(base_url=srv.base_url, model="m")))
            qtbot.addWidget(dlg)
            dlg.show()
            qtbot.keyClicks(dlg.key.key_edit, KEY)
            assert KEY not in dlg.key.key_edit.displayText()  # masked while typed
            dlg.check.test_button.click()
            qtbot.waitUntil(lambda: dlg.check.status_label.text().startswith(("OK", "Error")), timeout=15_000)
            assert dlg.check.status_label.text().startswith("OK"), dlg.check.status_label.text()
            assert srv.rejected == 0 and len(srv.requests) == 1  # the typed key reached the server
            dlg.ok_button.click()
            assert dlg.result() == QDialog.DialogCode.Accepted
            assert keyring.get_password("cockpit", f"api-key:127.0.0.1:{srv.port}") == KEY
            again = ModelSettingsDialog(dlg.result_settings())
            qtbot.addWidget(again)
            again.show()
            shown = [text for d in (dlg, again) for w in [d, *d.findChildren(object)]
                     for attr in ("text", "displayText", "placeholderText", "toolTip", "windowTitle")
                     if (text := widget_text(w, attr)) is not None]
            assert "from the system keyring" in again.key.key_edit.placeholderText()
    finally:
        keyring.set_keyring(before)
    find = needles(KEY, KEY_FRAGMENT)
    assert settings_path().is_file()
    in_files = scan_files([home], find)
    in_widgets = sum(count(s, find) for s in shown)
    record_property("key_hits", sum(in_files.values()) + in_widgets)
    assert in_files == {} and in_widgets == 0, (in_files, in_widgets)


# ---------------------------------------------------------------- text typed into secret fields

def test_the_model_server_can_require_the_key():
    """The tool the tests above rely on: without the right key, a 401 that does not echo the key sent."""
    import openai
    with ModelServer(["Thought: t\nAction: Wait"] * 2, require_key=KEY) as srv:
        wrong = openai.OpenAI(base_url=srv.base_url, api_key="sk-wrong-key-123", max_retries=0)
        with pytest.raises(openai.AuthenticationError) as info:
            wrong.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert "sk-wrong-key-123" not in str(info.value)
        with pytest.raises(openai.AuthenticationError):
            wrong.models.list()
        assert srv.rejected == 2 and srv.requests == []
        right = openai.OpenAI(base_url=srv.base_url, api_key=KEY, max_retries=0)
        reply = right.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content.startswith("Thought: t")
        assert srv.rejected == 2 and len(srv.requests) == 1
