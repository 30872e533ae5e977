"""Key points per task (typed, else WebJudge's first stage) and each annotator's ticks, each bound to a step."""
from cockpit.core.review.key_points import of_run, split_points
from cockpit.core.store import judge_stages
from cockpit.core.store import key_points as KP
from testkit.fakeruns import make_run

WEBJUDGE_REPLY = "Some thinking first.\n\n**Key Points**:\n1. Gamestop store near 90028\n2. Set as home store\n"


def test_webjudges_key_points_until_some_are_typed_for_the_task(store):
    rid = make_run(store, steps=3, task="Find the closest Gamestop to 90028 and set it as home store")
    other = make_run(store, steps=2, task="Find the closest Gamestop to 90028 and set it as home store")
    run = store.run(rid)
    assert of_run(store, run).points == []
    judge_stages.save(store, rid, "judge-x", "webjudge-cockpit-1", 1,
                      [{"stage": "key_points", "reply": WEBJUDGE_REPLY}], reply="Status: success")
    got = of_run(store, run)
    assert (got.points, got.source) == (["Gamestop store near 90028", "Set as home store"], "WebJudge (judge-x)")
    KP.set_typed(store, KP.task_key(run), ["Closest store to 90028", "", "  Set as home store "], "ada")
    for r in (rid, other):  # typed per task: every run of it
        got = of_run(store, store.run(r))
        assert (got.points, got.source) == (["Closest store to 90028", "Set as home store"], "typed")
    KP.set_typed(store, KP.task_key(run), [], "ada")
    assert of_run(store, run).source.startswith("WebJudge")


def test_ticks_are_per_annotator_and_bound_to_a_step(store):
    rid = make_run(store, steps=4)
    KP.tick(store, rid, "ada", 0, "Closest store", 2)
    KP.tick(store, rid, "bob", 0, "Closest store", 3)
    KP.tick(store, rid, "ada", 1, "Set as home", 4)
    KP.tick(store, rid, "ada", 0, "Closest store", 3)  # ticked again on another step: moves there
    assert [(t["position"], t["step"]) for t in KP.ticks(store, rid, "ada")] == [(0, 3), (1, 4)]
    KP.untick(store, rid, "ada", 1)
    assert [(t["annotator"], t["position"], t["step"]) for t in KP.ticks(store, rid)] == [("ada", 0, 3), ("bob", 0, 3)]


def test_bullets_and_numbers_come_off():
    assert split_points("1. a\n2) b\n- c\n* d\n(5) e\n\nf") == ["a", "b", "c", "d", "e", "f"]
