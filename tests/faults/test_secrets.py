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

import gzip
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, Reply
from tests.faults import file_keyring
from tests.models import model_client

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-proj-CockpitFAKEkey-7d3f9a2b1c0e4d5f8a6b"
KEY_FRAGMENT = KEY[8:30]  # a truncated copy ("sk-proj-Cockpit...") counts as a leak too
PASSWORD = "S3cr3t-Pa55"
CARD = "4111 1111 1111 1111"
EXPORT_FORMATS = ("webvoyager", "labels-jsonl", "labels-csv", "html", "gif", "coco", "har")
#: Training data (issue #43), every kind and layout: (format, layout), each into its own folder.
TRAINING_EXPORTS = (("sft", "openai"), ("sft", "hf"), ("sft", "sharegpt"), ("preference", "trl"),
                    ("preference", "sharegpt"), ("process", "trl"), ("grounding", "hf"), ("grounding", "screenspot"))


# ---------------------------------------------------------------- searching

def needles(secret: str, *extra: str) -> list[bytes]:
    forms = {secret, quote(secret, safe=""), quote_plus(secret), *extra}
    return [f.encode() for f in forms]


def count(data: bytes | str, find: list[bytes]) -> int:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    return max(data.count(n) for n in find)


def parquet_text(path: Path) -> bytes:
    """A Parquet file's values as text (its pages are compressed: its raw bytes would hide a leak)."""
    import pyarrow.parquet as pq

    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v.decode("latin-1") if isinstance(v, bytes) else v
    return json.dumps(plain(pq.read_table(path).to_pylist()), ensure_ascii=False).encode()


def scan_files(roots, find: list[bytes], exclude=()) -> dict[str, int]:
    """Occurrences per file, every file under `roots` read as bytes (db, WAL, PNG, GIF alike; Parquet decoded; the
    web archive's gzip-compressed bodies and snapshots as they decompress)."""
    found = {}
    for root in roots:
        root = Path(root)
        for p in [root] if root.is_file() else sorted(root.rglob("*")):
            if p.is_file() and p not in exclude:
                try:
                    if p.suffix == ".parquet":
                        data = parquet_text(p)
                    else:
                        data = p.read_bytes()
                        if p.suffix == ".gz":
                            data += gzip.decompress(data)
                    n = count(data, find)
                except OSError:  # a file that vanished (a WAL checkpointed away) while we looked
                    continue
                if n:
                    found[str(p)] = n
    return found


def dump_db(path: Path) -> dict[str, str]:
    """Every table (FTS shadow tables too), every row and column, as text."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        out = {}
        for t in tables:
            cur = con.execute(f'SELECT * FROM "{t}"')
            cols = [d[0] for d in cur.description]
            for i, row in enumerate(cur):
                for c, v in zip(cols, row):
                    if v is not None:
                        out[f"{t}[{i}].{c}"] = v.decode("latin-1") if isinstance(v, bytes) else str(v)
        return out
    finally:
        con.close()


def db_hits(path: Path, find: list[bytes]) -> dict[str, int]:
    return {k: n for k, v in dump_db(path).items() if (n := count(v, find))}


# ---------------------------------------------------------------- the API key, whole CLI session

def prompt_text(body) -> str:
    """Everything the request says in text (not the images)."""
    parts = []
    for m in body["messages"]:
        c = m["content"]
        parts += [c] if isinstance(c, str) else [p.get("text", "") for p in c if p.get("type") == "text"]
    return "\n".join(parts)


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

def mark_of(body, pattern: str) -> int:
    """The number of the element whose prompt line matches `pattern`, read like a model would."""
    text = prompt_text({"messages": [m for m in body["messages"] if m["role"] == "user"][-1:]})
    for line in text.splitlines():
        m = re.match(r"\[(\d+)\]: (.*)", line)
        if m and re.search(pattern, m.group(2)):
            return int(m.group(1))
    raise AssertionError(f"no element matching {pattern!r} in the prompt:\n{text}")


def login_model():
    """Types the password, then the card number (both named in its thoughts too), then answers."""
    steps = iter([
        lambda b: (f"Thought: the password is {PASSWORD}, so I type {PASSWORD} into the password field.\n"
                   f"Action: Type [{mark_of(b, 'type=password')}]; {PASSWORD}"),
        lambda b: (f"Thought: signed in with {PASSWORD}; now the card {CARD}.\n"
                   f"Action: Type [{mark_of(b, 'Card number')}]; {CARD}"),
        lambda b: "Thought: both are typed.\nAction: ANSWER; signed in",
    ])
    return lambda body: next(steps)(body)


@pytest.mark.fault("secrets")
def test_text_typed_into_secret_fields_is_masked_everywhere(site, browser, tmp_path, qtbot, monkeypatch,
                                                            record_property):
    from cockpit.cli import main as cockpit_main
    from cockpit.core.agent.approval import PolicyApprover
    from cockpit.core.agent.loop import Agent, AgentConfig
    from cockpit.core.store import Store
    from cockpit.ui.live.step_details import StepDetails
    from cockpit.ui.live.step_log import StepLogPanel

    home = tmp_path / "home"
    events = []
    log = StepLogPanel()
    qtbot.addWidget(log)

    def listen(e):
        events.append(e)

    with ModelServer(login_model(), require_key=KEY) as srv, Store(home) as store, \
            model_client(srv, api_key=KEY) as client:
        # Every action goes through the approval gate, so the decisions table and its events are covered too.
        agent = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2, approval_policy="every"),
                      approver=PolicyApprover(True), listener=listen)
        result = agent.run(Fresh("Sign in as alice and enter the card", site.url("secret_login.html")))
        assert result.status == "answered", result
        typed = browser.driver.execute_script(
            "return [document.querySelector('[name=password]').value, document.querySelector('[name=card]').value]")
        assert typed == [PASSWORD, CARD]  # the secrets did reach the page
        run_id = result.run_id
        steps = store.steps(run_id)
        run = store.run(run_id)
        files_while_open = scan_files([home], needles(PASSWORD) + needles(CARD))

        # the live step log and the step details, fed as the window feeds them
        for e in events:
            log.add_event(e)
        details = StepDetails()
        qtbot.addWidget(details)
        widget_texts = []
        for s in steps:
            details.show_step(store, run, s)
            details.setCurrentWidget(details.messages)
            widget_texts += [details.summary.toPlainText(), details.messages.toHtml(), details.raw.toPlainText()]
        items = [log.topLevelItem(i) for i in range(log.topLevelItemCount())]
        items += [it.child(j) for it in items for j in range(it.childCount())]
        widget_texts += [t for it in items for c in range(log.columnCount()) for t in (it.text(c), it.toolTip(c))]

    # the record shows what happened, without the text
    pw_mark = mark_of(srv.requests[0], "type=password")
    card_mark = mark_of(srv.requests[1], "Card number")
    assert [s["action"] for s in steps] == [f"Type [{pw_mark}]; (secret)", f"Type [{card_mark}]; (secret)",
                                            "ANSWER; signed in"]
    assert "(secret)" in steps[0]["thought"] and "(secret)" in steps[1]["reply"]
    assert any(it.text(1) == f"Type [{pw_mark}]; (secret)" for it in items)

    # the model is told it typed a secret, and its history no longer holds it
    assert len(srv.requests) == 3 and srv.rejected == 0
    assert f"You typed a secret into the password field [{pw_mark}]" in prompt_text(srv.requests[1])
    assert f"You typed a secret into the secret field [{card_mark}]" in prompt_text(srv.requests[2])
    assert f"Type [{pw_mark}]; (secret)" in prompt_text(srv.requests[2])  # its own earlier reply, masked

    monkeypatch.setenv("COCKPIT_HOME", str(home))
    out = tmp_path / "exports"
    for fmt in EXPORT_FORMATS:
        dest = out / (f"{fmt}.out" if fmt in ("labels-jsonl", "labels-csv", "coco") else fmt)
        assert cockpit_main(["export", run_id, "--format", fmt, "--out", str(dest)]) == 0
    assert list(out.rglob("*.gif")) and list(out.rglob("interact_messages.json"))
    from cockpit.core.training.export import ExportOptions, export
    with Store(home) as store:  # every kind and layout, every step that ran (the two typing steps left out)
        for fmt, layout in TRAINING_EXPORTS:
            done = export(store, ExportOptions(fmt, layout, keep="all"), out / f"train-{fmt}-{layout}")
            assert done.run_ids == [run_id]
        sft = export(store, ExportOptions("sft", "openai", keep="all"), out / "train-sft-openai")
    assert sft.rows == 1 and sft.tally.skipped["text typed into a secret field is not stored"] == 2
    assert count(parquet_text(out / "train-sft-hf" / "data" / "train-00000-of-00001.parquet"), needles("Sign in"))
    for fmt in ("har", "bundle"):  # the web recording, credentials and all, as far as it goes out
        dest = out / f"{fmt}-with-credentials" / ("run.zip" if fmt == "bundle" else "")
        assert cockpit_main(["export", run_id, "--format", fmt, "--with-credentials", "--out", str(dest)]) == 0
    # the web recording holds the page's form post and JSON body, each with the fields as "(secret)"
    har = json.loads(next((out / "har").glob("*.har")).read_text())["log"]["entries"]
    posts = {e["request"]["url"].rsplit("=", 1)[1]: e["request"]["postData"]["text"] for e in har
             if e["request"]["method"] == "POST"}
    assert set(posts) == {"form", "json"}, posts
    assert "password=%28secret%29" in posts["form"] or "password=(secret)" in posts["form"]
    assert json.loads(posts["json"])["password"] == "(secret)" and json.loads(posts["json"])["user"] == "alice"
    with zipfile.ZipFile(next((out / "bundle-with-credentials").glob("*.zip"))) as z:
        bundle = {n: z.read(n) for n in z.namelist()}
    assert any(n.endswith("web/credentials.jsonl") for n in bundle)

    leaks = {}
    for name, secret in (("password", PASSWORD), ("card", CARD)):
        find = needles(secret)
        where = {
            "files": {**files_while_open, **scan_files([home, out], find)},
            "bundle with credentials": {n: c for n, d in bundle.items() if (c := count(
                gzip.decompress(d) if n.endswith(".gz") else d, find))},
            "database": db_hits(home / "cockpit.db", find),
            "marks.json": {s["marks_file"]: n for s in steps if (n := count(Path(home, s["marks_file"]).read_bytes(),
                                                                             find))},
            "stored requests": {s["step"]: n for s in steps if (n := count(json.dumps(s["request"]), find))},
            "sent to the model": {i: n for i, b in enumerate(srv.requests) if (n := count(json.dumps(b), find))},
            "events": {repr(e)[:80]: n for e in events if (n := count(repr(e), find))},
            "widgets": {t[:80]: n for t in widget_texts if (n := count(t, find))},
        }
        leaks[name] = {k: v for k, v in where.items() if v}
    record_property("secret_hits", sum(sum(v.values()) for w in leaks.values() for v in w.values()))
    assert leaks == {"password": {}, "card": {}}


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
