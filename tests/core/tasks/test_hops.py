"""Multihop tasks (MMInA): hop conditions from task configs, the tracker, the loop hook and the report."""
import argparse
import json

import pytest

from cockpit.cli import hops as hops_cli
from cockpit.core.agent import events as ev
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, scripted
from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun
from cockpit.core.tasks.hop_conditions import HopCondition
from cockpit.core.tasks.hop_report import hop_report, run_hops, step_hops
from cockpit.core.tasks.hops import HopTracker, conditions_for, tracker_for
from tests.models import model_client

# MMInA's task 17 as its repository documents it (intent shortened).
MMINA_17 = {
    "sites": ["shopping"], "task_id": 17, "require_login": True,
    "start_url": "https://library.kiwix.org/viewer#wikipedia_en_all_maxi_2024-01/A/User%3AThe_other_Kiwix_guy/Landing",
    "intent": "Question: Which city has a red tower, Tokyo or San Francisco? Help me check some events there.",
    "eval": {"eval_types": ["string_match"], "reference_answers": {"must_include": ["eventbrite", "tokyo"]},
             "reference_url": "", "program_html": [], "string_note": "", "reference_answer_raw_annotation": []},
    "intent_template_id": 348, "cnt_hop": 3, "procedure": ["kiwix", "event", "end"],
    "shop": "", "city": "tokyo", "flight": "tyo",
}


# ---------------------------------------------------------------- the tracker

def test_hops_pass_in_order_and_end_after_the_last():
    t = HopTracker([HopCondition("a", url=("a.html",)), HopCondition("b", url=("b.html",))])
    assert (t.progress, t.done, t.current.name) == ((0, 2), False, "a")
    assert t.update("http://x/b.html", step=1) == []  # hop 2's page before hop 1: no credit
    assert t.update("http://x/a.html", step=2) == [1]
    assert t.update("http://x/a.html", step=3) == []
    assert t.update("http://x/b.html", step=4) == [2]
    assert (t.progress, t.done, t.current, t.rate) == ((2, 2), True, None, 1.0)
    assert t.update("http://x/b.html") == []  # END: nothing more to pass
    d = t.to_dict()
    assert (d["total"], d["passed"], d["done"]) == (2, 2, True)
    assert [(h["hop"], h["name"], h["passed"], h["step"]) for h in d["hops"]] == [(1, "a", True, 2), (2, "b", True, 4)]
    back = HopTracker.from_dict(json.loads(json.dumps(d)))
    assert back.progress == (2, 2) and back.steps == [2, 4] and back.conditions == t.conditions
    again = t.fresh()
    assert again.progress == (0, 2) and again.conditions == t.conditions


def test_one_update_can_pass_several_hops_and_answers_only_count_on_answer():
    t = HopTracker([HopCondition("site", url=("shop", "riga")),
                    HopCondition("answer", must_include=("1291",))])
    assert t.update("http://shop.example/?city=Riga") == [1]  # case-insensitive
    assert t.update("http://shop.example/", answer="built in 1290") == []
    assert t.update("http://shop.example/", answer="Built in 1291.") == [2]
    t = HopTracker([HopCondition("site", url=("shop",)), HopCondition("answer", must_include=("1291",))])
    assert t.update("http://shop.example/", answer="1291") == [1, 2]


def test_url_part_stays_met_until_the_answer():
    t = HopTracker([HopCondition("last", url=("results",), must_include=("tokyo",))])
    assert t.update("http://e.com/results?q=tokyo") == []  # the URL is met, the answer is still due
    assert t.update("http://e.com/elsewhere", answer="Tokyo") == [1]
    t = HopTracker([HopCondition("last", url=("results",), must_include=("tokyo",))])
    assert t.update("http://e.com/elsewhere", answer="Tokyo") == []  # never saw the page


def test_url_matching_any_none_and_decoding():
    c = HopCondition(url=("new york", "boston"), url_mode="any", not_url=("kiwix",))
    assert c.url_ok("https://e.com/search?q=New%20York")
    assert c.url_ok("https://e.com/search?q=new+york")
    assert not c.url_ok("https://kiwix.org/new york")
    assert not c.url_ok("https://e.com/chicago")
    assert not HopTracker([HopCondition("nothing")]).update("http://anything")  # nothing to check never passes


def test_answer_checks():
    assert HopCondition(exact_match="Paris").answer_ok(" paris. ")
    assert not HopCondition(exact_match="Paris").answer_ok("Paris, France")
    assert HopCondition(must_include=("eventbrite", "tokyo"), answer_with_url=True).answer_ok(
        "Tokyo", "https://www.eventbrite.com/d/japan--tokyo/")
    assert not HopCondition(must_include=("eventbrite", "tokyo")).answer_ok("Tokyo", "https://www.eventbrite.com/")
    fuzzy = HopCondition(fuzzy_match=("gold",))
    assert fuzzy.answer_ok("It is gold coloured") and not fuzzy.answer_ok("yellow")
    t = HopTracker([fuzzy], fuzzy=lambda pred, ref: "yellow" in pred and ref == "gold")  # an LLM stand-in
    assert t.update("u", answer="yellow") == [1]


# ---------------------------------------------------------------- from task configs

def test_mmina_procedure_maps_to_site_conditions_and_the_answer_on_the_last_hop():
    conds = conditions_for(MMINA_17)
    assert [c.name for c in conds] == ["kiwix", "event"]
    wiki, event = conds
    assert (wiki.url, wiki.not_url) == (("tokyo",), ("kiwix",))  # left Wikipedia for a page about the answer
    assert (event.url, event.must_include, event.answer_with_url) == (
        ("eventbrite", "tokyo"), ("eventbrite", "tokyo"), True)
    t = tracker_for(MMINA_17)
    assert t.declared == 3 and t.total == 2  # cnt_hop counts differently; the procedure decides
    assert t.update(MMINA_17["start_url"]) == []
    assert t.update("https://www.eventbrite.com/") == []
    assert t.update("https://www.eventbrite.com/d/japan--tokyo/events/") == [1]
    assert t.update("https://www.eventbrite.com/d/japan--tokyo/events/", answer="Tokyo") == [2]
    assert t.to_dict()["declared_hops"] == 3


def test_per_hop_evals_and_procedure_objects():
    extra = {"procedure": ["wiki", "museum", "END"],
             "eval": [{"reference_url": "hop_2.html?city=riga"},
                      {"reference_answers": {"must_include": ["1291"]}}]}
    wiki, museum = conditions_for(extra)
    assert (wiki.name, wiki.url, wiki.has_answer) == ("wiki", ("hop_2.html?city=riga",), False)
    assert (museum.name, museum.has_url, museum.must_include) == ("museum", False, ("1291",))
    extra = {"procedure": [{"name": "flight", "eval": {"reference_url": "momondo.com |OR| kayak.com"}},
                           {"name": "hotel", "url": ["trip.com/hotels", "tokyo"]}, "end"]}
    flight, hotel = conditions_for(extra)
    assert (flight.url, flight.url_mode) == (("momondo.com", "kayak.com"), "any")
    assert (hotel.url, hotel.url_mode) == (("trip.com/hotels", "tokyo"), "all")
    # a task-level reference_url with one |AND| part per hop gives each hop its URL
    extra = {"procedure": ["a", "b", "end"], "eval": {"reference_url": "https://a.com/x |AND| http://www.b.com/y/"}}
    assert [c.url for c in conditions_for(extra)] == [("a.com/x",), ("b.com/y",)]
    # explicit Cockpit form
    extra = {"hops": ["first.html", {"name": "two", "url": "x |OR| y", "must_include": ["z"]}]}
    one, two = conditions_for(extra)
    assert (one.name, one.url) == ("hop 1", ("first.html",))
    assert (two.url, two.url_mode, two.must_include) == (("x", "y"), "any", ("z",))


def test_webarena_reference_url_and_or():
    extra = {"eval": {"eval_types": ["url_match", "string_match"],
                      "reference_url": "__SHOPPING__/cart |OR| __SHOPPING__/basket |AND| __SHOPPING__/checkout/done",
                      "reference_answers": {"exact_match": "Order placed"}}}
    cart, done = conditions_for(extra)
    assert (cart.name, cart.url, cart.url_mode) == ("hop 1", ("/cart", "/basket"), "any")
    assert (done.url, done.exact_match, done.answer_with_url) == (("/checkout/done",), "Order placed", False)
    t = tracker_for(extra)
    assert t.update("http://shop:7770/basket") == [1]
    assert t.update("http://shop:7770/checkout/done", answer="order placed") == [2]


def test_tasks_without_hop_information_get_no_tracker():
    assert tracker_for(None) is None and tracker_for({}) is None
    assert tracker_for({"web_name": "Allrecipes"}) is None
    # a WebArena QA task: an answer check alone is not a hop task
    assert tracker_for({"eval": {"reference_answers": {"must_include": ["42"]}, "reference_url": ""}}) is None
    assert tracker_for({"cnt_hop": 2}) is None  # nothing to check
    assert tracker_for({"procedure": ["end"]}) is None


# ---------------------------------------------------------------- the loop hook, real browser

def _agent(browser, store, srv, config):
    client = model_client(srv, model="test-model", api_key="test-key", timeout=20)
    events = []
    agent = Agent(browser, client, store, config=config, listener=events.append)
    return agent, events, client


TWO_HOPS = {"cnt_hop": 2, "procedure": ["wiki", "museum", "end"],
            "eval": [{"reference_url": "hop_2.html?city=riga"}, {"reference_answers": {"must_include": ["1291"]}}]}


def _museum_link(body) -> int:
    text = body["messages"][-1]["content"][0]["text"]
    for line in text.splitlines():
        if "Riga museum site" in line:
            return int(line.split("]")[0].lstrip("["))
    raise AssertionError("no museum link in the prompt")


def _in_turn(replies):
    """A responder giving `replies` in order; a callable reply is called with the request body."""
    it = iter(replies)

    def respond(body):
        r = next(it)
        return r(body) if callable(r) else r
    return respond


def _run_hops(browser, store, site, replies, extra=TWO_HOPS):
    with ModelServer(_in_turn(replies)) as srv:
        agent, events, client = _agent(browser, store, srv,
                                       AgentConfig(wait_seconds=0.2, hops=tracker_for(extra)))
        try:
            result = agent.run(Fresh("Which year was the Old Castle built? Check its museum site.",
                                     site.url("hop_1.html"), task_id="hop-1", task_extra=extra))
        finally:
            client.close()
    return agent, events, result


def test_two_hop_task_advances_the_tracker_on_fixture_pages(browser, store, site):
    def click_museum(body):
        return f"Thought: the museum site has the history.\nAction: Click [{_museum_link(body)}]"
    agent, events, result = _run_hops(browser, store, site, [
        click_museum,
        "Thought: the history is further down.\nAction: Scroll [WINDOW]; down",
        "Thought: it says 1291.\nAction: ANSWER; The castle was built in 1291.",
    ])
    assert (result.status, result.steps) == ("answered", 3)
    passed = [e for e in events if isinstance(e, ev.HopPassed)]
    assert [(e.step, e.hop, e.name, e.passed, e.total) for e in passed] == [
        (2, 1, "wiki", 1, 2), (3, 2, "museum", 2, 2)]
    assert all(e.run_id == result.run_id for e in passed)
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("HopPassed") < kinds.index("RunFinished")
    per_step = step_hops(store, result.run_id)
    assert per_step == {1: {"passed": 0, "total": 2, "new": []}, 2: {"passed": 1, "total": 2, "new": [1]},
                        3: {"passed": 2, "total": 2, "new": [2]}}
    final = run_hops(store, result.run_id)
    assert (final["passed"], final["total"], final["done"]) == (2, 2, True)
    assert [(h["name"], h["step"]) for h in final["hops"]] == [("wiki", 2), ("museum", 3)]
    assert store.run(result.run_id)["config"]["task_extra"]["procedure"] == ["wiki", "museum", "end"]
    assert agent.hops.done and agent.config.hops.progress == (0, 2)  # the template is never advanced

    # a second run on the same agent config starts from hop 1 again; a wrong answer passes only hop 1
    _, events2, result2 = _run_hops(browser, store, site, [click_museum, "Thought: guess\nAction: ANSWER; 1300"])
    assert [(e.step, e.hop) for e in events2 if isinstance(e, ev.HopPassed)] == [(2, 1)]
    assert run_hops(store, result2.run_id)["passed"] == 1

    rep = hop_report(store, [result.run_id, result2.run_id])
    assert (rep["runs"], rep["hops"], rep["hops_passed"], rep["tasks_passed"]) == (2, 4, 3, 1)
    assert (rep["hop_success_rate"], rep["task_success_rate"]) == (0.75, 0.5)
    assert rep["by_length"] == [{"hops": 2, "runs": 2, "tasks_passed": 1, "task_success_rate": 0.5,
                                 "hop_success_rate": 0.75, "per_hop": [1.0, 0.5]}]


def test_runs_without_hops_store_nothing(browser, store, site):
    with ModelServer(scripted(["Thought: ok\nAction: ANSWER; 1291"])) as srv:
        agent, events, client = _agent(browser, store, srv, AgentConfig(wait_seconds=0.2))
        try:
            result = agent.run(Fresh("When?", site.url("hop_2.html")))
        finally:
            client.close()
    assert run_hops(store, result.run_id) is None and step_hops(store, result.run_id) == {}
    assert not [e for e in events if isinstance(e, ev.HopPassed)]


# ---------------------------------------------------------------- the report

def _hand_run(store, n_hops, passed, *, status="answered", batch=""):
    t = HopTracker([HopCondition(f"h{k}", url=(f"p{k}",)) for k in range(1, n_hops + 1)])
    for k in range(1, passed + 1):
        t.update(f"http://x/p{k}", step=k)
    rid = store.new_run(NewRun("task", "http://x/", status=status, batch=batch))
    store.set_run(rid, hops=json.dumps(t.to_dict()))
    return rid


def test_hop_report_rates_and_mmina_table_3_shape(store):
    runs = [_hand_run(store, 2, 2), _hand_run(store, 2, 1), _hand_run(store, 2, 0), _hand_run(store, 2, 1),
            _hand_run(store, 3, 3), _hand_run(store, 3, 1),
            _hand_run(store, 1, 1, batch="b1"), _hand_run(store, 1, 0, batch="b1"),
            _hand_run(store, 5, 2)]
    _hand_run(store, 2, 0, status="running")  # still going: left out
    store.new_run(NewRun("no hops", "http://x/", status="answered"))  # not tracked: left out
    rep = hop_report(store)
    # hops: 8 + 6 + 2 + 5 = 21; passed: 4 + 4 + 1 + 2 = 11; tasks fully passed: 1 + 1 + 1 = 3 of 9
    assert (rep["runs"], rep["hops"], rep["hops_passed"], rep["tasks_passed"]) == (9, 21, 11, 3)
    assert rep["hop_success_rate"] == pytest.approx(11 / 21)
    assert rep["task_success_rate"] == pytest.approx(3 / 9)
    table = {r["hops"]: r for r in rep["by_length"]}
    assert list(table) == [1, 2, 3, 5]
    assert table[1]["per_hop"] == [0.5]
    assert table[2]["per_hop"] == [0.75, 0.25] and table[2]["runs"] == 4 and table[2]["task_success_rate"] == 0.25
    assert table[3]["per_hop"] == [1.0, 0.5, 0.5] and table[3]["hop_success_rate"] == pytest.approx(4 / 6)
    assert table[5]["per_hop"] == [1.0, 1.0, 0.0, 0.0, 0.0] and table[5]["task_success_rate"] == 0.0
    buckets = {b["bucket"]: b for b in rep["by_bucket"]}
    assert buckets["1 hop"]["hop_success_rate"] == 0.5
    assert buckets["2-4 hops"]["runs"] == 6 and buckets["2-4 hops"]["hop_success_rate"] == pytest.approx(8 / 14)
    assert buckets["5+ hops"]["task_success_rate"] == 0.0
    assert hop_report(store, runs[:2])["hop_success_rate"] == 0.75
    assert hop_report(store, batch="b1")["runs"] == 2
    assert hop_report(store, [])["runs"] == 0 and hop_report(store, [])["hop_success_rate"] is None


def _cli(argv):
    p = argparse.ArgumentParser()
    hops_cli.add_parser(p.add_subparsers(dest="command"))
    return hops_cli.run(p.parse_args(["hops", *argv]))


def test_cli_prints_the_report(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COCKPIT_HOME", str(tmp_path / "cli-home"))
    assert _cli([]) == 0
    assert "No multihop runs yet" in capsys.readouterr().out
    with Store() as s:
        a = _hand_run(s, 2, 2)
        _hand_run(s, 2, 1)
        _hand_run(s, 3, 1)
    assert _cli([]) == 0
    out = capsys.readouterr().out
    assert "hops 4/7 passed (hop success 57.1%)" in out and "task success 33.3%" in out
    assert "1st" in out and "3rd" in out
    row3 = [line for line in out.splitlines() if line.strip().startswith("3 ")][0]
    assert row3.split()[-3:] == ["100.0%", "0.0%", "0.0%"]
    assert _cli(["--json", a]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert (rep["runs"], rep["task_success_rate"]) == (1, 1.0)
    assert _cli(["no-such-run"]) == 2


def test_a_resumed_multihop_run_goes_on_from_the_hops_it_had_passed(browser, store, site):
    """MMInA-style runs killed or failed midway: the resume counts on from the hops already passed
    (not from none, and not without tracking), so the hop success rate of the run is right."""
    from cockpit.core.agent.start import RunContext
    from cockpit.core.llm.modelserver import Reply
    from cockpit.core.replay.resume import resume

    def click_museum(body):
        return f"Thought: the museum site has the history.\nAction: Click [{_museum_link(body)}]"
    _, _, failed = _run_hops(browser, store, site, [
        click_museum, "Thought: read on.\nAction: Scroll [WINDOW]; down",
        Reply(status=500, error_message="the model server fell over")])
    assert failed.status == "failed" and run_hops(store, failed.run_id)["passed"] == 1
    events = []
    with ModelServer(scripted(["Thought: it says 1291.\nAction: ANSWER; The castle was built in 1291."])) as srv:
        client = model_client(srv, model="test-model", api_key="test-key", timeout=20)
        try:  # no hop queue given: the run's own is restored
            result = resume(RunContext(browser, store, client, listener=events.append), failed.run_id,
                            AgentConfig(wait_seconds=0.2))
        finally:
            client.close()
    assert (result.run_id, result.status) == (failed.run_id, "answered")
    passed = [(e.step, e.hop, e.passed, e.again) for e in events if isinstance(e, ev.HopPassed)]
    assert passed == [(2, 1, 1, True), (4, 2, 2, False)]  # hop 1 announced again at its step, hop 2 passed now
    final = run_hops(store, failed.run_id)
    assert (final["passed"], final["done"]) == (2, True)
    assert [(h["name"], h["step"]) for h in final["hops"]] == [("wiki", 2), ("museum", 4)]
    rep = hop_report(store, [failed.run_id])
    assert (rep["hops_passed"], rep["tasks_passed"]) == (2, 1)
