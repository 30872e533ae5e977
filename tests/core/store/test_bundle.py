"""Labels across machines (#22): bundles and label files exchanged between real stores, through the CLI."""
import json
import shutil
import zipfile

import pytest

from cockpit.core.store import Store, bundle_import
from cockpit.core.store import labels as lb
from cockpit.core.store.bundle import BundleError
from tests.clitools import cockpit
from tests.core.store.bundle_helpers import ALICE, BOB, bundle, label, make_runs, ok, snapshot


@pytest.fixture
def alice(tmp_path):
    """Alice's store: six runs with their files, labelled by her."""
    home = tmp_path / "alice"
    with Store(home) as store:
        make_runs(store)
    label(home, "alice", ALICE)
    return home


def test_two_annotators_exchange_bundles_and_agree_as_one_store(tmp_path, alice):
    bob = tmp_path / "bob"
    out = ok(cockpit(bob, "import", "bundle", str(bundle(alice, tmp_path / "a.zip").strip())))
    assert "imported 6 runs" in out and "labels: 6 added" in out
    label(bob, "bob", BOB)
    out = ok(cockpit(alice, "import", "bundle", bundle(bob, tmp_path / "b.zip").strip()))
    assert "imported 0 runs, skipped 6 already here" in out and "skipped r3: already here, same content" in out
    assert "labels: 6 added, 6 already here, 0 conflicting" in out
    one = tmp_path / "one"  # one store where both labelled
    ok(cockpit(one, "import", "bundle", str(tmp_path / "a.zip")))
    label(one, "bob", BOB)
    merged, reference = (json.loads(ok(cockpit(h, "agreement", "--json"))) for h in (alice, one))
    assert merged == reference
    assert merged["pairwise_cohen"][0]["annotator2"] == "bob" and merged["pairwise_cohen"][0]["n"] == 6
    assert ok(cockpit(alice, "agreement")) == ok(cockpit(one, "agreement"))
    with Store(alice) as a, Store(bob) as b:
        assert [x["demo"] for x in b.runs()] == [1, 0, 0, 0, 0, 0]  # r6, the newest, stays a demo run
        for rid in ALICE:
            assert a.run(rid) == b.run(rid) and a.steps(rid) == b.steps(rid)
            for s in b.steps(rid):
                assert b.read_file(s["screenshot"]) == a.read_file(s["screenshot"])
                assert json.loads(b.read_file(s["marks_file"]))[0]["label"] == f"{rid}/{s['step']}"
        assert {(x["run_id"], x["annotator"], x["verdict"], x["comment"]) for x in lb.labels(a)} == \
               {(x["run_id"], x["annotator"], x["verdict"], x["comment"]) for x in lb.labels(b)}


def test_a_conflicting_relabel_keeps_the_newer_and_says_so(tmp_path, alice):
    bob = tmp_path / "bob"  # alice labels on two machines
    ok(cockpit(bob, "import", "bundle", bundle(alice, tmp_path / "a.zip").strip()))
    label(bob, "alice", {"r1": "fail"})  # later than her 'success' on her first machine: the newer
    label(bob, "alice", {"r2": "success"})
    label(alice, "alice", {"r2": "unsure"})  # and back on her first machine, later still: this one is newer
    out = ok(cockpit(alice, "import", "bundle", bundle(bob, tmp_path / "b.zip").strip()))
    assert "labels: 0 added, 4 already here, 2 conflicting relabels (the newer kept)" in out
    assert "conflict: run r1, alice (differing in verdict, category): 'fail: Navigation stuck' in b.zip (" in out
    assert "replaces 'success' here (" in out
    assert "conflict: run r2, alice (differing in verdict): 'unsure' here (" in out
    assert "stays over 'success' in b.zip (" in out
    with Store(alice) as store:
        assert [(x["run_id"], x["verdict"]) for x in lb.labels(store, annotator="alice")][:2] == \
               [("r1", "fail"), ("r2", "unsure")]
    again = ok(cockpit(alice, "import", "bundle", str(tmp_path / "b.zip")))  # nothing new the second time
    assert "labels: 0 added, 5 already here, 1 conflicting" in again


def _rewrite(src, dst, change):
    """A copy of the bundle `src` with `change(members)` applied to its {name: bytes}."""
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    change(members)
    with zipfile.ZipFile(dst, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    return dst


def _manifest(members, **fields):
    m = json.loads(members["manifest.json"])
    m.update(fields)
    members["manifest.json"] = json.dumps(m).encode()


TAMPERED = {
    "not a zip": (None, "is not a Cockpit bundle (not a zip file)"),
    "no manifest": (lambda m: m.pop("manifest.json"), "it has no manifest.json"),
    "another format": (lambda m: _manifest(m, format="other"), "names format 'other', not 'cockpit-bundle'"),
    "another version": (lambda m: _manifest(m, version=2), "a bundle of version 2; this Cockpit reads version 1"),
    "a changed screenshot": (lambda m: m.update({"runs/r2/files/step-001/marked.png": b"\x89PNG not quite"}),
                             "runs/r2/files/step-001/marked.png does not match its sha256 in the manifest"),
    "a missing member": (lambda m: m.pop("runs/r3/labels.json"), "lacks runs/r3/labels.json, which its manifest"),
    "an added member": (lambda m: m.update({"runs/r1/files/extra.png": b"x"}), "holds runs/r1/files/extra.png, "
                        "which its manifest does not list"),
}


@pytest.mark.parametrize("case", TAMPERED)
def test_a_bad_or_tampered_bundle_is_refused_and_nothing_changes(tmp_path, alice, case):
    bob = tmp_path / "bob"
    ok(cockpit(bob, "import", "bundle", bundle(alice, tmp_path / "a.zip", "r1").strip()))
    label(alice, "cy", {"r1": "fail", "r2": "success"})
    good = bundle(alice, tmp_path / "all.zip").strip()
    change, message = TAMPERED[case]
    bad = tmp_path / "bad.zip"
    if change is None:
        bad.write_bytes(b"PK but not really a zip file")
    else:
        _rewrite(good, bad, change)
    before = snapshot(bob)
    r = cockpit(bob, "import", "bundle", str(bad))
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert snapshot(bob) == before
    ok(cockpit(bob, "import", "bundle", good))  # the good one still goes in
    assert snapshot(bob) != before


def test_a_run_with_the_same_id_and_other_content_is_refused(tmp_path, alice):
    bob = tmp_path / "bob"
    with Store(bob) as store:
        make_runs(store, [("r2", 1, False)])  # another r2 (one step, other pixels)
    before = snapshot(bob)
    r = cockpit(bob, "import", "bundle", bundle(alice, tmp_path / "a.zip").strip())
    assert r.returncode == 2
    assert "already holds run r2 with different content" in r.stderr and "nothing was imported" in r.stderr
    assert snapshot(bob) == before


def test_a_failure_halfway_leaves_the_store_as_it_was(tmp_path, alice, monkeypatch):
    path = bundle(alice, tmp_path / "a.zip").strip()
    bob = tmp_path / "bob"
    with Store(bob) as store:
        make_runs(store, [("other", 2, False)])
    before = snapshot(bob)
    real, calls = bundle_import.os.rename, []

    def rename(src, dst):  # the disk fails while the third run's folder is moved into place
        calls.append(dst)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", str(dst))
        real(src, dst)
    monkeypatch.setattr(bundle_import.os, "rename", rename)
    with Store(bob) as store, pytest.raises(OSError):
        bundle_import.import_bundle(store, path)
    assert snapshot(bob) == before  # no rows, no labels, no run folders, no staging folder
    monkeypatch.undo()
    with Store(bob) as store:
        assert len(bundle_import.import_bundle(store, path).imported) == 6


def test_a_bundle_from_a_newer_cockpit_is_refused(tmp_path, alice):
    good = bundle(alice, tmp_path / "a.zip").strip()
    bad = _rewrite(good, tmp_path / "new.zip", lambda m: _manifest(m, schema=999))
    with Store(tmp_path / "bob") as store, pytest.raises(BundleError, match="written by a newer Cockpit"):
        bundle_import.import_bundle(store, bad)


@pytest.mark.parametrize("fmt", ["labels-jsonl", "labels-csv"])
def test_labels_import_reads_another_stores_label_export(tmp_path, alice, fmt):
    bob = tmp_path / "bob"
    ok(cockpit(bob, "import", "bundle", bundle(alice, tmp_path / "a.zip").strip()))
    label(bob, "bob", BOB)
    with Store(bob) as store:
        store.db.execute("UPDATE labels SET blind = 1 WHERE run_id = 'r4' AND annotator = 'bob'")
    exported = tmp_path / ("bob." + fmt.split("-")[1])
    ok(cockpit(bob, "export", "all", "--format", fmt, "--out", str(exported)))
    out = ok(cockpit(alice, "import", "labels", str(exported)))
    assert "labels: 6 added, 6 already here, 0 conflicting" in out
    with Store(alice) as a, Store(bob) as b:
        def view(store):
            return [(x["run_id"], x["annotator"], x["verdict"], x["category"], x["comment"], x["seconds"],
                     x["blind"], int(x["created"])) for x in lb.labels(store)]
        assert view(a) == view(b)
    assert "labels: 0 added, 12 already here" in ok(cockpit(alice, "import", "labels", str(exported)))


def test_labels_for_a_run_not_in_the_store_or_a_bad_file_change_nothing(tmp_path, alice):
    exported = tmp_path / "alice.jsonl"
    ok(cockpit(alice, "export", "all", "--format", "labels-jsonl", "--out", str(exported)))
    carol = tmp_path / "carol"
    with Store(carol) as store:
        make_runs(store, [("r1", 1, False)])
    before = snapshot(carol)
    r = cockpit(carol, "import", "labels", str(exported))
    assert r.returncode == 2 and "has labels for 5 runs this store does not hold (r2, r3, r4, r5, r6)" in r.stderr
    lines = exported.read_text().splitlines()
    exported.write_text("\n".join(lines[:1] + [lines[1].replace('"fail"', '"maybe"')]) + "\n")
    r = cockpit(carol, "import", "labels", str(exported))
    assert r.returncode == 2 and "alice.jsonl, line 2: verdict must be one of success, fail, unsure" in r.stderr
    shutil.copy(exported, tmp_path / "alice.txt")
    r = cockpit(carol, "import", "labels", str(tmp_path / "alice.txt"))
    assert r.returncode == 2 and "give a .jsonl or .csv label export" in r.stderr
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    r = cockpit(carol, "import", "labels", str(tmp_path / "x.csv"))
    assert r.returncode == 2 and "not a Cockpit label export (no run_id, annotator, verdict, labelled_at" in r.stderr
    assert snapshot(carol) == before
