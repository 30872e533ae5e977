"""Online-Mind2Web's third human label, not executable (the task could not be attempted: a CAPTCHA, the site
down, a login wall, a blocked region), with its reason: stored, carried by exports, label files and bundles, and
reported apart by `cockpit agreement`, never counted as a failure. Checked by hand on five runs."""
import json

import pytest

from cockpit.core.review import agreement
from cockpit.core.review.consensus import consensus, not_executable
from cockpit.core.review.outcomes import failure_categories, run_outcomes, success_rates
from cockpit.core.review.to_adjudicate import to_adjudicate
from cockpit.core.store import Store
from cockpit.core.store import labels as lb
from cockpit.core.store.adjudications import set_adjudication
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit, ok

NE = "not_executable"
# run: {annotator: (verdict, category or reason)}, and the judge's verdict
RUNS = {
    "r1": ({"ada": (NE, "CAPTCHA"), "bob": (NE, "Site down"), "cy": ("success", "")}, 0),  # not executable
    "r2": ({"ada": (NE, "Login wall"), "bob": ("success", "")}, 1),  # a tie: undecided, annotators disagree
    "r3": ({"ada": ("success", ""), "bob": ("success", ""), "cy": (NE, "Blocked region")}, 1),  # success
    "r4": ({"ada": ("fail", "Navigation stuck"), "bob": ("fail", "Hallucination")}, 0),  # fail
    "r5": ({"ada": (NE, "the shop's page asks for a phone number first"), "bob": (NE, "")}, 1),  # not executable
}


def fill_five_runs(into):
    for i, (rid, (labels, judge)) in enumerate(RUNS.items()):
        into.new_run(NewRun(f"task of {rid}", "http://example.test/", run_id=rid, site="shop", model="m",
                             task_id=f"t{i}", started=1000.0 + i))
        into.finish_run(rid, "answered", answer="an answer")
        for who, (verdict, category) in labels.items():
            lb.set_label(into, rid, who, verdict, category=category)
        lb.set_verdict(into, rid, "gpt-j", 3, "v1", judge)


@pytest.fixture
def five_runs(tmp_path):
    with Store(tmp_path) as s:
        fill_five_runs(s)
        yield s


def test_the_label_keeps_its_reason_and_other_verdicts_keep_none(five_runs):
    assert lb.labels(five_runs, "r1", "ada")[0]["verdict"] == NE
    assert lb.labels(five_runs, "r1", "ada")[0]["category"] == "CAPTCHA"
    lb.set_label(five_runs, "r1", "ada", "success", category="CAPTCHA")
    assert lb.labels(five_runs, "r1", "ada")[0]["category"] == ""


def test_runs_found_not_executable_are_apart_from_the_consensus_and_the_failures(five_runs):
    assert consensus(five_runs) == {"r3": 1, "r4": 0}  # r1, r5 not executable; r2 a tie (1 against 1)
    assert not_executable(five_runs) == {"r1": {"ada": "CAPTCHA", "bob": "Site down"},
                                     "r5": {"ada": "the shop's page asks for a phone number first", "bob": ""}}
    outcomes = run_outcomes(five_runs)
    assert outcomes["r1"] == (None, NE) and outcomes["r5"] == (None, NE)  # whatever the judge said
    assert outcomes["r2"] == (1, "judge")  # no consensus: the judge's verdict
    [row] = success_rates(five_runs, "site")
    assert row[:4] == ("shop", 3, 2, 2 / 3)  # r2 (judge), r3, r4; r1 and r5 are in no rate
    assert row[4]["not_executable"] == 2 and row[4]["human"] == 2
    assert failure_categories(five_runs) == {"Navigation stuck": 1}  # r4 only


def test_judges_are_compared_on_the_executable_runs_only(five_runs):
    [row] = agreement.judge_agreement(five_runs)
    assert row["n"] == 2 and (row["tp"], row["tn"], row["fp"], row["fn"]) == (1, 1, 0, 0)


def test_a_split_with_not_executable_is_a_disagreement_to_adjudicate(five_runs):
    listed = {d["run_id"]: d for d in agreement.disagreements(five_runs)}
    assert "annotators disagree (1 success, 0 fail, 1 not executable)" in listed["r2"]["reasons"]
    assert "annotators disagree (2 success, 0 fail, 1 not executable)" in listed["r3"]["reasons"]
    assert {i["run_id"] for i in to_adjudicate(five_runs)} >= {"r1", "r2", "r3"}
    set_adjudication(five_runs, "r1", "fail", "the CAPTCHA was the agent's own doing", "qa")
    assert "r1" not in not_executable(five_runs) and consensus(five_runs).get("r1") is None
    assert run_outcomes(five_runs)["r1"] == (0, "human")  # the adjudicated verdict takes the run back


def test_the_report_counts_and_lists_them(five_runs):
    rep = agreement.report(five_runs)
    assert rep["not_executable"]["count"] == 2
    assert [r["run_id"] for r in rep["not_executable"]["runs"]] == ["r1", "r5"]
    assert rep["not_executable"]["runs"][0]["reasons"] == {"ada": "CAPTCHA", "bob": "Site down"}
    json.dumps(rep)


def test_cockpit_agreement_prints_them_apart(tmp_path):
    with Store(tmp_path) as s:
        fill_five_runs(s)
    out = ok(cockpit(tmp_path, "agreement", "--resamples", "0", "--disagreements"))
    block = out.split("Not executable", 1)[1]
    assert block.splitlines()[0].endswith(": 2 runs")
    assert "r1  task of r1  (ada: CAPTCHA; bob: Site down)" in block
    assert "r5  task of r5  (ada: the shop's page asks for a phone number first; bob: no reason given)" in block
    site = next(line for line in out.split("Success rate by site", 1)[1].splitlines() if line.strip().startswith("shop"))
    assert site.split()[1:4] == ["3", "2", "66.7%"] and "2 not executable" in site
    rep = json.loads(ok(cockpit(tmp_path, "agreement", "--json", "--resamples", "0")))
    assert rep["not_executable"]["count"] == 2


def test_cockpit_annotate_asks_for_the_reason(tmp_path):
    with Store(tmp_path) as s:
        fill_five_runs(s)
    r = cockpit(tmp_path, "annotate", "label", "r4", "--annotator", "dee", "--verdict", NE)
    assert r.returncode == 2 and "--reason" in r.stderr
    r = cockpit(tmp_path, "annotate", "label", "r4", "--annotator", "dee", "--verdict", "fail", "--reason", "x")
    assert r.returncode == 2 and "--reason goes with not_executable" in r.stderr
    out = ok(cockpit(tmp_path, "annotate", "label", "r4", "--annotator", "dee", "--verdict", NE,
                     "--reason", "Login wall"))
    assert "dee says not_executable (Login wall)" in out


@pytest.mark.parametrize("fmt", ["labels-jsonl", "labels-csv", "bundle"])
def test_exports_label_files_and_bundles_carry_the_label_and_its_reason(tmp_path, fmt):
    here, there = tmp_path / "here", tmp_path / "there"
    with Store(here) as s:
        fill_five_runs(s)
    bundle = tmp_path / "all.zip"
    ok(cockpit(here, "export", "all", "--format", "bundle", "--out", str(bundle)))
    if fmt == "bundle":
        ok(cockpit(there, "import", "bundle", str(bundle)))
    else:
        with Store(there):
            pass
        ok(cockpit(there, "import", "bundle", str(bundle)))
        with Store(there) as s:  # the labels come from the table, not the bundle
            s.db.execute("DELETE FROM labels")
            s.db.conn.commit()
        with Store(there) as s:
            assert lb.labels(s) == []
        table = tmp_path / ("labels.jsonl" if fmt == "labels-jsonl" else "labels.csv")
        ok(cockpit(here, "export", "all", "--format", fmt, "--out", str(table)))
        ok(cockpit(there, "import", "labels", str(table)))
    with Store(there) as s:
        assert lb.labels(s, "r1", "ada")[0]["verdict"] == NE
        assert lb.labels(s, "r1", "ada")[0]["category"] == "CAPTCHA"
        assert not_executable(s) == {"r1": {"ada": "CAPTCHA", "bob": "Site down"},
                                     "r5": {"ada": "the shop's page asks for a phone number first", "bob": ""}}


def test_the_html_report_names_the_reason(five_runs):
    from cockpit.core.review.exports import html_report
    page = html_report(five_runs, "r1")
    assert "not executable" in page and "CAPTCHA" in page
