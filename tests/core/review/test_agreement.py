"""Agreement statistics: the formulas against published worked examples, the store
reports on a small labelled set, and `cockpit agreement` as a user runs it."""
import json

import pytest

from cockpit.core.review import agreement as ag
from cockpit.core.review.consensus import consensus, human_matrix
from cockpit.core.review.kappa import (
    cohen_components,
    cohen_kappa,
    confusion_matrix,
    fleiss_components,
    fleiss_from_labels,
    fleiss_kappa,
    percent_agreement,
)
from cockpit.core.review.outcomes import failure_categories, run_outcomes, steps_histogram, success_rates
from cockpit.core.store import Store
from cockpit.core.store import labels as lb
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit


def pairs(table):
    """Two raters' label lists from a 2x2 table {(a, b): count}."""
    a, b = [], []
    for (x, y), n in table.items():
        a += [x] * n
        b += [y] * n
    return a, b


# ---------------------------------------------------------------------------
# Cohen's kappa
# ---------------------------------------------------------------------------

def test_cohen_wikipedia_grant_proposals():
    # Wikipedia, "Cohen's kappa", worked example: 50 grant proposals, readers A and B.
    # A yes/B yes 20, A yes/B no 5, A no/B yes 10, A no/B no 15.
    # p_o = (20 + 15) / 50 = 0.7
    # A says yes 25/50 = 0.5, B says yes 30/50 = 0.6
    # p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.30 + 0.20 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    a, b = pairs({("Yes", "Yes"): 20, ("Yes", "No"): 5, ("No", "Yes"): 10, ("No", "No"): 15})
    po, pe = cohen_components(a, b)
    assert round(po, 3) == 0.7 and round(pe, 3) == 0.5
    assert percent_agreement(a, b) == pytest.approx(0.7)
    assert round(cohen_kappa(a, b), 3) == 0.4


@pytest.mark.parametrize("table, expected", [
    # Wikipedia, "Cohen's kappa", same p_o = 0.60 but different marginals (100 items):
    # (45, 15 / 25, 15): A yes 60, B yes 70 -> p_e = .6*.7 + .4*.3 = .54 -> (.60-.54)/.46 = 0.1304
    ({(1, 1): 45, (1, 0): 15, (0, 1): 25, (0, 0): 15}, 0.130),
    # (25, 35 / 5, 35): A yes 60, B yes 30 -> p_e = .6*.3 + .4*.7 = .46 -> (.60-.46)/.54 = 0.2593
    ({(1, 1): 25, (1, 0): 35, (0, 1): 5, (0, 0): 35}, 0.259),
])
def test_cohen_same_agreement_different_marginals(table, expected):
    a, b = pairs(table)
    assert percent_agreement(a, b) == pytest.approx(0.6)
    assert round(cohen_kappa(a, b), 3) == expected


def test_cohen_perfect_chance_and_degenerate():
    assert cohen_kappa(["a", "b", "c", "a"], ["a", "b", "c", "a"]) == 1.0
    # chance level: p_o = 2/4, each rater half yes -> p_e = .5*.5 + .5*.5 = .5 -> kappa 0
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == 0.0
    # complete disagreement with balanced marginals: p_o = 0, p_e = .5 -> -1
    assert cohen_kappa([1, 0], [0, 1]) == -1.0
    # p_e = 1 (one category only) is 0/0: documented as 1.0 when they agree
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) == 1.0
    with pytest.raises(ValueError):
        cohen_kappa([1, 0], [1])
    with pytest.raises(ValueError):
        cohen_kappa([], [])


# ---------------------------------------------------------------------------
# Fleiss' kappa
# ---------------------------------------------------------------------------

# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories.
WIKI_FLEISS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_wikipedia_example():
    # By hand, n = 14, n(n-1) = 182, P_i = (sum_j n_ij^2 - 14) / 182:
    #   row 1: 196-14 = 182 -> 1.000    row 6: 49+49 = 98-14 = 84 -> 0.462
    #   row 2: 4+36+16+4 = 60-14 = 46   row 7: 9+4+36+9 = 58-14 = 44
    #   row 3: 9+25+36 = 70-14 = 56     row 8: 4+25+9+4+4 = 46-14 = 32
    #   row 4: 9+81+4 = 94-14 = 80      row 9: 36+25+4+1 = 66-14 = 52
    #   row 5: 4+4+64+1+1 = 74-14 = 60  row 10: 4+4+9+49 = 66-14 = 52
    # P-bar = (182+46+56+80+60+84+44+32+52+52) / (10*182) = 688/1820 = 0.37802
    # column totals 20, 28, 39, 21, 32 (= 140): P-bar_e = (400+784+1521+441+1024)/140^2 = 4170/19600 = 0.21276
    # kappa = (0.37802 - 0.21276) / (1 - 0.21276) = 0.16527 / 0.78724 = 0.20993
    p_bar, pe_bar = fleiss_components(WIKI_FLEISS)
    assert round(p_bar, 3) == 0.378
    assert round(pe_bar, 3) == 0.213
    assert round(fleiss_kappa(WIKI_FLEISS), 3) == 0.210


def test_fleiss_perfect_chance_and_degenerate():
    # every subject unanimous, categories varied: P-bar = 1, P-bar_e = (6^2+3^2)/9^2 < 1 -> 1
    assert fleiss_kappa([[3, 0], [0, 3], [3, 0]]) == 1.0
    # chance level, two raters: P_i = 1, 1, 0, 0 -> P-bar = .5; totals 4, 4 -> P-bar_e = .5 -> 0
    assert fleiss_kappa([[2, 0], [0, 2], [1, 1], [1, 1]]) == 0.0
    # all ratings in one category: 0/0, documented as 1.0
    assert fleiss_kappa([[4, 0], [4, 0]]) == 1.0
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[3, 0], [1, 1]])
    with pytest.raises(ValueError, match="two ratings"):
        fleiss_kappa([[1, 0], [0, 1]])
    with pytest.raises(ValueError):
        fleiss_kappa([])


def test_fleiss_from_labels_keeps_items_with_the_usual_number_of_raters():
    labels = {"a": ["y", "y", "n"], "b": ["n", "n", "n"], "c": ["y", "n"], "d": ["y", "y", "y"]}
    table, cats, items = fleiss_from_labels(labels)
    assert cats == ["n", "y"] and items == ["a", "b", "d"]
    assert table == [[1, 2], [3, 0], [0, 3]]
    table, cats, items = fleiss_from_labels(labels, n_raters=2, categories=["y", "n"])
    assert (table, items) == ([[1, 1]], ["c"])
    # the Wikipedia table rebuilt from per-subject label lists gives the same kappa
    by_subject = {i: [j for j, c in enumerate(row) for _ in range(c)] for i, row in enumerate(WIKI_FLEISS)}
    table, cats, _ = fleiss_from_labels(by_subject)
    assert table == WIKI_FLEISS and cats == [0, 1, 2, 3, 4]


def test_confusion_matrix():
    m = confusion_matrix([1, 1, 0, 0, 1], [1, 0, 0, 1, 1], classes=(1, 0))
    assert m == {1: {1: 2, 0: 1}, 0: {1: 1, 0: 1}}
    assert list(m) == [1, 0]
    assert confusion_matrix(["a"], ["b"]) == {"a": {"a": 0, "b": 1}, "b": {"a": 0, "b": 0}}


# ---------------------------------------------------------------------------
# Reports from the store
# ---------------------------------------------------------------------------
#
#  run  site        model     status     ada  bob     cy   consensus  gpt-4o k=1  k=3  k=all  claude k=1
#  r1   allrecipes  gpt-4o    answered   S    S       S    1          1           1    1      1
#  r2   allrecipes  gpt-4o    answered   S    S       F    1          0           1    1
#  r3   allrecipes  gpt-4o    answered   F    F       F    0          0           0    0
#  r4   github      gpt-4o    answered   F    F       S    0          1           1    0
#  r5   github      gpt-4o    answered   S    S       S    1          0           1    1
#  r6   github      claude    answered   F    F       F    0          0           0    0
#  r7   github      claude    answered   S    unsure  -    1          None        1    1
#  r8   github      claude    answered   S    F       -    tie        1
#  r9   amazon      claude    answered   -    -       -    -                      1
#  r10  amazon      claude    max_steps  -    -       -    -
#  r11  amazon      claude    answered   -    -       -    -
#  r12  amazon      claude    running    (excluded from rates and the histogram)

S, F, U = "success", "fail", "unsure"
RUNS = [  # id, site, model, status, {annotator: (verdict, category)}
    ("r1", "allrecipes", "gpt-4o", "answered", {"ada": (S, ""), "bob": (S, ""), "cy": (S, "")}),
    ("r2", "allrecipes", "gpt-4o", "answered", {"ada": (S, ""), "bob": (S, ""), "cy": (F, "Loop")}),
    ("r3", "allrecipes", "gpt-4o", "answered",
     {"ada": (F, "Navigation stuck"), "bob": (F, "Navigation stuck"), "cy": (F, "Hallucination")}),
    ("r4", "github", "gpt-4o", "answered", {"ada": (F, "Hallucination"), "bob": (F, ""), "cy": (S, "")}),
    ("r5", "github", "gpt-4o", "answered", {"ada": (S, ""), "bob": (S, ""), "cy": (S, "")}),
    ("r6", "github", "claude", "answered",
     {"ada": (F, "Visual grounding issue"), "bob": (F, "Hallucination"), "cy": (F, "")}),
    ("r7", "github", "claude", "answered", {"ada": (S, ""), "bob": (U, "")}),
    ("r8", "github", "claude", "answered", {"ada": (S, ""), "bob": (F, "Loop")}),
    ("r9", "amazon", "claude", "answered", {}),
    ("r10", "amazon", "claude", "max_steps", {}),
    ("r11", "amazon", "claude", "answered", {}),
    ("r12", "amazon", "claude", "running", {}),
]
VERDICTS = {  # (judge, k, prompt version): {run: verdict}
    ("gpt-4o", 1, "v1"): {"r1": 1, "r2": 0, "r3": 0, "r4": 1, "r5": 0, "r6": 0, "r7": None, "r8": 1},
    ("gpt-4o", 3, "v1"): {"r1": 1, "r2": 1, "r3": 0, "r4": 1, "r5": 1, "r6": 0, "r7": 1, "r9": 1},
    ("gpt-4o", 0, "v1"): {"r1": 1, "r2": 1, "r3": 0, "r4": 0, "r5": 1, "r6": 0, "r7": 1},
    ("claude", 1, "v2"): {"r1": 1},
}


def fill(labelled_store):
    for i, (rid, site, model, status, labels) in enumerate(RUNS):
        labelled_store.new_run(NewRun(f"task of {rid}", "http://example.test/", run_id=rid, site=site, model=model,
                             task_id=f"{site}--{i}", started=1000.0 + i))
        if status != "running":
            labelled_store.finish_run(rid, status, answer="an answer" if status == "answered" else None)
        labelled_store.set_run(rid, steps=i + 1)  # r1 has 1 step ... r12 has 12
        for who, (verdict, category) in labels.items():
            lb.set_label(labelled_store, rid, who, verdict, category=category)
    for (judge, k, pv), by_run in VERDICTS.items():
        for rid, v in by_run.items():
            lb.set_verdict(labelled_store, rid, judge, k, pv, v)


@pytest.fixture
def labelled_store(tmp_path):
    with Store(tmp_path) as s:
        fill(s)
        yield s


def test_human_matrix_and_consensus(labelled_store):
    m = human_matrix(labelled_store)
    assert m["r7"] == {"ada": 1}  # unsure left out
    assert human_matrix(labelled_store, binary=False)["r7"] == {"ada": "success", "bob": "unsure"}
    assert consensus(labelled_store) == {"r1": 1, "r2": 1, "r3": 0, "r4": 0, "r5": 1, "r6": 0, "r7": 1}  # r8 ties


def test_pairwise_cohen(labelled_store):
    rows = {(a, b): (n, agree, kappa) for a, b, n, agree, kappa in ag.pairwise_cohen(labelled_store)}
    assert set(rows) == {("ada", "bob"), ("ada", "cy"), ("bob", "cy")}
    # ada vs bob over r1-r6 and r8 (r7: bob unsure): agree on 6 of 7; ada 4 S 3 F, bob 3 S 4 F
    # kappa = (7*6 - (4*3 + 3*4)) / (49 - 24) = 18/25 = 0.72
    n, agree, kappa = rows[("ada", "bob")]
    assert (n, round(agree, 3), round(kappa, 3)) == (7, 0.857, 0.72)
    # ada vs cy over r1-r6: agree on r1 r3 r5 r6 (4/6); both 3 S 3 F -> p_e = .5 -> (2/3 - .5)/.5 = 1/3
    n, agree, kappa = rows[("ada", "cy")]
    assert (n, round(agree, 3), round(kappa, 3)) == (6, 0.667, 0.333)


def test_fleiss_over_three_annotators(labelled_store):
    # r1-r6 by ada, bob, cy; counts [success, fail]: [3,0] [2,1] [0,3] [1,2] [3,0] [0,3]
    # P-bar = (9+5+9+5+9+9 - 6*3) / (6*3*2) = 28/36; totals 9, 9 -> P-bar_e = .5
    # kappa = (0.7778 - 0.5) / 0.5 = 5/9 = 0.556
    assert ag.fleiss_group(labelled_store) == (["ada", "bob", "cy"], ["r1", "r2", "r3", "r4", "r5", "r6"])
    n_runs, n_raters, kappa = ag.fleiss(labelled_store)
    assert (n_runs, n_raters, round(kappa, 3)) == (6, 3, 0.556)


def test_fleiss_needs_three_annotators(tmp_path):
    with Store(tmp_path) as s:
        s.new_run(NewRun("t", "u", run_id="x"))
        lb.set_label(s, "x", "ada", "success")
        lb.set_label(s, "x", "bob", "success")
        assert ag.fleiss(s) == (0, 0, None)
        assert ag.judge_agreement(s) == []
        assert ag.pairwise_cohen(s) == [("ada", "bob", 1, 1.0, 1.0)]


def test_judge_agreement_table_per_k(labelled_store):
    rows = ag.judge_agreement(labelled_store)
    assert [(r["judge"], r["k_label"], r["prompt_version"]) for r in rows] == [
        ("claude", "1", "v2"), ("gpt-4o", "1", "v1"), ("gpt-4o", "3", "v1"), ("gpt-4o", "all", "v1")]
    by = {(r["judge"], r["k"]): r for r in rows}
    # k=1 over r1-r6 (r7 undecided, r8 has no consensus): humans 1 1 0 0 1 0, judge 1 0 0 1 0 0
    # agree r1 r3 r6 = 3/6; humans 3 S 3 F, judge 2 S 4 F: p_e = (6 + 12)/36 = .5 -> kappa 0 (chance)
    k1 = by[("gpt-4o", 1)]
    assert (k1["n"], k1["agreement"], k1["kappa"], k1["undecided"]) == (6, 0.5, 0.0, 1)
    assert (k1["tp"], k1["fn"], k1["fp"], k1["tn"]) == (1, 2, 1, 2)
    assert k1["confusion"] == {"success": {"success": 1, "fail": 2}, "fail": {"success": 1, "fail": 2}}
    # k=3 over r1-r7 (r9 has no human label): agree on all but r4 = 6/7
    # humans 4 S 3 F, judge 5 S 2 F: kappa = (7*6 - (20 + 6)) / (49 - 26) = 16/23 = 0.696
    k3 = by[("gpt-4o", 3)]
    assert (k3["n"], round(k3["agreement"], 3), round(k3["kappa"], 3)) == (7, 0.857, 0.696)
    assert (k3["tp"], k3["fn"], k3["fp"], k3["tn"]) == (4, 0, 1, 2)
    kall = by[("gpt-4o", 0)]
    assert (kall["n"], kall["agreement"], kall["kappa"]) == (7, 1.0, 1.0)
    # one run, both success: p_e = 1, the documented degenerate case
    assert (by[("claude", 1)]["n"], by[("claude", 1)]["kappa"]) == (1, 1.0)


def test_disagreements(labelled_store):
    rows = ag.disagreements(labelled_store)
    assert [r["run_id"] for r in rows] == ["r2", "r4", "r5", "r8"]
    r8 = rows[-1]
    assert r8["human"] is None and r8["annotators_disagree"] and r8["judges"] == []
    assert r8["labels"] == {"ada": "success", "bob": "fail"}
    assert r8["task"] == "task of r8"
    r5 = rows[2]
    assert not r5["annotators_disagree"] and r5["human"] == 1
    assert [(j["judge"], j["k"], j["verdict"]) for j in r5["judges"]] == [("gpt-4o", 1, 0)]
    assert "gpt-4o (k=1) says fail, humans say success" in r5["reasons"]
    only = ag.disagreements(labelled_store, judge="gpt-4o", k=3, annotators=False)
    assert [r["run_id"] for r in only] == ["r4"]
    assert [r["run_id"] for r in ag.disagreements(labelled_store, k=1, annotators=False)] == ["r2", "r4", "r5"]
    assert ag.disagreements(labelled_store, k=0, annotators=False) == []


def test_success_rates_prefer_humans_then_judges(labelled_store):
    by_site = {r[0]: r for r in success_rates(labelled_store, by="site")}
    assert list(by_site) == ["allrecipes", "amazon", "github"]
    assert by_site["allrecipes"][:3] == ("allrecipes", 3, 2)
    assert round(by_site["allrecipes"][3], 3) == 0.667
    assert by_site["allrecipes"][4] == {"human": 3, "judge": 0, "no_answer": 0, "unjudged": 0, "refused": 0, "not_executable": 0}
    # r8 (annotators tie) falls back to its judge verdict, 1
    assert by_site["github"][:4] == ("github", 5, 3, 0.6)
    assert by_site["github"][4] == {"human": 4, "judge": 1, "no_answer": 0, "unjudged": 0, "refused": 0, "not_executable": 0}
    # r9 judged success, r10 never answered (0), r11 answered but unjudged (left out), r12 running
    assert by_site["amazon"][:4] == ("amazon", 2, 1, 0.5)
    assert by_site["amazon"][4] == {"human": 0, "judge": 1, "no_answer": 1, "unjudged": 1, "refused": 0, "not_executable": 0}
    by_model = {r[0]: r[:4] for r in success_rates(labelled_store, by="model")}
    assert by_model == {"claude": ("claude", 5, 3, 0.6), "gpt-4o": ("gpt-4o", 5, 3, 0.6)}
    with pytest.raises(ValueError):
        success_rates(labelled_store, by="colour")


def test_a_run_refused_at_the_gate_counts_neither_way_unless_someone_judged_it(tmp_path):
    """Issue #20: a run a person stopped at the approval gate was counted as a failure 'no_answer'."""
    with Store(tmp_path) as labelled_store:
        for rid, status in (("g1", "refused"), ("g2", "refused"), ("g3", "max_steps"), ("g4", "answered")):
            labelled_store.new_run(NewRun(f"task of {rid}", "http://example.test/", run_id=rid, site="shop", model="m"))
            labelled_store.finish_run(rid, status, answer="done" if status == "answered" else None)
        lb.set_label(labelled_store, "g2", "ada", "fail")
        lb.set_verdict(labelled_store, "g4", "gpt-4o", 1, "v1", 1)
        assert run_outcomes(labelled_store) == {"g1": (None, "refused"), "g2": (0, "human"), "g3": (0, "no_answer"),
                                          "g4": (1, "judge")}
        [(site, n, ok, rate, sources)] = success_rates(labelled_store)
        assert (site, n, ok) == ("shop", 3, 1)
        assert sources == {"human": 1, "judge": 1, "no_answer": 1, "unjudged": 0, "refused": 1, "not_executable": 0}


def test_failure_categories(labelled_store):
    # failed by consensus: r3 (Navigation stuck 2 vs 1), r4 (Hallucination; bob gave none),
    # r6 (Visual grounding vs Hallucination tie -> the one listed first). r2's and r8's 'Loop' do not
    # count: r2 succeeded and r8 has no consensus.
    assert failure_categories(labelled_store) == {"Navigation stuck": 1, "Visual grounding issue": 1,
                                                     "Hallucination": 1}
    lb.set_label(labelled_store, "r7", "bob", "fail")  # r7 now ties: still no fail consensus
    lb.set_label(labelled_store, "r7", "cy", "fail")  # now 2 fail vs 1 success, no category given
    cats = failure_categories(labelled_store)
    assert cats[""] == 1 and sum(cats.values()) == 4


def test_steps_histogram(labelled_store):
    # finished runs r1..r11 have 1..11 steps; 5 bins of width ceil(11/5) = 3 from 1, the empty fifth dropped
    assert steps_histogram(labelled_store, 5) == [(1, 4, 3), (4, 7, 3), (7, 10, 3), (10, 13, 2)]
    assert steps_histogram(labelled_store, [0, 5, 10, 11]) == [(0, 5, 4), (5, 10, 5), (10, 11, 2)]  # last bin closed
    assert sum(c for _, _, c in steps_histogram(labelled_store)) == 11


def test_report_is_json_ready(labelled_store):
    rep = json.loads(json.dumps(ag.report(labelled_store)))
    assert rep["fleiss"] == {"n_runs": 6, "n_raters": 3, "kappa": pytest.approx(5 / 9),
                             "annotators": ["ada", "bob", "cy"]}
    assert len(rep["disagreements"]) == 4


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------

def test_cli_prints_the_tables(tmp_path):
    with Store(tmp_path) as s:
        fill(s)
    r = cockpit(tmp_path, "agreement")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    lines = out.splitlines()
    assert any(l.split() == ["ada", "vs", "bob", "7", "85.7%", "0.720"] for l in lines), out
    assert "kappa 0.556 over 6 runs, 3 annotators (ada, bob, cy)" in out
    assert any(l.split() == ["gpt-4o", "3", "v1", "7", "85.7%", "0.696", "0", "0"] for l in lines), out
    assert any(l.split() == ["gpt-4o", "1", "v1", "6", "50.0%", "0.000", "1", "0"] for l in lines), out
    assert any(l.split() == ["gpt-4o", "all", "v1", "7", "100.0%", "1.000", "0", "0"] for l in lines), out
    assert any(l.split()[:5] == ["github", "5", "3", "60.0%", "4"] for l in lines), out
    assert "Navigation stuck" in out
    assert "Disagreements" not in out
    r = cockpit(tmp_path, "agreement", "--disagreements", "--judge", "gpt-4o", "--k", "3")
    assert r.returncode == 0, r.stderr
    tail = r.stdout.split("Disagreements", 1)[1]
    assert "r4" in tail and "gpt-4o (k=3) says success, humans say fail" in tail
    assert "annotators disagree (1 success, 1 fail)" in tail  # r8


def test_cli_json(tmp_path):
    with Store(tmp_path) as s:
        fill(s)
    r = cockpit(tmp_path, "agreement", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    pair = rep["pairwise_cohen"][0]
    assert (pair["annotator1"], pair["annotator2"], pair["n"], pair["kappa"]) == ("ada", "bob", 7, 0.72)
    k3 = next(j for j in rep["judges"] if j["judge"] == "gpt-4o" and j["k"] == 3)
    assert round(k3["kappa"], 3) == 0.696 and k3["confusion"]["fail"]["success"] == 1
    assert [d["run_id"] for d in rep["disagreements"]] == ["r2", "r4", "r5", "r8"]
    assert rep["failure_categories"]["Navigation stuck"] == 1


def test_cli_on_an_empty_store(tmp_path):
    r = cockpit(tmp_path, "agreement")
    assert r.returncode == 0, r.stderr
    assert "no run labelled by two annotators" in r.stdout
    assert "no judge verdicts yet" in r.stdout
