"""The run store: migrations, atomic steps, clear errors."""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import pytest
import sqlite_utils

from cockpit.core.store import SCHEMA_VERSION, Store, StoreError, corrections
from cockpit.core.store.newrun import NewRun
from cockpit.core.store.schema import MIGRATIONS


def test_a_version_1_database_is_migrated_and_keeps_its_runs(tmp_path):
    db = sqlite_utils.Database(tmp_path / "cockpit.db")
    MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    db["runs"].insert({"id": "old-run", "task": "an old task", "url": "http://x", "status": "answered"})
    db["steps"].insert({"run_id": "old-run", "step": 1, "action": "Click [1]"})
    db.conn.commit()
    db.conn.close()
    with Store(tmp_path) as store:
        assert store.version == SCHEMA_VERSION >= 2
        assert store.run("old-run")["task"] == "an old task"
        assert store.steps("old-run")[0]["actor"] == "agent"
        assert store.runs(search="old")[0]["id"] == "old-run"
        corrections.add(store, "old-run", 1, "spurious", mark_id=1, by="human:ada")
        assert corrections.of(store, "old-run")[0]["kind"] == "spurious"


@pytest.mark.fault("store")
def test_a_newer_database_is_refused_not_damaged(tmp_path):
    Store(tmp_path).close()
    conn = sqlite3.connect(tmp_path / "cockpit.db")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer Cockpit"):
        Store(tmp_path)


@pytest.mark.fault("store")
def test_locked_database_gives_a_clear_error(tmp_path):
    with Store(tmp_path) as store:
        run = store.new_run(NewRun("t", "u"))
        locker = subprocess.Popen([sys.executable, "-c", (
            "import sqlite3, sys, time\n"
            f"c = sqlite3.connect({str(tmp_path / 'cockpit.db')!r}, isolation_level=None)\n"
            "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(30)")],
            stdout=subprocess.PIPE, text=True)
        try:
            assert locker.stdout.readline().strip() == "locked"
            store.db.execute("PRAGMA busy_timeout = 300")  # give up quickly for the test
            with pytest.raises(StoreError, match="locked by another program"):
                store.finish_run(run, "answered", answer="x")
        finally:
            locker.kill()
            locker.wait()
        store.db.execute("PRAGMA busy_timeout = 10000")
        store.finish_run(run, "answered", answer="x")  # works once the other program is gone
        assert store.run(run)["answer"] == "x"


def _as_nobody(fn, *args):
    """fn(*args) in a forked child that drops root to 'nobody' after Cockpit is imported, so file
    modes apply wherever the checkout lives (a clone in a 0700 directory cannot be entered by
    'nobody', so a fresh interpreter could not import cockpit). What it returned or raised, as text.."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns to pytest
        os.close(r)
        out = ""
        try:
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            out = "ok: " + str(fn(*args))
        except BaseException as e:  # reported to the parent, which asserts on it
            out = f"{type(e).__name__}: {e}" + ("" if isinstance(e, StoreError) else
                                                 "\n---\n" + "".join(traceback.format_exception(e)))
        finally:
            os.write(w, out.encode())
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        text = f.read().decode()
    os.waitpid(pid, 0)
    return text


@pytest.mark.fault("store")
def test_read_only_data_dir_is_explained(tmp_path):
    """A data dir the user cannot write gets a clear StoreError naming it, nothing half-made.
    Root ignores file modes, so as root the check runs in a child that became 'nobody'."""
    Store(tmp_path / "warm").close()  # everything Store imports is loaded before the drop
    base = Path(tempfile.mkdtemp(prefix="cockpit-ro-"))  # not under pytest's root-only tmp dir
    ro = base / "ro"
    ro.mkdir()
    base.chmod(0o755)
    ro.chmod(0o555)
    try:
        out = _as_nobody(Store, str(ro))
        assert out.startswith("StoreError:"), out  # not another exception, not a store opened
        assert re.search("read-only|cannot", out), out
        assert str(ro) in out  # names the folder
        assert list(ro.iterdir()) == []  # nothing half-created
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.fault("store")
def test_missing_screenshot_file_is_a_clear_error(tmp_path):
    with Store(tmp_path) as store:
        run = store.new_run(NewRun("t", "u"))
        files = store.write_step_files(run, 1, screenshot=b"png", marked=b"png", marks=[])
        store.commit_step(run, dict(step=1, **files))
        store.file(files["screenshot"]).unlink()
        with pytest.raises(StoreError, match="missing or unreadable"):
            store.read_file(store.steps(run)[0]["screenshot"], "screenshot")
