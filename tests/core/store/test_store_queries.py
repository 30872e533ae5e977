"""The store's named reads (cockpit.core.store.queries) on a real SQLite store."""
import json

import pytest

from cockpit.core.store import labels as L
from cockpit.core.store.newrun import NewRun
from cockpit.core.store.queries import RunFilter


def _run(store, task, *, started, status="answered", site="", model="m1", task_id="", **fields):
    rid = store.new_run(NewRun(task, "http://example.test/", site=site, model=model, task_id=task_id,
                               started=started, status=status))
    if fields:
        store.set_run(rid, **fields)
    return rid


def test_the_status_filter_gives_exactly_the_runs_with_that_status_in_start_order(store):
    a = _run(store, "find a flight", started=30, status="failed")
    b = _run(store, "find a hotel", started=10, status="answered")
    c = _run(store, "find a train", started=20, status="failed")
    _run(store, "still going", started=40, status="running")
    assert store.filtered_run_ids(RunFilter(status="failed"), "started", descending=False) == [c, a]
    assert store.filtered_run_ids(RunFilter(status="failed"), "started") == [a, c]
    # no filter: every run except the running one, newest first
    assert store.filtered_run_ids(RunFilter()) == [a, c, b]
    assert store.finished_run_ids() == [b, c, a]


def test_filters_by_words_site_and_human_and_judge_verdicts(store):
    a = _run(store, "book a table in Paris", started=1, site="resy")
    b = _run(store, "book a flight to Rome", started=2, site="kayak")
    c = _run(store, "buy socks", started=3, site="kayak")
    assert store.filtered_run_ids(RunFilter(search="book"), "started", False) == [a, b]
    assert store.filtered_run_ids(RunFilter(site="kayak"), "started", False) == [b, c]
    L.set_label(store, a, "ada", "success")
    L.set_label(store, b, "bob", "fail")
    assert store.filtered_run_ids(RunFilter(human="fail"), "started", False) == [b]
    assert store.filtered_run_ids(RunFilter(human="unlabelled"), "started", False) == [c]
    assert store.filtered_run_ids(RunFilter(human="unlabelled", annotator="ada"), "started", False) == [b, c]
    L.set_verdict(store, c, "judge-model", 3, "v1", 1)
    L.set_verdict(store, b, "ref:must_include", 0, "v1", 1)  # a reference check is not the Judge column
    assert store.filtered_run_ids(RunFilter(judge="success"), "started", False) == [c]
    assert store.filtered_run_ids(RunFilter(judge="unjudged"), "started", False) == [a, b]
    # sorted by the Human column: runs without labels (NULL) first when ascending
    assert store.filtered_run_ids(RunFilter(), "human", False) == [c, a, b]


def test_filters_by_date_range_annotator_agreement_and_the_two_other_axes(store):
    a = _run(store, "one", started=100)
    b = _run(store, "two", started=200)
    c = _run(store, "three", started=300)
    assert store.filtered_run_ids(RunFilter(since=150, until=300), "started", False) == [b]
    L.set_label(store, a, "ada", "success", side_effects="yes")
    L.set_label(store, a, "bob", "success", side_effects="no", repetition="yes")
    L.set_label(store, b, "ada", "success")
    L.set_label(store, b, "bob", "fail", repetition="yes")
    L.set_label(store, c, "ada", "fail")  # one annotator: neither agreement nor disagreement
    assert store.filtered_run_ids(RunFilter(agreement="agree"), "started", False) == [a]
    assert store.filtered_run_ids(RunFilter(agreement="disagree"), "started", False) == [b]
    assert store.filtered_run_ids(RunFilter(side_effects="yes"), "started", False) == [a]
    assert store.filtered_run_ids(RunFilter(side_effects="yes", annotator="bob"), "started", False) == []
    assert store.filtered_run_ids(RunFilter(repetition="yes"), "started", False) == [a, b]
    assert store.filtered_run_ids(RunFilter(repetition="yes", human="fail"), "started", False) == [b]
    with pytest.raises(ValueError, match="agree"):
        store.filtered_run_ids(RunFilter(agreement="maybe"))


def test_table_rows_keep_the_asked_order_and_show_labels_and_the_newest_judge_verdict(store):
    a = _run(store, "first", started=1)
    b = _run(store, "second", started=2)
    L.set_label(store, a, "ada", "success")
    L.set_label(store, a, "bob", "unsure")
    L.set_verdict(store, a, "judge-model", 3, "v1", 0)
    rows = store.table_rows([b, "no-such-run", a])
    assert [r["id"] for r in rows] == [b, a]
    assert rows[0]["human"] is None and rows[0]["judge"] is None
    assert sorted(rows[1]["human"].split()) == ["ada:success", "bob:unsure"]
    assert rows[1]["judge"] == "fail"
    assert store.human_verdicts_text(a) == rows[1]["human"]
    assert store.human_verdicts_text(b) is None
    assert store.table_rows([]) == []


def test_distinct_values_leave_out_empty_ones_and_refuse_other_columns(store):
    _run(store, "a", started=1, site="kayak", model="m2")
    _run(store, "b", started=2, site="", model="m1")
    _run(store, "c", started=3, site="kayak", model="m1")
    assert store.distinct_values("site") == ["kayak"]
    assert store.distinct_values("model") == ["m1", "m2"]
    with pytest.raises(ValueError):
        store.distinct_values("task; DROP TABLE runs")


def test_other_runs_of_a_task_match_by_task_id_or_text_newest_first(store):
    a = _run(store, "find a flight", started=1, task_id="t1")
    b = _run(store, "find a flight, again", started=2, task_id="t1")
    c = _run(store, "find a flight", started=3)
    _run(store, "something else", started=4)
    assert [r["id"] for r in store.other_runs_of_task(a, "t1", "find a flight")] == [c, b]
    assert [r["id"] for r in store.other_runs_of_task(c, "", "find a flight")] == [a]


def test_hop_results_and_step_hops(store):
    a = _run(store, "two hops", started=1, hops=json.dumps({"total": 2, "passed": 1}), batch="b1")
    b = _run(store, "one hop", started=2, hops=json.dumps({"total": 1, "passed": 1}))
    _run(store, "not tracked", started=3)
    assert store.run_hops(a) == {"total": 2, "passed": 1}
    assert [r["id"] for r in store.hop_results()] == [a, b]
    assert [r["id"] for r in store.hop_results(batch="b1")] == [a]
    assert [r["id"] for r in store.hop_results([b])] == [b]
    assert store.hop_results([]) == []
    store.commit_step(a, {"step": 1, "action": "Click [1]", "hops": {"passed": 1, "total": 2, "new": [1]}})
    store.commit_step(a, {"step": 2, "action": "Click [2]"})
    assert store.step_hops(a) == {1: {"passed": 1, "total": 2, "new": [1]}}


def test_memory_reads_similar_runs_outcomes_and_the_agents_actions(store):
    a = _run(store, "order pizza online", started=1, memories=json.dumps(["x"]))
    _run(store, "order sushi", started=2, status="running")
    store.commit_step(a, {"step": 1, "action": "Click [3]", "status": "ok"})
    store.commit_step(a, {"step": 2, "action": "Type [1]; me", "status": "ok", "actor": "human"})
    store.commit_step(a, {"step": 3, "action": "Scroll down", "status": "failed"})
    store.commit_step(a, {"step": 4, "action": "ANSWER; done", "status": "answered"})
    assert [r["id"] for r in store.similar_runs('"order"', 5)] == [a]  # running runs are no memory
    assert [r["action"] for r in store.agent_actions(a)] == ["Click [3]", "ANSWER; done"]
    assert store.used_memories(a) == ["x"]
    L.set_label(store, a, "ada", "success")
    L.set_verdict(store, a, "j", 0, "v1", None)  # undecided: left out
    L.set_verdict(store, a, "k", 0, "v1", 1)
    assert [(r["annotator"], r["verdict"]) for r in store.run_labels([a])] == [("ada", "success")]
    assert [r["verdict"] for r in store.decided_verdicts([a])] == [1]


def test_summaries_step_counts_and_screenshots(store):
    a = _run(store, "a", started=2)
    b = _run(store, "b", started=1)
    _run(store, "c", started=3, status="running")
    store.commit_step(a, {"step": 1, "screenshot": "runs/a/1.png"})
    store.commit_step(a, {"step": 2, "screenshot_clean": "runs/a/2.png"})
    assert [r["id"] for r in store.run_summaries()][:2] == [b, a]
    assert sorted(store.finished_step_counts()) == [0, 2]
    shots = store.step_screenshots(a)
    assert [(s["step"], s["screenshot"], s["screenshot_clean"]) for s in shots] == [
        (1, "runs/a/1.png", None), (2, None, "runs/a/2.png")]


def test_step_records_carry_the_plan_and_prediction_typed(store):
    a = _run(store, "plan a trip", started=1, hops=json.dumps({"total": 1, "passed": 1}))
    plan = {"k": 2, "chosen": 1, "picked": 2, "picked_by": "human:ada", "candidates": [
        {"index": 1, "action": "Click [1]", "risk": "low", "simulation": [{"action": "Click [1]", "change": "opens"}],
         "scores": [0.5, 1.0], "mean": 0.75},
        {"index": 2, "action": "Click [2]", "dropped": "duplicate", "mean": None}]}
    prediction = {"action": "Click [2]", "text": "the cart opens", "model": "wm", "source": "plan",
                  "actual": {"url_before": "a", "url_after": "b"}}
    store.commit_step(a, {"step": 1, "action": "Click [2]", "plan": plan, "prediction": prediction,
                          "plan_calls": 3, "flags": ["noop"]})
    store.commit_step(a, {"step": 2, "action": "ANSWER; done"})
    first, second = store.step_records(a)
    assert (first.step, first.action, first.flags, first.plan_calls) == (1, "Click [2]", ["noop"], 3)
    assert first.prediction.text == "the cart opens" and first.prediction.source == "plan"
    assert first.prediction.actual == {"url_before": "a", "url_after": "b"}
    assert (first.plan.chosen, first.plan.picked, first.plan.picked_by) == (1, 2, "human:ada")
    c1, c2 = first.plan.candidates
    assert (c1.index, c1.mean, c1.simulation[0]["change"]) == (1, 0.75, "opens")
    assert (c2.index, c2.mean, c2.dropped) == (2, None, "duplicate")
    assert second.plan is None and second.prediction is None and second.plan_calls == 0
    run = store.run_record(a)
    assert (run.id, run.task, run.steps, run.hops, run.demo) == (a, "plan a trip", 2, {"total": 1, "passed": 1}, False)


def test_a_step_row_not_from_the_store_reads_the_same():
    from cockpit.core.store.records import Step
    live = Step.from_row({"step": 3, "plan": {"chosen": 1, "candidates": [{"index": 1, "action": "Scroll down"}]},
                          "prediction": json.dumps({"text": "", "error": "timeout"})})
    assert live.plan.picked == 1 and live.plan.candidates[0].action == "Scroll down"
    assert live.prediction.error == "timeout" and live.prediction.text == ""
    assert Step.from_row({"step": 1, "prediction": {}}).prediction is None
