"""Fault suite, run store: a database another program holds, a data folder that cannot be written,
screenshot files gone missing, a COMMIT that fails. Through the `cockpit` command in real processes
(COCKPIT_HOME in the environment) and the Review tab, as a user meets them.

What must hold every time: a message naming the database, folder or file; no traceback; nothing
damaged (PRAGMA integrity_check), the other runs still readable.
"""
import contextlib
import hashlib
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store, StoreError
from cockpit.core.store.newrun import NewRun
from testkit.fakeruns import make_run
from tests.clitools import cockpit, no_traceback

pytestmark = pytest.mark.fault("store")


def integrity(two_runs_home) -> str:
    conn = sqlite3.connect(Path(two_runs_home) / "cockpit.db")
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


@contextlib.contextmanager
def locked(db: Path, hold: float = 120):
    """Another process holding an exclusive write transaction on `db` for `hold` seconds (or until the block ends)."""
    proc = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys, time\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "c.execute('BEGIN EXCLUSIVE')\n"
        "c.execute(\"UPDATE runs SET task = task WHERE 0\")\n"
        "print('locked', flush=True)\n"
        f"time.sleep({hold})\n"
        "c.execute('COMMIT')\nprint('released', flush=True)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        yield proc
    finally:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def read_only(folder: Path):
    """Make `folder` and the files directly in it unwritable, even for root (chattr +i), then restore."""
    paths = [folder] + [p for p in folder.iterdir() if p.is_file()]
    if os.geteuid() == 0:
        try:
            subprocess.run(["chattr", "+i", *map(str, paths)], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            subprocess.run(["chattr", "-i", *map(str, paths)], capture_output=True)
            pytest.skip("running as root on a file system without chattr +i: cannot make a folder read-only")
    else:
        modes = {p: p.stat().st_mode for p in paths}
        for p in paths:
            p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        with pytest.raises(OSError):  # it really is read-only for this process
            (folder / "probe").write_text("x")
        yield
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", *map(str, paths)], check=True)
        else:
            for p, m in modes.items():
                p.chmod(m)


def digest(folder: Path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir() if p.is_file()}


class Home(type(Path())):
    """The data folder's path, with the ids of the runs in it (.runs)."""


@pytest.fixture
def two_runs_home(tmp_path):
    """A data folder with two recorded runs (2 and 3 steps), closed cleanly."""
    home = Home(tmp_path / "home")
    with Store(home) as store:
        a = make_run(store, steps=2, task="first task", answer="one")
        b = make_run(store, steps=3, task="second task", answer="two")
    home.runs = (a, b)
    return home


# ---------------------------------------------------------------- locked by another program

def test_runs_lists_while_another_program_holds_the_database(two_runs_home):
    with Store(two_runs_home) as store:  # a run its process left behind: listing would normally mark it
        dead = store.new_run(NewRun("left behind", "http://x"))
        store.set_run(dead, pid=2 ** 22 + 12345)
    with locked(two_runs_home / "cockpit.db"):
        r = cockpit(two_runs_home, "runs")
        shown = cockpit(two_runs_home, "runs", two_runs_home.runs[1])
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    for rid in two_runs_home.runs + (dead,):
        assert rid in r.stdout
    assert "locked by another program" in r.stderr and str(two_runs_home / "cockpit.db") in r.stderr
    assert shown.returncode == 0 and "answer: two" in shown.stdout
    again = cockpit(two_runs_home, "runs")  # once the other program is gone, the housekeeping happens
    assert re.search(rf"{dead}\s.*interrupted", again.stdout) and "locked" not in again.stderr
    assert integrity(two_runs_home) == "ok"


def test_run_waits_for_a_short_lock_and_records_normally(two_runs_home, site):
    with ModelServer(["Thought: done\nAction: ANSWER; 7"]) as srv, \
            locked(two_runs_home / "cockpit.db", hold=2) as locker:
        r = cockpit(two_runs_home, "run", "--task", "t", "--url", site.url("agent_start.html"),
                    "--base-url", srv.base_url, "--model", "m")
        assert locker.stdout.readline().strip() == "released"  # it was held while the run started
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "7"
    with Store(two_runs_home) as store:
        assert [x["status"] for x in store.runs()].count("answered") == 3
    assert integrity(two_runs_home) == "ok"


def test_run_fails_clearly_when_the_database_stays_locked(two_runs_home, site):
    with ModelServer(["Thought: done\nAction: ANSWER; 7"]) as srv, locked(two_runs_home / "cockpit.db"):
        r = cockpit(two_runs_home, "run", "--task", "t", "--url", site.url("agent_start.html"),
                    "--base-url", srv.base_url, "--model", "m")
        assert srv.requests == []  # nothing was asked of the model for a run that cannot be recorded
    no_traceback(r)
    assert r.returncode != 0
    assert f"the run database {two_runs_home / 'cockpit.db'} is locked by another program" in r.stderr + r.stdout
    assert integrity(two_runs_home) == "ok"
    with Store(two_runs_home) as store:  # nothing half-recorded; the old runs are intact
        assert sorted(x["id"] for x in store.runs()) == sorted(two_runs_home.runs)
        assert [len(store.steps(rid)) for rid in two_runs_home.runs] == [2, 3]


# ---------------------------------------------------------------- a data folder that cannot be written

def test_read_only_data_folder_can_be_listed_and_exported_but_not_run_into(two_runs_home, tmp_path, site):
    before = digest(two_runs_home)
    out = tmp_path / "out"
    with read_only(two_runs_home):
        listing = cockpit(two_runs_home, "runs")
        shown = cockpit(two_runs_home, "runs", two_runs_home.runs[0])
        exported = cockpit(two_runs_home, "export", "all", "--out", str(out))
        with ModelServer(["Thought: done\nAction: ANSWER; 7"]) as srv:
            ran = cockpit(two_runs_home, "run", "--task", "t", "--url", site.url("agent_start.html"),
                          "--base-url", srv.base_url, "--model", "m")
            assert srv.requests == []
    for r in (listing, shown, exported, ran):
        no_traceback(r)
    assert listing.returncode == 0 and all(rid in listing.stdout for rid in two_runs_home.runs)
    assert "cannot be written" in listing.stderr and str(two_runs_home) in listing.stderr
    assert shown.returncode == 0 and "answer: one" in shown.stdout
    assert exported.returncode == 0, exported.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(f"task{rid}" for rid in two_runs_home.runs)
    assert ran.returncode != 0
    assert f"cannot write the run database {two_runs_home / 'cockpit.db'}" in ran.stderr and "read-only" in ran.stderr
    assert digest(two_runs_home) == before  # not a byte changed
    assert integrity(two_runs_home) == "ok"


# ---------------------------------------------------------------- screenshot files gone missing

def test_export_names_a_missing_screenshot_and_still_writes_everything_else(two_runs_home, tmp_path):
    a, b = two_runs_home.runs
    with Store(two_runs_home) as store:
        gone = store.file(store.step(a, 2)["screenshot"])
    gone.unlink()
    out = tmp_path / "out"
    r = cockpit(two_runs_home, "export", "all", "--out", str(out))
    no_traceback(r)
    assert r.returncode == 0  # everything that is there is written (a gap is legal in WebVoyager's layout)
    assert str(gone) in r.stderr and "missing" in r.stderr and a in r.stderr
    assert "1 run written with files missing" in r.stderr
    assert sorted(p.name for p in (out / f"task{a}").iterdir()) == [  # the gap, and everything else
        "agent.log", "cockpit_steps.json", "interact_messages.json", "screenshot1.png", "screenshot1_no_box.png",
        "screenshot2_no_box.png"]
    assert len(list((out / f"task{b}").glob("screenshot?.png"))) == 3
    html = cockpit(two_runs_home, "export", a, b, "--format", "html", "--out", str(tmp_path / "html"))
    no_traceback(html)
    assert html.returncode == 0 and str(gone) in html.stderr
    assert (tmp_path / "html" / f"{a}.html").stat().st_size > 1000 and (tmp_path / "html" / f"{b}.html").exists()
    shown = cockpit(two_runs_home, "runs", a)
    assert shown.returncode == 0 and "answer: one" in shown.stdout
    assert integrity(two_runs_home) == "ok"


def test_export_names_a_damaged_screenshot(two_runs_home, tmp_path):
    a, _ = two_runs_home.runs
    with Store(two_runs_home) as store:
        bad = store.file(store.step(a, 1)["screenshot"])
    bad.write_bytes(b"this is not an image")
    r = cockpit(two_runs_home, "export", a, "--out", str(tmp_path / "out"))
    no_traceback(r)
    assert r.returncode == 0 and str(bad) in r.stderr and "damaged" in r.stderr
    assert (tmp_path / "out" / f"task{a}" / "screenshot2.png").exists()
    assert not (tmp_path / "out" / f"task{a}" / "screenshot1.png").exists()


def test_review_tab_names_a_missing_screenshot_and_shows_the_rest(qtbot, two_runs_home):
    from cockpit.ui.review.panel import ReviewPanel
    a, b = two_runs_home.runs
    with Store(two_runs_home) as store:
        gone = store.file(store.step(b, 2)["screenshot_clean"])
        gone.unlink()  # the marked one stands in for it (tests/ui/review/test_review_fallback.py); with both gone:
        store.file(store.step(b, 2)["screenshot"]).unlink()
        panel = ReviewPanel(store, annotator="ada")
        try:
            panel.resize(1280, 800)
            panel.show()
            qtbot.waitExposed(panel)
            assert panel.browser.model.total == 2
            row = [r["id"] for r in panel.browser.model.rows].index(b)
            panel.browser.table.selectRow(row)
            qtbot.waitUntil(lambda: panel.viewer.view.has_screenshot(), timeout=5000)
            panel.go(1)
            qtbot.waitUntil(lambda: "missing" in panel.viewer.view.message(), timeout=5000)
            assert str(gone) in panel.viewer.view.message()
            panel.go(2)
            qtbot.waitUntil(lambda: panel.viewer.view.has_screenshot(), timeout=5000)
            panel.browser.table.selectRow(1 - row)  # the other run opens as before
            assert panel.viewer.run["id"] == a
            qtbot.waitUntil(lambda: panel.viewer.view.has_screenshot(), timeout=5000)
        finally:
            panel.close()
            panel.deleteLater()
            qtbot.wait(50)
    assert integrity(two_runs_home) == "ok"


# ---------------------------------------------------------------- a COMMIT that fails

def test_a_failed_commit_rolls_back_and_the_store_keeps_working(two_runs_home):
    a, _ = two_runs_home.runs
    with Store(two_runs_home) as store:
        with pytest.raises(StoreError, match=str(two_runs_home / "cockpit.db")):
            with store.atomic():  # a constraint checked only at COMMIT: the COMMIT itself fails
                store.db.execute("PRAGMA defer_foreign_keys = ON")
                store.db.execute("UPDATE runs SET answer = 'half-written' WHERE id = ?", [a])
                store.db.execute("INSERT INTO steps (run_id, step) VALUES ('no-such-run', 1)")
        assert not store.db.conn.in_transaction
        assert store.run(a)["answer"] == "one"  # none of it was kept
        assert store.db.execute("SELECT COUNT(*) FROM steps WHERE run_id = 'no-such-run'").fetchone()[0] == 0
        rid = store.new_run(NewRun("after the failure", "http://x"))  # the connection is still usable
        store.finish_run(rid, "answered", answer="fine")
    with Store(two_runs_home) as store:  # and what came after is on disk, seen by a new connection
        assert store.run(rid)["answer"] == "fine"
    assert integrity(two_runs_home) == "ok"
