"""`cockpit import webvoyager` is all or nothing per folder, and leaves no staging files behind (#22)."""
import os

from cockpit.cli import main
from cockpit.core.store import Store, exchange
from tests.clitools import cockpit
from tests.core.store.bundle_helpers import make_runs, snapshot
from tests.images import png
from tests.webvoyager_runs import wv_folder


def test_a_disk_error_mid_copy_leaves_the_store_as_it_was(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    with Store(home) as store:
        make_runs(store, [("mine", 2, False)])
    folder = wv_folder(tmp_path / "results", "Allrecipes--3", no_box=True)
    before = snapshot(home)
    real, copied = exchange.shutil.copyfile, []

    def copyfile(src, dst, **kw):  # the disk fills up after three of the folder's six screenshots
        if len(copied) == 3:
            raise OSError(28, "No space left on device", str(dst))
        copied.append(dst)
        return real(src, dst, **kw)
    monkeypatch.setenv("COCKPIT_HOME", str(home))
    monkeypatch.setattr(exchange.shutil, "copyfile", copyfile)
    assert main(["import", "webvoyager", str(tmp_path / "results")]) == 1
    err = capsys.readouterr().err
    assert f"{folder}: not imported: No space left on device" in err and "nothing of it was kept" in err
    assert len(copied) == 3 and snapshot(home) == before  # no rows, no run folder, no staging folder
    monkeypatch.undo()
    r = cockpit(home, "import", "webvoyager", str(tmp_path / "results"))  # with room again it goes in
    assert r.returncode == 0 and "imported 1 run," in r.stdout, r.stderr
    with Store(home) as store:
        rid = r.stdout.split()[-1]
        assert store.run(rid)["steps"] == 4 and store.step(rid, 4)["screenshot"]


def test_files_a_killed_import_left_are_removed_by_the_next_one(tmp_path):
    home = tmp_path / "home"
    with Store(home) as store:
        make_runs(store, [("mine", 1, False)])
    before = snapshot(home)
    runs = home / "runs"
    dead = runs / ".importing-999999999-wv-0123456789" / "step-001"  # no such process
    older = runs / ".importing-wv-abcdef0123" / "step-002"  # an earlier Cockpit's name, without a pid
    live = runs / f".importing-{os.getpid()}-bundle" / "r1"  # an import running now (this test's process)
    for d in (dead, older, live):
        d.mkdir(parents=True)
        (d / "marked.png").write_bytes(png())
    wv_folder(tmp_path / "results", "Other--1", no_box=True)
    r = cockpit(home, "import", "webvoyager", str(tmp_path / "results"))
    assert r.returncode == 0, r.stderr
    assert not dead.parent.exists() and not older.parent.exists()
    assert (live / "marked.png").is_file()  # another process's import is left alone
    _, files = snapshot(home)
    assert {f for f in files if "importing" not in f[0]} >= set(before[1])
    assert not [f for f in files if "importing" in f[0] and str(os.getpid()) not in f[0]]
