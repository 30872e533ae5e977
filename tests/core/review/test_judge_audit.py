"""Judges read as instruments: false-positive rate and accuracy with their intervals (against a textbook
bootstrap), the split by site, agent, level and prompt version (never pooled), and runs whose consensus is
neither success nor fail counted apart."""
import json

import pytest

from cockpit.core.review import agreement as ag
from cockpit.core.review.bootstrap import Bootstrap
from cockpit.core.store import Store
from cockpit.core.store import labels as lb
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit
from tests.core.review.test_agreement_intervals import _items_in_report_order, agreement_of, synthetic, textbook


def fpr_of(sample):
    failed = [j for h, j in sample if h == 0]
    return sum(failed) / len(failed) if failed else None


def test_false_positive_rate_and_accuracy_match_a_textbook_bootstrap(tmp_path):
    with Store(tmp_path) as store:
        synthetic(store, 150, seed=5, judge_skill=0.7)
        (row,) = ag.judge_agreement(store, boot=Bootstrap())
    items = _items_in_report_order(tmp_path)
    fails = [j for h, j in items if h == 0]
    assert row["fpr"] == pytest.approx(sum(fails) / len(fails)) and row["fp"] + row["tn"] == len(fails)
    assert row["fpr_ci"] == pytest.approx(textbook(items, fpr_of), abs=1e-12)
    assert row["accuracy"] == row["agreement"]
    assert row["accuracy_ci"] == pytest.approx(textbook(items, agreement_of), abs=1e-12)
    assert row["fpr_ci"][0] <= row["fpr"] <= row["fpr_ci"][1]


# run: (site, agent model, source, level, human verdict, {prompt version: judge verdict})
RUNS = [
    ("shop.a", "gpt-agent", "cockpit", "easy", "success", {"v1": 1, "v2": 1}),
    ("shop.a", "gpt-agent", "cockpit", "easy", "fail", {"v1": 1, "v2": 0}),
    ("shop.a", "gpt-agent", "cockpit", "hard", "fail", {"v1": 1, "v2": 0}),
    ("shop.b", "ui-tars", "mind2web", "hard", "success", {"v1": 0, "v2": 1}),
    ("shop.b", "ui-tars", "mind2web", "medium", "success", {"v1": 1, "v2": 1}),
    ("shop.b", "ui-tars", "mind2web", None, "fail", {"v1": 0, "v2": 1}),
]


@pytest.fixture
def split_store(tmp_path):
    with Store(tmp_path) as store:
        for i, (site, model, source, level, human, judged) in enumerate(RUNS):
            rid = f"r{i}"
            store.new_run(NewRun(f"task {i}", f"http://{site}/", run_id=rid, site=site, model=model, source=source,
                                 config={"level": level} if level else {}, started=float(i)))
            store.finish_run(rid, "answered", answer="a")
            lb.set_label(store, rid, "ada", human)
            for pv, v in judged.items():
                lb.set_verdict(store, rid, "judge-m", 3, pv, v)
    return tmp_path


def _rows(root, by):
    with Store(root) as store:
        return {(r["group"], r["prompt_version"]): r for r in ag.judge_agreement(store, by=by)}


def test_prompt_versions_are_never_pooled(split_store):
    plain = _rows(split_store, None)
    assert set(plain) == {(None, "v1"), (None, "v2")} and all(r["n"] == 6 for r in plain.values())
    # v1: tp 2 (r0, r4), fn 1 (r3), fp 2 (r1, r2), tn 1 (r5); v2: tp 3, fn 0, fp 1 (r5), tn 2
    assert [plain[(None, "v1")][x] for x in ("tp", "fn", "fp", "tn")] == [2, 1, 2, 1]
    assert [plain[(None, "v2")][x] for x in ("tp", "fn", "fp", "tn")] == [3, 0, 1, 2]
    assert plain[(None, "v1")]["fpr"] == pytest.approx(2 / 3) and plain[(None, "v2")]["fpr"] == pytest.approx(1 / 3)
    by_version = _rows(split_store, "prompt-version")
    assert set(by_version) == {("v1", "v1"), ("v2", "v2")}
    assert by_version[("v1", "v1")]["kappa"] == plain[(None, "v1")]["kappa"]
    assert by_version[("v2", "v2")]["kappa"] == pytest.approx(plain[(None, "v2")]["kappa"])
    assert by_version[("v2", "v2")]["kappa"] > by_version[("v1", "v1")]["kappa"]


def test_split_by_site_agent_and_level(split_store):
    site = _rows(split_store, "site")
    assert {g for g, _ in site} == {"shop.a", "shop.b"} and site[("shop.a", "v1")]["n"] == 3
    assert site[("shop.a", "v1")]["fpr"] == 1.0 and site[("shop.b", "v1")]["fpr"] == 0.0
    agent = _rows(split_store, "agent")
    assert {g for g, _ in agent} == {"gpt-agent", "ui-tars (mind2web)"}
    level = _rows(split_store, "level")
    assert {g for g, _ in level} == {"easy", "medium", "hard", "(none)"}
    assert (level[("hard", "v2")]["n"], level[("hard", "v2")]["tp"], level[("hard", "v2")]["tn"]) == (2, 1, 1)
    assert level[("(none)", "v1")]["n"] == 1


def test_runs_neither_success_nor_fail_are_counted_apart_never_as_failures(split_store):
    with Store(split_store) as store:
        reference = {"r0": 1, "r1": 0, "r2": "not_executable", "r5": "not_executable"}
        rows = {r["prompt_version"]: r for r in ag.judge_agreement(store, reference=reference)}
    v1 = rows["v1"]
    assert (v1["n"], v1["not_binary"], v1["fp"], v1["tn"], v1["tp"]) == (2, 2, 1, 0, 1)


def test_cli_splits_and_keeps_json(split_store):
    out = cockpit(split_store, "agreement", "--by", "level", "--resamples", "200").stdout
    section = out.split("Judges vs human consensus by level", 1)[1].split("\n\n", 1)[0]
    lines = section.splitlines()
    assert lines[1].split()[:8] == ["comparison", "n", "accuracy", "kappa", "precision", "recall", "false", "pos."]
    hard = next(line for line in lines if line.strip().startswith("hard: judge-m k=3 v1 "))
    assert hard.split()[4] == "2" and "[" in hard
    rep = json.loads(cockpit(split_store, "agreement", "--by", "agent", "--json", "--resamples", "200").stdout)
    assert rep["split"]["by"] == "agent"
    assert {r["group"] for r in rep["split"]["judges"]} == {"gpt-agent", "ui-tars (mind2web)"}
    assert all(len(r["fpr_ci"]) == 2 for r in rep["split"]["judges"] if r["fp"] + r["tn"])
    assert rep["judges"][0]["canary"]["checked"] is False and rep["flagged_judges"] == []
    bad = cockpit(split_store, "agreement", "--by", "colour")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
    helptext = cockpit(split_store, "agreement", "--help").stdout
    assert "--by SPLIT" in helptext and "false-positive rate" in helptext and "canary" in helptext
