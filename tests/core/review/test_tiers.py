"""Difficulty tiers from people's own attempts and the agent/human step ratio (#42), over real stores whose runs
have known step counts; and `cockpit tiers` reading the same store."""
import json

import pytest

from cockpit.core.review.tiers import tier, tier_report
from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun
from testkit.fakeruns import make_run
from tests.clitools import cockpit, ok


@pytest.mark.parametrize("steps, name", [(0, "easy"), (1, "easy"), (5, "easy"), (6, "medium"), (10, "medium"),
                                         (11, "hard"), (40, "hard")])
def test_online_mind2web_tiers(steps, name):
    assert tier(steps) == name


def _store(home) -> dict:
    """Tasks of known human and agent steps (fakeruns: `steps` rows, the last an ANSWER step when answered)."""
    ids = {}
    with Store(home) as s:
        # A: two attempts, 4 and 7 actions (the fewest counts); one agent run of 8 actions, then its answer
        ids["a_h1"] = make_run(s, steps=5, task="Task A", task_id="A", model="human")
        ids["a_h2"] = make_run(s, steps=8, task="Task A", task_id="A", model="human")
        ids["a_agent"] = make_run(s, steps=9, task="Task A", task_id="A", model="gpt-4o")
        # B: 6 actions (medium's first); an agent of 12 actions; another of 3 that ran out of steps (no answer)
        ids["b_h"] = make_run(s, steps=7, task="Task B", task_id="B", model="human")
        ids["b_agent"] = make_run(s, steps=13, task="Task B", task_id="B", model="gpt-4o")
        ids["b_other"] = make_run(s, steps=3, task="Task B", task_id="B", model="ui-tars", answer=None,
                                  status="max_steps")
        # C: 11 actions (hard); an agent of 22 actions
        ids["c_h"] = make_run(s, steps=12, task="Task C", task_id="C", model="human")
        ids["c_agent"] = make_run(s, steps=23, task="Task C", task_id="C", model="gpt-4o")
        # D: the person gave up after 2 actions: no tier, the agent's run has no ratio
        ids["d_h"] = make_run(s, steps=2, task="Task D", task_id="D", model="human", answer=None, status="gave_up")
        ids["d_agent"] = make_run(s, steps=4, task="Task D", task_id="D", model="gpt-4o")
        # E: agents only; F: an attempt still running: neither is reported
        make_run(s, steps=4, task="Task E", task_id="E", model="gpt-4o")
        s.new_run(NewRun("Task F", "https://example.com/", task_id="F", model="human"))
    return ids


def test_tiers_and_ratios_over_a_real_store(tmp_path):
    ids = _store(tmp_path / "home")
    with Store(tmp_path / "home") as s:
        rep = tier_report(s)
    tasks = {t["task_key"]: t for t in rep["tasks"]}
    assert [t["task_key"] for t in rep["tasks"]] == ["A", "B", "C", "D"]  # easy, medium, hard, then no tier
    assert (tasks["A"]["human_steps"], tasks["A"]["tier"]) == (4, "easy")
    assert sorted(tasks["A"]["attempts"]) == sorted([ids["a_h1"], ids["a_h2"]])
    assert [(a["run_id"], a["steps"], a["ratio"]) for a in tasks["A"]["agents"]] == [(ids["a_agent"], 8, 2.0)]
    assert (tasks["B"]["human_steps"], tasks["B"]["tier"]) == (6, "medium")
    assert {a["run_id"]: (a["steps"], a["ratio"]) for a in tasks["B"]["agents"]} == {
        ids["b_agent"]: (12, 2.0), ids["b_other"]: (3, 0.5)}
    assert (tasks["C"]["human_steps"], tasks["C"]["tier"], tasks["C"]["agents"][0]["ratio"]) == (11, "hard", 2.0)
    d = tasks["D"]
    assert (d["human_steps"], d["tier"], d["gave_up"], d["agents"][0]["ratio"]) == (None, "", 1, None)
    assert rep["tiers"] == {"easy": 1, "medium": 1, "hard": 1}
    assert rep["mean_ratio"] == {"gpt-4o": 2.0, "ui-tars": 0.5}


def test_cockpit_tiers_reads_the_store(tmp_path):
    home = tmp_path / "home"
    ids = _store(home)
    out = ok(cockpit(home, "tiers"))
    assert "Tiers: easy 1 task, medium 1 task, hard 1 task" in out
    assert "A  [easy]  4 human steps" in out and "D  [-]  no answered attempt, 1 given up" in out
    assert f"{ids['b_other']}" in out and "ratio 0.50" in out
    assert "Mean agent/human step ratio: gpt-4o 2.00; ui-tars 0.50" in out
    rep = json.loads(ok(cockpit(home, "tiers", "--json")))
    assert [t["tier"] for t in rep["tasks"]] == ["easy", "medium", "hard", ""]
    empty = ok(cockpit(tmp_path / "empty", "tiers"))
    assert empty.startswith("No human attempt yet")


def test_people_s_attempts_stay_out_of_the_sites_rates_and_judge_all(tmp_path):
    """A site's success rate is the agents'; a given-up attempt is not one of its failures. The attempts have their
    own row by model, and `cockpit judge --all` judges them only when named."""
    from cockpit.core.review.outcomes import success_rates
    home = tmp_path / "home"
    ids = _store(home)
    with Store(home) as s:
        sites = {r[0]: r for r in success_rates(s, "site")}
        models = {r[0]: r for r in success_rates(s, "model")}
        site = s.run(ids["a_agent"])["site"]
        agents = [r for r in s.run_summaries() if r["model"] != "human" and (r["site"] or "") == (site or "")]
    assert sum(sites[site or ""][4].values()) == len(agents)  # every run of the site counted is an agent's
    assert "human" in models and models["human"][4]["no_answer"] == 1  # D's attempt, given up: in its own row
    r = cockpit(home, "judge", "--all", "--no-canary", "--reference-only")
    assert ids["d_h"] not in r.stdout + r.stderr and ids["a_agent"] in r.stdout + r.stderr, r.stdout + r.stderr


def test_people_s_attempts_are_no_agent_s_outcome(tmp_path):
    """A given-up attempt is not a failure of the agents: it is in no outcome, no assisted success and no
    disagreement; asked for, its outcome is there (no answer)."""
    from cockpit.core.review.agreement import report
    from cockpit.core.review.outcomes import assisted_success, run_outcomes
    home = tmp_path / "home"
    ids = _store(home)
    with Store(home) as s:
        agents = run_outcomes(s)
        everyone = run_outcomes(s, people=True)
        assisted = assisted_success(s)
        rep = report(s)
    assert {rid for rid, (_ok, source) in agents.items() if source == "no_answer"} == {ids["b_other"]}
    assert everyone[ids["d_h"]] == (0, "no_answer") and ids["d_h"] not in agents
    assert (assisted["n"], [m["model"] for m in assisted["by_model"]]) == (1, ["ui-tars"])
    assert [r["model"] for r in rep["success_by_model"]] == ["gpt-4o", "human", "ui-tars"]
    assert sum(sum(r["sources"].values()) for r in rep["success_by_site"]) == 6  # the agents' six finished runs
