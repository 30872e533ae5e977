"""Annotation batches through `cockpit annotate`: a balanced, deterministic assignment, each annotator's
queue (their next unlabelled run), progress with median seconds, and blind batches in the HTML report."""
import pytest

from cockpit.core.store import Store
from cockpit.core.store import labels as lb
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit, ok

RUNS = ["r1", "r2", "r3", "r4", "r5"]
ANSWER = "There are 42 apples in the basket"


def make_finished_runs(home, ids=RUNS, running=()):
    with Store(home) as store:
        for i, rid in enumerate(ids):
            store.new_run(NewRun(f"task of {rid}", f"http://example.test/{rid}", run_id=rid, started=1000.0 + i))
            if rid not in running:
                store.finish_run(rid, "answered", answer=ANSWER)


def status_rows(out):
    """{annotator: [done, assigned, median]} from `cockpit annotate status`."""
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] in ("ada", "bob", "cy"):
            rows[parts[0]] = parts[1:]
    return rows


def test_assignment_is_balanced_and_each_annotator_gets_their_next_unlabelled_run(tmp_path):
    make_finished_runs(tmp_path)
    guide = tmp_path / "guide.txt"
    guide.write_text("Success means the task's goal is reached on the site.", encoding="utf-8")
    out = ok(cockpit(tmp_path, "annotate", "assign", "--batch", "pilot", "--runs", "all",
                     "--annotators", "ada,bob,cy", "--per-run", "2", "--guideline", str(guide)))
    # 5 runs x 2 = 10 assignments over 3 people: 4, 3, 3 (dealt to the least loaded, in the order named)
    assert "ada: 4 runs" in out and "bob: 3 runs" in out and "cy: 3 runs" in out, out
    # r1: ada, bob; r2: ada, cy; r3: bob, cy; r4: ada, bob; r5: ada, cy
    assert ok(cockpit(tmp_path, "annotate", "next", "--annotator", "bob")).splitlines()[0] == "r1"
    assert ok(cockpit(tmp_path, "annotate", "next", "--annotator", "cy")).splitlines()[0] == "r2"
    with Store(tmp_path) as store:
        lb.set_label(store, "r1", "bob", "success", seconds=30)
        lb.set_label(store, "r3", "bob", "unsure", seconds=50)  # unsure is labelled too
        lb.set_label(store, "r2", "bob", "fail", seconds=500)  # not bob's run: not counted
    out = ok(cockpit(tmp_path, "annotate", "next", "--annotator", "bob"))
    assert out.splitlines()[0] == "r4" and "task of r4" in out and "bob: 2/3 done" in out, out
    rows = status_rows(ok(cockpit(tmp_path, "annotate", "status", "--batch", "pilot")))
    assert rows == {"ada": ["0", "4", "-"], "bob": ["2", "3", "40.0"], "cy": ["0", "3", "-"]}
    with Store(tmp_path) as store:
        lb.set_label(store, "r4", "bob", "fail", seconds=10)
    assert status_rows(ok(cockpit(tmp_path, "annotate", "status")))["bob"] == ["3", "3", "30.0"]
    assert "all assigned runs labelled (3/3 done)" in ok(cockpit(tmp_path, "annotate", "next", "--annotator", "bob"))
    # the same batch name again is refused, and the batch is as it was
    r = cockpit(tmp_path, "annotate", "assign", "--batch", "pilot", "--runs", "r1", "--annotators", "dan")
    assert r.returncode == 2 and "batch 'pilot' already" in r.stderr
    assert "dan" not in ok(cockpit(tmp_path, "annotate", "status"))


def test_the_same_assignment_every_time_and_running_runs_left_out_of_all(tmp_path):
    outs = []
    for home in (tmp_path / "a", tmp_path / "b"):
        make_finished_runs(home, running=("r5",))
        ok(cockpit(home, "annotate", "assign", "--batch", "b1", "--runs", "all", "--annotators", "cy,ada",
                   "--per-run", "1"))
        with Store(home) as store:
            from cockpit.core.store.assignments import assignments
            outs.append([(a["run_id"], a["annotator"]) for a in assignments(store, "b1")])
    assert outs[0] == outs[1] == [("r1", "cy"), ("r2", "ada"), ("r3", "cy"), ("r4", "ada")]


@pytest.mark.parametrize("bad, message", [
    (["--per-run", "3"], "--per-run must be between 1 and the number of annotators (2)"),
    (["--runs", "nope"], "no run 'nope'"),
])
def test_a_bad_assignment_is_refused(tmp_path, bad, message):
    make_finished_runs(tmp_path)
    args = {"--batch": "x", "--runs": "all", "--annotators": "ada,bob", "--per-run": "1"}
    args.update(dict(zip(bad[::2], bad[1::2])))
    r = cockpit(tmp_path, "annotate", "assign", *[x for kv in args.items() for x in kv])
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert "no batches yet" in ok(cockpit(tmp_path, "annotate", "status"))


def test_a_blind_batch_hides_the_judge_and_the_agents_claim_in_the_report_until_labelled(tmp_path):
    make_finished_runs(tmp_path, ids=["r1"])
    with Store(tmp_path) as store:
        store.commit_step("r1", {"step": 1, "thought": "I counted 42 apples", "action": "ANSWER; " + ANSWER,
                                 "status": "answered", "outcome": "answered"})
        lb.set_verdict(store, "r1", "judge-model-x", 3, "v1", 1, reply="SUCCESS")
    ok(cockpit(tmp_path, "annotate", "assign", "--batch", "blind1", "--runs", "r1", "--annotators", "ada",
               "--blind"))

    def report(*who):
        out = tmp_path / "out"
        ok(cockpit(tmp_path, "export", "r1", "--format", "html", "--out", str(out), *who))
        return (out / "r1.html").read_text(encoding="utf-8")

    page = report("--annotator", "ada")
    assert "42 apples" not in page and "judge-model-x" not in page and "answered" not in page
    assert "hidden: blind until you have labelled this run" in page
    assert "task of r1" in page  # the task itself is shown
    # someone not in the batch, or no annotator at all: everything
    for who in (("--annotator", "bob"), ()):
        page = report(*who)
        assert ANSWER in page and "judge-model-x" in page and "hidden: blind" not in page
    with Store(tmp_path) as store:
        lb.set_label(store, "r1", "ada", "success", blind=True)
    page = report("--annotator", "ada")
    assert ANSWER in page and "judge-model-x" in page and "I counted 42 apples" in page


def test_a_store_from_before_batches_opens_and_takes_a_batch(tmp_path):
    import sqlite_utils

    from cockpit.core.store.schema import MIGRATIONS
    db = sqlite_utils.Database(tmp_path / "cockpit.db")
    for migrate in MIGRATIONS[:6]:  # schema 6: labels, no batches
        migrate(db)
    db.execute("PRAGMA user_version = 6")
    db["runs"].insert({"id": "old", "task": "an old task", "url": "http://x", "status": "answered", "started": 1.0})
    db["labels"].insert({"run_id": "old", "annotator": "ada", "verdict": "fail", "seconds": 20.0})
    db.conn.commit()
    db.conn.close()
    ok(cockpit(tmp_path, "annotate", "assign", "--batch", "b", "--runs", "old", "--annotators", "ada"))
    assert status_rows(ok(cockpit(tmp_path, "annotate", "status")))["ada"] == ["1", "1", "20.0"]
