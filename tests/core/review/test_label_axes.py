"""AgentRewardBench's three questions per run: success, side effects, repetition, each with "unsure"; from the
command line, through exports, label files and bundles, and into agreement per axis."""
import csv
import json

import pytest

from cockpit.core.review import agreement as ag
from cockpit.core.store import Store, StoreError
from cockpit.core.store import labels as lb
from tests.clitools import cockpit
from tests.core.store.bundle_helpers import make_runs, ok

#: (annotator, run) -> (verdict, side effects, repetition)
ANSWERS = {
    ("ada", "r1"): ("success", "no", "no"), ("bob", "r1"): ("success", "no", "no"),
    ("ada", "r2"): ("fail", "yes", "yes"), ("bob", "r2"): ("fail", "yes", "no"),
    ("ada", "r3"): ("success", "yes", "no"), ("bob", "r3"): ("success", "no", "no"),
    ("ada", "r4"): ("fail", "no", "yes"), ("bob", "r4"): ("fail", "no", "yes"),
    ("ada", "r5"): ("success", "unsure", "no"), ("bob", "r5"): ("success", "no", None),
}


@pytest.fixture
def labelled_home(tmp_path):
    home = tmp_path / "home"
    with Store(home) as store:
        make_runs(store)
    for (who, rid), (verdict, side, rep) in ANSWERS.items():
        args = ["annotate", "label", rid, "--annotator", who, "--verdict", verdict, "--side-effects", side]
        ok(cockpit(home, *args, *(["--repetition", rep] if rep else [])))
    return home


def test_an_answer_left_out_keeps_the_earlier_one_and_a_bad_one_is_refused(labelled_home):
    out = ok(cockpit(labelled_home, "annotate", "label", "r1", "--annotator", "ada", "--repetition", "yes"))
    assert out.strip() == "r1: ada says success; side effects: no; repetition: yes"
    with Store(labelled_home) as store:
        lab = lb.labels(store, "r1", "ada")[0]
        assert (lab["verdict"], lab["side_effects"], lab["repetition"]) == ("success", "no", "yes")
        lb.set_label(store, "r1", "ada", "fail", category="Loop")  # the window's S / F keep them too
        assert lb.labels(store, "r1", "ada")[0]["side_effects"] == "no"
        with pytest.raises(StoreError, match="side effects must be one of yes, no, unsure"):
            lb.set_label(store, "r1", "ada", "fail", side_effects="maybe")
    r = cockpit(labelled_home, "annotate", "label", "r6", "--annotator", "cy", "--side-effects", "no")
    assert r.returncode == 2 and "give --verdict" in r.stderr


def test_agreement_per_axis(labelled_home):
    with Store(labelled_home) as store:
        # side effects, unsure left out: r1 no/no, r2 yes/yes, r3 yes/no, r4 no/no -> agree 3/4;
        # ada 2 yes 2 no, bob 1 yes 3 no: p_e = (2*1 + 2*3)/16 = .5 -> kappa (.75 - .5)/.5 = 0.5
        ((a1, a2, n, agree, kappa),) = ag.pairwise_cohen(store, "side_effects")
        assert (a1, a2, n, agree, kappa) == ("ada", "bob", 4, 0.75, 0.5)
        # repetition: r1 no/no, r2 yes/no, r3 no/no, r4 yes/yes (r5: bob did not answer) -> 3/4;
        # ada 2 yes 2 no, bob 1 yes 3 no -> kappa 0.5 as well
        assert ag.pairwise_cohen(store, "repetition")[0][2:] == (4, 0.75, 0.5)
        rep = ag.report(store, disagreement_list=False)
    se = rep["axes"]["side_effects"]
    # majorities: r1 no, r2 yes, r3 tie (none), r4 no, r5 no (bob alone; ada unsure) -> 1 yes of 4
    assert (se["answered"], se["seen"], se["rate"]) == (4, 1, 0.25)
    out = ok(cockpit(labelled_home, "agreement", "--resamples", "200"))
    section = out.split("Side effects (did the agent change something nobody asked for?)", 1)[1]
    assert "annotators only, the judges answer success" in section.splitlines()[0]
    assert "4 runs with a majority answer, 1 of them yes (25.0%)" in section
    assert "ada vs bob: n 4, agree 75.0% [" in section and "kappa 0.500 [" in section
    assert "Repetition (did the agent loop?)" in out


def test_exports_label_files_and_bundles_carry_the_axes(labelled_home, tmp_path):
    ok(cockpit(labelled_home, "export", "all", "--format", "labels-csv", "--out", str(tmp_path / "l.csv")))
    with open(tmp_path / "l.csv", newline="", encoding="utf-8") as f:
        rows = {(r["annotator"], r["run_id"]): r for r in csv.DictReader(f)}
    assert (rows[("ada", "r2")]["side_effects"], rows[("ada", "r2")]["repetition"]) == ("yes", "yes")
    assert rows[("bob", "r5")]["repetition"] == ""
    ok(cockpit(labelled_home, "export", "all", "--format", "labels-jsonl", "--out", str(tmp_path / "l.jsonl")))
    first = json.loads((tmp_path / "l.jsonl").read_text().splitlines()[0])
    assert "side_effects" in first and "repetition" in first

    other = tmp_path / "other"  # the same runs on another machine: labels come in from the file
    with Store(other) as store:
        make_runs(store)
    ok(cockpit(other, "import", "labels", str(tmp_path / "l.csv")))
    with Store(other) as store:
        got = {(x["annotator"], x["run_id"]): (x["verdict"], x["side_effects"], x["repetition"])
               for x in lb.labels(store)}
    assert got == ANSWERS

    ok(cockpit(labelled_home, "export", "all", "--format", "bundle", "--out", str(tmp_path / "b.zip")))
    third = tmp_path / "third"
    ok(cockpit(third, "import", "bundle", str(tmp_path / "b.zip")))
    with Store(third) as store:
        got = {(x["annotator"], x["run_id"]): (x["verdict"], x["side_effects"], x["repetition"])
               for x in lb.labels(store)}
    assert got == ANSWERS


def test_a_label_file_with_a_bad_answer_is_refused_whole(labelled_home, tmp_path):
    ok(cockpit(labelled_home, "export", "all", "--format", "labels-csv", "--out", str(tmp_path / "l.csv")))
    text = (tmp_path / "l.csv").read_text(encoding="utf-8").replace(",yes,yes,", ",yes,often,", 1)
    (tmp_path / "bad.csv").write_text(text, encoding="utf-8")
    other = tmp_path / "other"
    with Store(other) as store:
        make_runs(store)
    r = cockpit(other, "import", "labels", str(tmp_path / "bad.csv"))
    assert r.returncode != 0 and "repetition must be one of yes, no, unsure or empty, not 'often'" in r.stderr
    with Store(other) as store:
        assert lb.labels(store) == []


def test_the_html_report_shows_each_annotators_three_answers(labelled_home):
    from cockpit.core.review import exports
    with Store(labelled_home) as store:
        page = exports.html_report(store, "r2")
    assert "<th>Side effects</th><th>Repetition</th>" in page.replace("\n", "")
    assert "<td>yes</td><td>yes</td>" in page.replace("\n", "")


def test_a_label_file_from_before_the_two_questions_keeps_the_answers_here(labelled_home, tmp_path):
    ok(cockpit(labelled_home, "export", "all", "--format", "labels-csv", "--out", str(tmp_path / "l.csv")))
    with open(tmp_path / "l.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    old = tmp_path / "old.csv"  # as Cockpit wrote it before schema 10: no side_effects, no repetition
    fields = [c for c in rows[0] if c not in ("side_effects", "repetition", "assisted", "interventions")]
    with open(old, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    out = ok(cockpit(labelled_home, "import", "labels", str(old)))
    assert "10 already here, 0 conflicting" in out, out
    with Store(labelled_home) as store:
        lab = lb.labels(store, "r2", "ada")[0]
    assert (lab["side_effects"], lab["repetition"]) == ("yes", "yes")


def test_the_command_line_keeps_the_category_unless_the_verdict_changes(labelled_home):
    ok(cockpit(labelled_home, "annotate", "label", "r2", "--annotator", "ada", "--verdict", "fail",
               "--category", "Loop"))
    out = ok(cockpit(labelled_home, "annotate", "label", "r2", "--annotator", "ada", "--verdict", "fail",
                     "--comment", "x"))
    assert out.startswith("r2: ada says fail (Loop)")
    r = cockpit(labelled_home, "annotate", "label", "r1", "--annotator", "ada", "--category", "Loop")
    assert r.returncode == 2 and "--category goes with a failure" in r.stderr
    out = ok(cockpit(labelled_home, "annotate", "label", "r2", "--annotator", "ada", "--verdict", "success"))
    assert out.startswith("r2: ada says success;")
