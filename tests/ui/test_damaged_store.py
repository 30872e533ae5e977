"""A run database the window cannot use (damaged, another program's, a newer Cockpit's) is said in a box at
start, which offers to move it aside (kept, with its -wal/-shm files and its runs' files) and open the window
on a new, empty store, or to quit. Each case is `cockpit`'s own start (run_window) in a process of its own, on
a real damaged SQLite file; the box is read and answered as a person would, by its buttons."""
import json
import os
import subprocess
import sys

import pytest

from cockpit.core.store import Store
from testkit import damaged as damaged_stores

#: run_window() with a person at the screen: each box is read, then answered with the button named on the
#: command line; the window, once open, is read and closed. What was seen is printed as JSON.
DRIVER = r"""
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
app = QApplication(sys.argv[:1])
from cockpit.ui.app import run_window
answer = sys.argv[1]
seen = {"boxes": [], "window": None}

def look():
    for w in QApplication.topLevelWidgets():
        if isinstance(w, QMessageBox) and w.isVisible():
            buttons = [b.text() for b in w.buttons()]
            seen["boxes"].append({"title": w.windowTitle(), "text": w.text(), "buttons": buttons,
                                  "width": w.width(), "height": w.height()})
            button = next((b for b in w.buttons() if b.text() == answer), None) or w.buttons()[0]
            button.click()
            break
        if type(w).__name__ == "MainWindow" and w.isVisible():
            seen["window"] = {"status": w.status.message.fullText(), "runs": w.review.browser.model.total}
            w.close()
            return
    QTimer.singleShot(50, look)

QTimer.singleShot(50, look)
code = run_window()
print(json.dumps(dict(seen, code=code)))
"""


def start_window(home, answer: str) -> tuple[dict, str]:
    """`cockpit`'s window started on `home`, the first box answered with the button `answer`: what was seen, and
    what was said on stderr."""
    env = dict(os.environ, COCKPIT_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([sys.executable, "-c", DRIVER, answer], capture_output=True, text=True, env=env,
                       timeout=180)
    assert r.returncode == 0 and r.stdout.strip(), r.stderr[-3000:]
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


WORDS = {"garbage": "is damaged (file is not a database)", "truncated": "is damaged",
         "overwritten": "is damaged", "newer": "was written by a newer Cockpit (schema 99",
         "foreign": "is not a Cockpit run database (it holds other tables: notes)",
         "foreign-versioned": "is not a Cockpit run database (it lacks Cockpit's", "wal": "is damaged"}


@pytest.mark.parametrize("kind", damaged_stores.KINDS)
def test_moved_aside_the_window_opens_on_a_new_store_and_nothing_is_lost(tmp_path, kind):
    home = tmp_path / "home"
    before = damaged_stores.make(home, kind)
    had_runs = sorted(p.name for p in (home / "runs").iterdir()) if (home / "runs").is_dir() else []
    seen, err = start_window(home, "Move it aside and start anew")
    assert seen["code"] == 0
    [box] = seen["boxes"]
    db = home / "cockpit.db"
    assert box["title"] == "Cockpit cannot open its run store"
    assert str(db) in box["text"] and WORDS[kind] in box["text"], box["text"]
    assert box["buttons"] == ["Move it aside and start anew", "Quit"]
    assert box["width"] <= 1024 and box["height"] <= 700
    [aside] = [p for p in home.iterdir() if p.name.startswith("set-aside-")]
    assert str(aside) in box["text"]  # the box said where it would go, and that is where it went
    # kept whole: the database and its companions, byte for byte, and the runs' files
    assert damaged_stores.fingerprints(aside) == before
    if kind == "wal":
        assert {"cockpit.db-wal", "cockpit.db-shm"} <= set(before)
    assert (sorted(p.name for p in (aside / "runs").iterdir()) if had_runs else []) == had_runs
    # the window opened on a new, empty store, and said where the old one went
    assert seen["window"] == {"runs": 0, "status": f"The run store that could not be opened was moved to {aside}; "
                              "this is a new, empty store."}
    assert f"moved to {aside}" in err
    with Store(home, check=True) as store:
        assert store.run_summaries() == []


@pytest.mark.parametrize("kind", ["garbage", "newer"])
def test_quit_leaves_the_store_as_it_was(tmp_path, kind):
    home = tmp_path / "home"
    before = damaged_stores.make(home, kind)
    seen, err = start_window(home, "Quit")
    assert seen["code"] == 2 and seen["window"] is None
    [box] = seen["boxes"]
    assert WORDS[kind] in box["text"]
    if kind == "newer":
        assert "Upgrade Cockpit to open it" in box["text"]
    assert damaged_stores.fingerprints(home) == before
    assert not [p for p in home.iterdir() if p.name.startswith("set-aside-")]
    lines = [line for line in err.splitlines() if "propagateSizeHints" not in line]  # the offscreen plugin's
    assert len(lines) == 1 and str(home / "cockpit.db") in lines[0] and WORDS[kind] in lines[0]


def test_a_store_another_program_holds_is_said_in_a_box_and_not_moved(tmp_path):
    """Locked is not damaged: the box says so, with only Close, and the file stays where it is."""
    home = tmp_path / "home"
    damaged_stores.filled_store(home, runs=1)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys, time\n"
        f"c = sqlite3.connect({str(home / 'cockpit.db')!r}, isolation_level=None)\n"
        "c.execute('PRAGMA locking_mode = EXCLUSIVE'); c.execute('BEGIN EXCLUSIVE'); c.execute('COMMIT')\n"
        "print('held', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        seen, err = start_window(home, "Close")
    finally:
        holder.kill()
        holder.wait()
    assert seen["code"] == 2 and seen["window"] is None
    [box] = seen["boxes"]
    assert box["title"] == "Cockpit cannot start" and "locked by another program" in box["text"]
    assert box["buttons"] == ["Close"]
    assert (home / "cockpit.db").is_file() and not list(home.glob("set-aside-*"))
