"""The multihop hook alone: a task's hop queue advanced by real pages' addresses and the answer, in a real
store."""
import json

from cockpit.core.agent import events as ev
from cockpit.core.agent.config import AgentConfig
from cockpit.core.agent.hooks.multihop import Multihop
from cockpit.core.agent.start import Fresh, Resume
from cockpit.core.tasks.hop_report import run_hops, step_hops
from cockpit.core.tasks.hops import tracker_for

TWO_HOPS = {"cnt_hop": 2, "procedure": ["wiki", "museum", "end"],
            "eval": [{"reference_url": "hop_2.html?city=riga"},
                     {"reference_answers": {"must_include": ["1291"]}}]}


def commit(run, st):
    """What the loop does with the step after the hook: store it."""
    run.store.commit_step(run.scope.run_id, st.record.but(step=st.n, url=st.obs.url, status="ok").to_row())


def test_hops_pass_as_the_pages_and_the_answer_meet_them(hook_run, step_at, site):
    config = AgentConfig(hops=tracker_for(TWO_HOPS))
    run = hook_run(config)
    hook = Multihop(run.scope)
    hook.started(Fresh("Which year?", site.url("hop_1.html")))
    assert [e.names for e in run.of(ev.HopsTracked)] == [("wiki", "museum")]

    for n, (page, answer) in enumerate([("hop_1.html", None), ("hop_2.html?city=riga", None),
                                         ("hop_2.html?city=riga", "It was built in 1291.")], 1):
        st = step_at(page, n)
        hook.committing(st, answer)
        commit(run, st)

    assert [(e.step, e.hop, e.name, e.passed, e.total) for e in run.of(ev.HopPassed)] == [
        (2, 1, "wiki", 1, 2), (3, 2, "museum", 2, 2)]
    assert step_hops(run.store, run.scope.run_id) == {
        1: {"passed": 0, "total": 2, "new": []}, 2: {"passed": 1, "total": 2, "new": [1]},
        3: {"passed": 2, "total": 2, "new": [2]}}
    assert run_hops(run.store, run.scope.run_id)["done"] is True
    assert config.hops.progress == (0, 2)  # the settings' queue is a template: each run tracks a copy


def test_a_resumed_run_goes_on_from_its_hops_and_shows_the_passed_ones_again(hook_run, step_at, site):
    tracker = tracker_for(TWO_HOPS)
    tracker.update(site.url("hop_2.html?city=riga"), None, step=4)  # restored by the resume
    run = hook_run(AgentConfig(hops=tracker))
    hook = Multihop(run.scope)
    hook.started(Resume(task="Which year?", url=site.url("hop_1.html"), run_id=run.scope.run_id,
                        first_step=5))
    again = run.of(ev.HopPassed)
    assert [(e.step, e.hop, e.again) for e in again] == [(4, 1, True)]
    assert json.loads(run.store.run(run.scope.run_id)["hops"])["passed"] == 1

    hook.committing(step_at("hop_2.html?city=riga", 5), "1291")
    assert [(e.step, e.hop, e.again) for e in run.of(ev.HopPassed)][1:] == [(5, 2, False)]
    assert hook.tracker.done
