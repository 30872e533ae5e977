"""Agreement with bootstrap intervals: checked against a textbook bootstrap written out here, over the same
seeded draws; the success-rate gap against hand-computed values; the CLI states how they were made."""
import json
import random
import statistics

import pytest

from cockpit.core.review import agreement as ag
from cockpit.core.review.bootstrap import Bootstrap
from cockpit.core.review.consensus import consensus
from cockpit.core.review.kappa import cohen_kappa, fleiss_kappa, percent_agreement
from cockpit.core.store import Store
from cockpit.core.store import labels as lb
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit
from tests.core.review.test_agreement import fill


def textbook(items, figure, resamples=2000, seed=0):
    """Efron & Tibshirani's percentile interval, the long way: resample the runs with replacement, compute the
    figure on the resampled lists, take the 2.5th and 97.5th percentiles (undefined values dropped)."""
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        sample = rng.choices(items, k=len(items))
        v = figure(sample)
        if v is not None:
            values.append(v)
    cuts = statistics.quantiles(values, n=40, method="inclusive")
    return cuts[0], cuts[-1]


def kappa_of(sample):
    return cohen_kappa([a for a, _ in sample], [b for _, b in sample])


def agreement_of(sample):
    return percent_agreement([a for a, _ in sample], [b for _, b in sample])


def precision_of(sample):
    said = [h for h, j in sample if j == 1]
    return sum(said) / len(said) if said else None


def recall_of(sample):
    real = [j for h, j in sample if h == 1]
    return sum(real) / len(real) if real else None


def gap_of(sample):
    return (sum(j for _, j in sample) - sum(h for h, _ in sample)) / len(sample)


def synthetic(store, n, seed=1, judge_skill=0.8):
    """n runs, three annotators right 85% of the time, a judge right `judge_skill` of the time."""
    rng = random.Random(seed)
    for i in range(n):
        rid = f"r{i}"
        store.new_run(NewRun(f"task {i}", "http://example.test/", run_id=rid))
        store.finish_run(rid, "answered", answer="a")
        truth = rng.random() < 0.4
        for who in ("ada", "bob", "cy"):
            v = truth if rng.random() < 0.85 else not truth
            lb.set_label(store, rid, who, "success" if v else "fail")
        v = truth if rng.random() < judge_skill else not truth
        lb.set_verdict(store, rid, "judge-m", 3, "v1", int(v))


def test_judge_intervals_match_a_textbook_bootstrap(tmp_path):
    with Store(tmp_path) as store:
        synthetic(store, 120)
        (row,) = ag.judge_agreement(store, boot=Bootstrap())
    items = _items_in_report_order(tmp_path)  # the same seeded draws pick the same runs only in the same order
    assert len(items) == row["n"] == 120
    for name, figure in (("kappa", kappa_of), ("agreement", agreement_of), ("precision", precision_of),
                         ("recall", recall_of), ("gap", gap_of)):
        lo, hi = textbook(items, figure)
        assert row[f"{name}_ci"] == pytest.approx((lo, hi), abs=1e-12), name
        assert lo <= row[name] <= hi, name


def _items_in_report_order(root):
    with Store(root) as store:
        cons = consensus(store)
        return [(cons[v["run_id"]], v["verdict"]) for v in lb.verdicts(store) if v["run_id"] in cons]


def test_pair_and_fleiss_intervals_match_a_textbook_bootstrap(tmp_path):
    with Store(tmp_path) as store:
        synthetic(store, 80)
        rep = ag.report(store, disagreement_list=False, boot=Bootstrap(resamples=1000, seed=7))
        items = ag.pairwise_items(store)[("ada", "bob")]
        table = ag.fleiss_table(store)
    pair = next(r for r in rep["pairwise_cohen"] if (r["annotator1"], r["annotator2"]) == ("ada", "bob"))
    assert pair["kappa_ci"] == pytest.approx(textbook(items, kappa_of, 1000, 7), abs=1e-12)
    assert pair["agreement_ci"] == pytest.approx(textbook(items, agreement_of, 1000, 7), abs=1e-12)
    rows = [tuple(r) for r in table]
    assert rep["fleiss"]["kappa_ci"] == pytest.approx(
        textbook(rows, lambda sample: fleiss_kappa([list(r) for r in sample]), 1000, 7), abs=1e-12)
    assert rep["intervals"] == "95% intervals: percentile bootstrap over runs, 1000 resamples, seed 7"


def test_more_runs_give_a_narrower_interval(tmp_path):
    widths = {}
    for n in (40, 600):
        with Store(tmp_path / str(n)) as store:
            synthetic(store, n, seed=3)
            (row,) = ag.judge_agreement(store, boot=Bootstrap())
        lo, hi = row["kappa_ci"]
        widths[n] = hi - lo
    assert widths[600] < widths[40] / 2.5, widths  # about sqrt(15) = 3.9 times narrower


def test_the_seed_fixes_the_intervals(tmp_path):
    with Store(tmp_path) as store:
        synthetic(store, 60)
        a, b = (ag.judge_agreement(store, boot=Bootstrap(seed=s))[0]["kappa_ci"] for s in (0, 0))
        c = ag.judge_agreement(store, boot=Bootstrap(seed=1))[0]["kappa_ci"]
    assert a == b and a != c


def test_the_success_rate_gap_by_hand(tmp_path):
    with Store(tmp_path) as store:
        fill(store)
        by = {(r["judge"], r["k"]): r for r in ag.judge_agreement(store)}
    # k=3 over r1-r7: humans 4 S of 7, judge 5 S of 7 -> gap +1/7
    k3 = by[("gpt-4o", 3)]
    assert (k3["human_rate"], k3["judge_rate"]) == (pytest.approx(4 / 7), pytest.approx(5 / 7))
    assert k3["gap"] == pytest.approx(1 / 7)
    # k=1 over r1-r6: humans 3 S, judge 2 S -> gap -1/6
    assert by[("gpt-4o", 1)]["gap"] == pytest.approx(-1 / 6)


def test_an_undefined_precision_has_no_interval(tmp_path):
    with Store(tmp_path) as store:
        for i in range(5):  # the judge never says success: precision is 0/0 on every resample
            store.new_run(NewRun("t", "u", run_id=f"x{i}"))
            lb.set_label(store, f"x{i}", "ada", "success")
            lb.set_verdict(store, f"x{i}", "j", 0, "v", 0)
        (row,) = ag.judge_agreement(store, boot=Bootstrap(resamples=200))
    assert row["precision"] is None and row["precision_ci"] is None
    assert row["recall_ci"] == (0.0, 0.0) and row["gap_ci"] == (-1.0, -1.0)


def test_cli_prints_every_figure_with_its_interval_and_how(tmp_path):
    with Store(tmp_path) as s:
        fill(s)
    out = cockpit(tmp_path, "agreement").stdout
    section = out.split("With 95% intervals: percentile bootstrap over runs, 2000 resamples, seed 0\n", 1)[1]
    lines = section.split("\n\n", 1)[0].splitlines()
    assert lines[0].split() == ["comparison", "n", "accuracy", "kappa", "precision", "recall", "false", "pos.",
                                "gap", "(judge", "-", "humans)"]
    k3 = next(l for l in lines if l.strip().startswith("gpt-4o k=3 v1 "))
    assert "85.7% [" in k3 and "0.696 [" in k3 and "+14.3 pts [" in k3
    assert any(l.strip().startswith("Fleiss: ada, bob, cy") and "0.556 [" in l for l in lines)
    assert any(l.strip().startswith("ada vs bob") and "0.720 [" in l for l in lines)
    rep = json.loads(cockpit(tmp_path, "agreement", "--json", "--resamples", "500", "--seed", "3").stdout)
    assert rep["intervals"].endswith("500 resamples, seed 3") and len(rep["judges"][0]["kappa_ci"]) == 2
    bare = cockpit(tmp_path, "agreement", "--resamples", "0").stdout
    assert "intervals" not in bare and "Judges vs human consensus" in bare
    assert cockpit(tmp_path, "agreement", "--resamples", "-1").returncode == 2
