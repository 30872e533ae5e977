"""The QA reviewer of a batch (Online-Mind2Web's fourth person, #42): every run of the batch with each annotator's
labels and key-point ticks side by side (`cockpit adjudicate list --batch B --qa`), the final verdict (not
executable with its reason included) and final key points set, and the reports reading the adjudicated verdict
as the run's final answer; not executable is never a failure."""
import json

import pytest

from cockpit.core.review.agreement import disagreements
from cockpit.core.review.consensus import adjudicated_consensus, consensus, not_executable
from cockpit.core.review.om2w_labels import human_codes
from cockpit.core.review.outcomes import failure_categories, run_outcomes
from cockpit.core.store import Store
from cockpit.core.store import key_points as KP
from cockpit.core.store import labels as L
from cockpit.core.store.adjudications import adjudications, final_key_points
from cockpit.core.store.assignments import assign
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit, ok

POINTS = ["Open the store locator", "Search near 90028", "Set it as the home store"]


@pytest.fixture
def qa_home(tmp_path):
    with Store(tmp_path) as s:
        for i, rid in enumerate(("r1", "r2", "r3")):
            s.new_run(NewRun("Set the Gamestop near 90028 as my home store", "http://example.test/", run_id=rid,
                             task_id="gs-1", model="agent-x", started=1000.0 + i))
            s.finish_run(rid, "answered", answer="done")
        KP.set_typed(s, "gs-1", POINTS, "cy")
        assign(s, "pilot", ["r1", "r2", "r3"], ["ada", "bob"], 2, qa="cy")
        L.set_label(s, "r1", "ada", L.NOT_EXECUTABLE, category="CAPTCHA")  # one says blocked, the other failed
        L.set_label(s, "r1", "bob", "fail", category="Navigation stuck")
        for who in ("ada", "bob"):  # they agree on r2, ticks differ
            L.set_label(s, "r2", who, "success")
        KP.tick(s, "r2", "ada", 0, POINTS[0], 2)
        KP.tick(s, "r2", "ada", 1, POINTS[1], 3)
        KP.tick(s, "r2", "bob", 0, POINTS[0], 2)
        for who in ("ada", "bob"):  # both failed r3
            L.set_label(s, "r3", who, "fail", category="Hallucination")
    return tmp_path


def test_not_executable_against_a_failure_is_a_disagreement_never_a_failure(qa_home):
    with Store(qa_home) as s:
        listed = {d["run_id"]: d for d in disagreements(s)}
        assert "r1" in listed and listed["r1"]["annotators_disagree"]
        assert listed["r1"]["reasons"] == ["annotators disagree (0 success, 1 fail, 1 not executable)"]
        assert "r1" not in consensus(s)  # a tie: neither a failure nor a success until adjudicated
        assert failure_categories(s) == {"Hallucination": 1}  # r3 only: r1's "Navigation stuck" is not counted


def test_the_qa_reviewer_sees_every_run_with_labels_and_ticks_side_by_side(qa_home):
    out = ok(cockpit(qa_home, "adjudicate", "list", "--batch", "pilot", "--qa"))
    blocks = {b.split()[0]: b for b in ("\n" + out).split("\nr")[1:]}
    assert sorted(blocks) == ["1", "2", "3"], out  # every run of the batch, not only r1
    r1, r2 = blocks["1"], blocks["2"]
    assert "annotators disagree" in r1 and "not_executable CAPTCHA" in r1 and "Navigation stuck" in r1
    assert "no disagreement; consensus success" in r2
    assert "key points: 1. Open the store locator; 2. Search near 90028; 3. Set it as the home store" in r2
    assert "ada            2 of 3 met: 1@2 2@3" in r2 and "bob            1 of 3 met: 1@2" in r2
    only_disputed = ok(cockpit(qa_home, "adjudicate", "list", "--batch", "pilot"))
    assert [line.split()[0] for line in only_disputed.splitlines() if line.startswith("r")] == ["r1"]


def test_adjudicating_not_executable_and_the_final_key_points_is_the_final_answer(qa_home):
    out = ok(cockpit(qa_home, "adjudicate", "set", "r1", "--verdict", "not_executable", "--why", "CAPTCHA",
                     "--reason", "the second screenshot is a CAPTCHA wall", "--by", "cy"))
    assert "r1: adjudicated not executable (CAPTCHA) by cy" in out
    out = ok(cockpit(qa_home, "adjudicate", "set", "r2", "--verdict", "fail", "--reason", "never set as home store",
                     "--by", "cy", "--met", "1:2", "--met", "2:4"))
    assert "key points: 2 of 3 met" in out
    ok(cockpit(qa_home, "adjudicate", "set", "r3", "--verdict", "not_executable", "--why", "Site down",
               "--reason", "the store locator was down", "--by", "cy"))
    with Store(qa_home) as s:
        assert final_key_points(adjudications(s, "r2")[0]) == [
            {"position": 0, "point": POINTS[0], "step": 2}, {"position": 1, "point": POINTS[1], "step": 4},
            {"position": 2, "point": POINTS[2], "step": None}]
        assert final_key_points(adjudications(s, "r1")[0]) is None  # no --met: not settled
        assert not_executable(s) == {"r1": {"cy": "CAPTCHA"}, "r3": {"cy": "Site down"}}
        assert adjudicated_consensus(s) == {"r2": 0}  # r3's consensus fail is taken back: not a failure
        assert failure_categories(s) == {}
        assert run_outcomes(s)["r1"] == (None, "not_executable") and run_outcomes(s)["r3"] == (None, "not_executable")
        assert human_codes(s) == {"r1": 2, "r2": 0, "r3": 2}
    rep = json.loads(ok(cockpit(qa_home, "agreement", "--json")))
    assert rep["not_executable"]["count"] == 2
    assert rep["adjudication"]["changed"] == ["r2", "r3"]
    status = ok(cockpit(qa_home, "annotate", "status", "--batch", "pilot"))
    assert "QA reviewer cy (3 of 3 runs adjudicated)" in status


def test_what_the_cli_refuses(qa_home):
    r = cockpit(qa_home, "adjudicate", "set", "r1", "--verdict", "not_executable", "--reason", "blocked", "--by", "cy")
    assert r.returncode == 2 and "why the task could not be attempted" in r.stderr
    r = cockpit(qa_home, "adjudicate", "set", "r2", "--verdict", "fail", "--reason", "x", "--by", "cy", "--met", "4:2")
    assert r.returncode == 2 and "N from 1 to 3" in r.stderr
    r = cockpit(qa_home, "adjudicate", "set", "r2", "--verdict", "fail", "--why", "CAPTCHA", "--reason", "x", "--by", "cy")
    assert r.returncode == 2 and "--why goes with" in r.stderr
    with Store(qa_home) as s:
        assert adjudications(s) == []


def test_the_qa_reviewer_can_be_named_later(qa_home):
    ok(cockpit(qa_home, "annotate", "qa", "--batch", "pilot", "--reviewer", "dee"))
    status = ok(cockpit(qa_home, "annotate", "status"))
    assert "QA reviewer dee (0 of 3 runs adjudicated)" in status
