"""Adjudication through `cockpit adjudicate` and `cockpit agreement`: the runs to settle with every verdict and
reason side by side, an adjudicated verdict replacing the consensus, and the judge before and after
(agreement, kappa, precision, recall), checked by hand on six runs."""
import json

import pytest

from cockpit.core.review.consensus import adjudicated_consensus, consensus
from cockpit.core.store import Store
from cockpit.core.store import labels as lb
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit, ok

# run: (ada, bob, judge); consensus r1 S, r2 F, r3 tie, r4 F, r5 S, r6 S
RUNS = {"r1": ("success", "success", 1), "r2": ("fail", "fail", 1), "r3": ("success", "fail", 1),
        "r4": ("fail", "fail", 0), "r5": ("success", "success", 0), "r6": ("success", "success", 1)}


@pytest.fixture
def judged_home(tmp_path):
    with Store(tmp_path) as store:
        for i, (rid, (ada, bob, judge)) in enumerate(RUNS.items()):
            store.new_run(NewRun(f"task of {rid}", "http://example.test/", run_id=rid, site="shop", started=1000.0 + i))
            store.finish_run(rid, "answered", answer="an answer")
            lb.set_label(store, rid, "ada", ada, comment=f"ada on {rid}")
            lb.set_label(store, rid, "bob", bob, category="Hallucination" if bob == "fail" else "")
            lb.set_verdict(store, rid, "gpt-j", 3, "v1", judge,
                           reply=f"The page shows it. {'SUCCESS' if judge else 'NOT SUCCESS'} ({rid})")
    return tmp_path


def judge_rows(out):
    """{'before'|'after': [n, agree, kappa, precision, recall]} from `cockpit agreement`'s adjudication table."""
    rows = {}
    for line in out.split("Judges before and after adjudication", 1)[1].splitlines():
        parts = line.split()
        if parts[:3] == ["gpt-j", "3", "v1"]:
            rows[parts[3]] = parts[4:]
    return rows


def test_the_list_shows_each_disagreement_with_its_verdicts_and_reasons(judged_home):
    out = ok(cockpit(judged_home, "adjudicate", "list"))
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("r")]
    assert listed == ["r2", "r3", "r5"], out  # judge vs consensus, annotators split, judge vs consensus
    r3 = out.split("r3", 1)[1].split("r5", 1)[0]
    assert "annotators disagree; consensus none (tie)" in r3
    assert "ada on r3" in r3 and "Hallucination" in r3 and "SUCCESS (r3)" in r3
    r2 = out.split("r2", 1)[1].split("r3", 1)[0]
    assert "a judge disagrees with the consensus; consensus fail" in r2


def test_adjudication_replaces_the_consensus_and_agreement_reports_before_and_after(judged_home):
    before = ok(cockpit(judged_home, "agreement"))
    assert "0 runs adjudicated" in before
    ok(cockpit(judged_home, "adjudicate", "set", "r3", "--verdict", "success", "--reason", "the cart shows it",
               "--by", "cy"))
    out = ok(cockpit(judged_home, "adjudicate", "set", "r2", "--verdict", "success", "--reason",
                     "both missed the banner",
                     "--by", "cy"))
    assert "r2: adjudicated success by cy (the annotators' consensus fail)" in out
    with Store(judged_home) as store:
        assert adjudicated_consensus(store) == {"r1": 1, "r2": 1, "r3": 1, "r4": 0, "r5": 1, "r6": 1}
        assert consensus(store)["r2"] == 0  # the annotators' own consensus is kept
    listed = ok(cockpit(judged_home, "adjudicate", "list"))
    assert "adjudicated    success   both missed the banner (by cy)" in listed
    still_open = ok(cockpit(judged_home, "adjudicate", "list", "--open"))
    assert [l.split()[0] for l in still_open.splitlines() if l.startswith("r")] == ["r5"]

    out = ok(cockpit(judged_home, "agreement"))
    assert "2 runs adjudicated, 2 of them changing the consensus (r2, r3)" in out
    # Before, over r1 r2 r4 r5 r6 (r3 ties): humans S F F S S, judge S S F F S.
    #   tp 2 (r1 r6), fp 1 (r2), fn 1 (r5), tn 1 (r4): agree 3/5; precision 2/3, recall 2/3;
    #   p_e = .6 * .6 + .4 * .4 = .52, kappa (.6 - .52) / .48 = 0.167
    # After, over all six: humans S S S F S S, judge S S S F F S.
    #   tp 4, fp 0, fn 1 (r5), tn 1: agree 5/6; precision 4/4, recall 4/5;
    #   p_e = 5/6 * 4/6 + 1/6 * 2/6 = 22/36, kappa (30/36 - 22/36) / (14/36) = 8/14 = 0.571
    assert judge_rows(out) == {"before": ["5", "60.0%", "0.167", "66.7%", "66.7%"],
                               "after": ["6", "83.3%", "0.571", "100.0%", "80.0%"]}, out
    # success rate: r2 now counts as a success (5 of 6; before: r1 r3 (by the judge) r5 r6, 4 of 6)
    assert any(l.split()[:4] == ["shop", "6", "5", "83.3%"] for l in out.splitlines()), out
    assert any(l.split()[:4] == ["shop", "6", "4", "66.7%"] for l in before.splitlines()), before
    # failed runs: r2 (Hallucination, adjudicated a success now) and r4 before; r4 alone after
    assert any(l.split() == ["Hallucination", "2", "100.0%"] for l in before.splitlines()), before
    assert any(l.split() == ["Hallucination", "1", "100.0%"] for l in out.splitlines()), out
    rep = json.loads(ok(cockpit(judged_home, "agreement", "--json")))
    after = rep["adjudication"]["judges"][0]
    assert (after["tp"], after["fp"], after["fn"], after["tn"]) == (4, 0, 1, 1)
    assert rep["judges"][0]["precision"] == pytest.approx(2 / 3)


def test_adjudicating_again_replaces_it_and_bad_input_is_refused(judged_home):
    ok(cockpit(judged_home, "adjudicate", "set", "r3", "--verdict", "success", "--reason", "x", "--by", "cy"))
    ok(cockpit(judged_home, "adjudicate", "set", "r3", "--verdict", "fail", "--reason", "looked again", "--by", "dan"))
    assert "adjudicated    fail      looked again (by dan)" in ok(cockpit(judged_home, "adjudicate", "list"))
    r = cockpit(judged_home, "adjudicate", "set", "r3", "--verdict", "fail", "--reason", " ", "--by", "cy")
    assert r.returncode == 2 and "needs its reason" in r.stderr
    r = cockpit(judged_home, "adjudicate", "set", "nope", "--verdict", "fail", "--reason", "x", "--by", "cy")
    assert r.returncode == 2 and "no run 'nope'" in r.stderr


def test_the_list_of_one_batch(judged_home):
    ok(cockpit(judged_home, "annotate", "assign", "--batch", "b", "--runs", "r3", "r4", "--annotators", "ada,bob",
               "--per-run", "2"))
    out = ok(cockpit(judged_home, "adjudicate", "list", "--batch", "b"))
    assert [l.split()[0] for l in out.splitlines() if l.startswith("r")] == ["r3"]
    r = cockpit(judged_home, "adjudicate", "list", "--batch", "nope")
    assert r.returncode == 2 and "no batch 'nope'" in r.stderr


def test_adjudicated_verdicts_travel_in_bundles(judged_home, tmp_path_factory):
    ok(cockpit(judged_home, "adjudicate", "set", "r3", "--verdict", "success", "--reason", "the cart shows it",
               "--by", "cy"))
    zip_ = judged_home / "a.zip"
    ok(cockpit(judged_home, "export", "all", "--format", "bundle", "--out", str(zip_)))
    other = tmp_path_factory.mktemp("other")
    out = ok(cockpit(other, "import", "bundle", str(zip_)))
    assert "adjudicated verdicts: 1 added, 0 already here, 0 conflicting" in out, out
    assert "1 run adjudicated, 1 of them changing the consensus (r3)" in ok(cockpit(other, "agreement"))
    assert "adjudicated    success   the cart shows it (by cy)" in ok(cockpit(other, "adjudicate", "list"))
    # settled otherwise here later: importing the older one again keeps this one, and says so
    ok(cockpit(other, "adjudicate", "set", "r3", "--verdict", "fail", "--reason", "login wall", "--by", "dan"))
    out = ok(cockpit(other, "import", "bundle", str(zip_)))
    assert "1 conflicting (the newer kept)" in out and "run r3, adjudicated verdict" in out, out
    assert "adjudicated    fail      login wall (by dan)" in ok(cockpit(other, "adjudicate", "list"))
