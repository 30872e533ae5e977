"""Key points go where labels go (#42): the labels tables carry each annotator's key points (met or not, and at
which step), and a bundle carries the ticks, the typed key points and the adjudicated final ones to another store
and back, through the CLI."""
import csv
import json

from cockpit.core.store import Store
from cockpit.core.store import key_points as KP
from cockpit.core.store import labels as lb
from cockpit.core.store.adjudications import adjudications, final_key_points, set_adjudication
from tests.clitools import cockpit
from tests.core.store.bundle_helpers import bundle, label, make_runs, ok

POINTS = ["Find the store", "Set it as home"]


def alice_home(tmp_path):
    home = tmp_path / "alice"
    with Store(home) as s:
        make_runs(s)
        KP.set_typed(s, "t--r1", POINTS, "alice")
        KP.tick(s, "r1", "alice", 0, POINTS[0], 1)
        KP.tick(s, "r1", "bob", 1, POINTS[1], 1)
        set_adjudication(s, "r1", "fail", "only the store was found", "cy",
                         key_points=[{"position": 0, "point": POINTS[0], "step": 1},
                                     {"position": 1, "point": POINTS[1], "step": None}])
        set_adjudication(s, "r2", "not_executable", "a login wall at step 1", "cy", category="Login wall")
    label(home, "alice", {"r1": "fail", "r2": "fail"})
    label(home, "bob", {"r1": "success"})
    return home


def test_the_labels_tables_carry_each_key_point_met_or_not_and_where(tmp_path):
    home = alice_home(tmp_path)
    ok(cockpit(home, "export", "r1", "r3", "--format", "labels-jsonl", "--out", str(tmp_path / "l.jsonl")))
    rows = [json.loads(line) for line in (tmp_path / "l.jsonl").read_text().splitlines()]
    by = {(r["run_id"], r["annotator"]): r["key_points"] for r in rows}
    assert by[("r1", "alice")] == [{"point": POINTS[0], "met": True, "step": 1},
                                   {"point": POINTS[1], "met": False, "step": None}]
    assert by[("r1", "bob")] == [{"point": POINTS[0], "met": False, "step": None},
                                 {"point": POINTS[1], "met": True, "step": 1}]
    assert by[("r3", None)] == []  # a task without key points
    ok(cockpit(home, "export", "r1", "--format", "labels-csv", "--out", str(tmp_path / "l.csv")))
    with open(tmp_path / "l.csv", encoding="utf-8", newline="") as f:
        got = {r["annotator"]: json.loads(r["key_points"]) for r in csv.DictReader(f)}
    assert got["alice"] == by[("r1", "alice")] and got["bob"] == by[("r1", "bob")]


def test_a_bundle_round_trips_ticks_typed_points_and_the_final_ones(tmp_path):
    home = alice_home(tmp_path)
    other = tmp_path / "other"
    out = ok(cockpit(other, "import", "bundle", bundle(home, tmp_path / "a.zip").strip()))
    assert "key points (ticks and typed ones): 3 added, 0 already here, 0 conflicting" in out
    with Store(home) as a, Store(other) as b:
        for s in (a, b):
            assert KP.typed(s, "t--r1") == POINTS
        assert KP.ticks(b, "r1") == KP.ticks(a, "r1") and len(KP.ticks(a, "r1")) == 2
        assert adjudications(b) == adjudications(a)
        assert [p["step"] for p in final_key_points(adjudications(b, "r1")[0])] == [1, None]
        assert adjudications(b, "r2")[0]["category"] == "Login wall"
        KP.tick(b, "r1", "bob", 0, POINTS[0], 1)  # bob ticks one more on the other machine
    back = ok(cockpit(home, "import", "bundle", bundle(other, tmp_path / "b.zip").strip()))
    assert "key points (ticks and typed ones): 1 added, 3 already here, 0 conflicting" in back
    report = json.loads(ok(cockpit(other, "agreement", "--json")))
    assert report["not_executable"]["runs"][0]["reasons"] == {"cy": "Login wall"}
    with Store(home) as a:
        assert [(t["annotator"], t["position"], t["step"]) for t in KP.ticks(a, "r1")] == [
            ("alice", 0, 1), ("bob", 0, 1), ("bob", 1, 1)]
        assert [x["verdict"] for x in lb.labels(a, "r1")] == ["fail", "success"]


def test_typed_key_points_that_differ_keep_the_newer_and_say_so(tmp_path):
    home = alice_home(tmp_path)
    other = tmp_path / "other"
    ok(cockpit(other, "import", "bundle", bundle(home, tmp_path / "a.zip").strip()))
    with Store(other) as b:
        KP.set_typed(b, "t--r1", [*POINTS, "Say which store"], "bob")  # later: the newer
    out = ok(cockpit(home, "import", "bundle", bundle(other, tmp_path / "b.zip").strip()))
    assert "task 't--r1', its typed key points: those in b.zip replace ours, the newer is kept" in out
    with Store(home) as a:
        assert KP.typed(a, "t--r1") == [*POINTS, "Say which store"]


def test_a_labels_file_brings_the_ticks_back(tmp_path):
    home = alice_home(tmp_path)
    other = tmp_path / "other"
    ok(cockpit(other, "import", "bundle", bundle(home, tmp_path / "a.zip", "r1").strip()))
    with Store(other) as b:  # the runs without their ticks, as if labelled elsewhere
        b.db.execute("DELETE FROM key_point_ticks")
        b.db.conn.commit()
    for fmt, name in (("labels-csv", "l.csv"), ("labels-jsonl", "l.jsonl")):
        ok(cockpit(home, "export", "r1", "--format", fmt, "--out", str(tmp_path / name)))
        ok(cockpit(other, "import", "labels", str(tmp_path / name)))
        with Store(home) as a, Store(other) as b:
            assert [(t["annotator"], t["position"], t["step"]) for t in KP.ticks(b, "r1")] == [
                (t["annotator"], t["position"], t["step"]) for t in KP.ticks(a, "r1")] == [("alice", 0, 1), ("bob", 1, 1)]
            b.db.execute("DELETE FROM key_point_ticks")
            b.db.conn.commit()
    bad = tmp_path / "bad.jsonl"
    row = json.loads((tmp_path / "l.jsonl").read_text().splitlines()[0])
    row["key_points"][1] = {"point": POINTS[1], "met": True, "step": "late"}
    bad.write_text(json.dumps(row) + "\n")
    r = cockpit(other, "import", "labels", str(bad))
    assert r.returncode != 0 and "key point 2 is met at step 'late'" in r.stderr
    with Store(other) as b:
        assert KP.ticks(b, "r1") == []
