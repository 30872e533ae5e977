"""A run database Cockpit cannot use, on the command line: every command says so in one line with the way out
(`cockpit store set-aside`), `cockpit store check` reads every page, `cockpit store set-aside` moves it aside
whole (nothing deleted) and the next command starts on a new store; `cockpit run` says it before any browser."""
import pytest

from cockpit.core.store import SCHEMA_VERSION
from testkit import damaged as damaged_stores
from tests.clitools import cockpit, no_traceback, ok

WORDS = {"garbage": "is damaged (file is not a database)", "truncated": "is damaged",
         "overwritten": "is damaged", "wal": "is damaged", "newer": "was written by a newer Cockpit (schema 99",
         "foreign": "is not a Cockpit run database", "foreign-versioned": "is not a Cockpit run database"}
WAY_OUT = "run `cockpit store set-aside` to move it aside (kept, not deleted) and start with a new, empty store"


def said_in_one_line(r, home, kind: str) -> str:
    no_traceback(r)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert str(home / "cockpit.db") in lines[0] and WORDS[kind] in lines[0] and lines[0].endswith(WAY_OUT)
    return lines[0]


@pytest.mark.parametrize("kind", damaged_stores.KINDS)
def test_check_then_set_aside_then_a_new_store(tmp_path, kind):
    home = tmp_path / "home"
    before = damaged_stores.make(home, kind)
    r = cockpit(home, "store", "check")
    assert r.returncode == 1
    said_in_one_line(r, home, kind)
    assert damaged_stores.fingerprints(home) == before  # looking changed nothing
    r = cockpit(home, "store", "set-aside")
    out = ok(r)
    [aside] = list(home.glob("set-aside-*"))
    assert f"to {aside};" in out and f"COCKPIT_HOME={aside} cockpit store check" in out
    assert damaged_stores.fingerprints(aside) == before
    assert "no runs yet" in ok(cockpit(home, "runs"))
    assert ok(cockpit(home, "store", "check")).startswith(f"{home / 'cockpit.db'} is sound: schema ")
    # the one set aside is a data folder of its own, as damaged as it was
    r = cockpit(aside, "store", "check")
    assert r.returncode == 1 and str(aside / "cockpit.db") in r.stderr


@pytest.mark.parametrize("kind", ["garbage", "truncated", "newer", "foreign"])
@pytest.mark.parametrize("command", [("runs",), ("agreement",), ("import", "webvoyager", "."), ("hops",)])
def test_every_command_says_it_in_one_line_and_changes_nothing(tmp_path, kind, command):
    home = tmp_path / "home"
    before = damaged_stores.make(home, kind)
    r = cockpit(home, *command, cwd=tmp_path)
    assert r.returncode == 2
    said_in_one_line(r, home, kind)
    if kind in ("foreign", "newer"):  # another program's or a newer Cockpit's file: not a byte written
        assert damaged_stores.fingerprints(home) == before


def test_run_refuses_a_damaged_store_before_it_starts_a_browser(tmp_path):
    """Damage deep in the file (pages the first writes may not touch) is found before the batch starts."""
    home = tmp_path / "home"
    damaged_stores.make(home, "overwritten")
    r = cockpit(home, "run", "--task", "find it", "--url", "http://127.0.0.1:9/", "--base-url",
                "http://127.0.0.1:9/v1", "--max-steps", "1")
    assert r.returncode != 0
    assert [line for line in r.stderr.splitlines() if WAY_OUT in line], r.stderr
    assert not (home / "profiles").exists() or not any((home / "profiles").iterdir())  # no browser was started


def test_a_sound_store_is_set_aside_only_when_forced(tmp_path):
    home = tmp_path / "home"
    damaged_stores.filled_store(home, runs=2)
    before = damaged_stores.fingerprints(home)
    assert ok(cockpit(home, "store", "check")) == f"{home / 'cockpit.db'} is sound: schema {SCHEMA_VERSION}, 2 runs\n"
    r = cockpit(home, "store", "set-aside")
    assert r.returncode == 2 and f"is sound (schema {SCHEMA_VERSION}, 2 runs); give --force" in r.stderr
    assert damaged_stores.fingerprints(home) == before and not list(home.glob("set-aside-*"))
    ok(cockpit(home, "store", "set-aside", "--force"))
    [aside] = list(home.glob("set-aside-*"))
    assert ok(cockpit(aside, "store", "check")).endswith(f"is sound: schema {SCHEMA_VERSION}, 2 runs\n")


def test_nothing_to_check_before_the_first_run(tmp_path):
    home = tmp_path / "home"
    out = ok(cockpit(home, "store", "check"))
    assert out.startswith(f"no run database at {home / 'cockpit.db'} yet")
    assert not (home / "cockpit.db").exists()
