"""Real run stores damaged in the ways a disk, a copy or another program damages them, for the tests and the
start bench of what Cockpit does with a run database it cannot use (cockpit.core.store.damage)."""
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun

#: Every kind make() knows; each is a file Cockpit must refuse to use as it is.
KINDS = ("garbage", "truncated", "overwritten", "newer", "foreign", "foreign-versioned", "wal")


def filled_store(home: Path, runs: int = 40) -> list[str]:
    """A real store in `home` with `runs` runs of 3 steps (long enough rows to span many pages) and a
    screenshot file for each run; the run ids."""
    ids = []
    with Store(home) as store:
        for i in range(runs):
            rid = store.new_run(NewRun(f"task {i} " + "words " * 60, "https://example.com/", model="m"))
            for k in (1, 2, 3):
                files = store.write_step_files(rid, k, screenshot=b"\x89PNG fake " + bytes([i, k]))
                store.commit_step(rid, dict(step=k, thought="thinking " * 40, action_text="Click [1]", **files))
            store.finish_run(rid, "answered", answer=f"answer {i}")
            ids.append(rid)
    return ids


def make(home: Path, kind: str) -> dict[str, str]:
    """Put a run database of `kind` (one of KINDS) in `home`; the SHA-1 of every file that belongs to it (the
    database and its -wal/-shm), by name, to check later that nothing of it was lost or changed."""
    home.mkdir(parents=True, exist_ok=True)
    db = home / "cockpit.db"
    if kind == "garbage":
        db.write_bytes(os.urandom(20000))
    elif kind == "foreign":  # another program's SQLite database, by chance named cockpit.db
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
            conn.execute("INSERT INTO notes (text) VALUES ('not a run')")
        conn.close()
    elif kind == "foreign-versioned":  # another program's, with a user_version a Cockpit schema could have
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE runs (a, b)")
            conn.execute("PRAGMA user_version = 10")
        conn.close()
    elif kind == "wal":  # pages in the middle damaged, and the log beside the file holds committed changes
        _store_with_wal(home)
        with open(db, "r+b") as f:
            f.seek(db.stat().st_size // 2)
            f.write(b"\xff" * 8192)
    else:
        filled_store(home)
        size = db.stat().st_size
        if kind == "truncated":
            with open(db, "r+b") as f:
                f.truncate(size * 6 // 10)
        elif kind == "overwritten":  # pages in the middle of the file, as a failing disk leaves them
            with open(db, "r+b") as f:
                f.seek(size // 2)
                f.write(b"\xff" * 8192)
        elif kind == "newer":
            with sqlite3.connect(db) as conn:
                conn.execute("PRAGMA user_version = 99")
            conn.close()
        else:
            raise ValueError(kind)
    return fingerprints(home)


def fingerprints(folder: Path) -> dict[str, str]:
    """SHA-1 of cockpit.db and its -wal file in `folder`, by name; "present" for the -shm file (the log's index:
    any reader of the log rewrites it, and it holds no data)."""
    return {p.name: "present" if p.name.endswith("-shm") else hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(folder.glob("cockpit.db*")) if p.is_file()}


def _store_with_wal(home: Path) -> None:
    """A store whose last committed runs are only in its -wal file: copied while another process had it open
    (SQLite moves the log into the file when the last connection closes)."""
    scratch = home.parent / (home.name + "-scratch")
    filled_store(scratch)
    code = textwrap.dedent(f"""
        import shutil, sqlite3, sys
        conn = sqlite3.connect({str(scratch / 'cockpit.db')!r}, isolation_level=None)
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        for i in range(20):
            conn.execute("UPDATE runs SET answer = ? WHERE rowid = 1", ("changed " * 200 + str(i),))
        for name in ("cockpit.db", "cockpit.db-wal", "cockpit.db-shm"):
            shutil.copyfile({str(scratch)!r} + "/" + name, {str(home)!r} + "/" + name)
        conn.close()
    """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    shutil.copytree(scratch / "runs", home / "runs", dirs_exist_ok=True)
    shutil.rmtree(scratch)
    assert (home / "cockpit.db-wal").stat().st_size > 0
