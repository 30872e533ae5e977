"""Procedural memory: retrieving similar past successful runs and putting them in the first prompt."""
import pytest

from cockpit.core.agent import events as ev
from cockpit.core.agent import procedural_memory as memory
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.procedural_memory import Memory, memory_text, retrieve, used_memories
from cockpit.core.agent.start import Fresh
from cockpit.core.llm import prompt
from cockpit.core.llm.modelserver import ModelServer, scripted
from cockpit.core.store.labels import set_label, set_verdict
from cockpit.core.store.newrun import NewRun
from tests.models import model_client


def past_run(store, task, steps, *, status="answered", answer=None):
    """A finished run with `steps` as (action, status[, actor]) tuples."""
    rid = store.new_run(NewRun(task, "http://127.0.0.1/", status="running"))
    for n, st in enumerate(steps, 1):
        action, step_status, *actor = st
        store.commit_step(rid, {"step": n, "action": action, "status": step_status,
                                "actor": actor[0] if actor else "agent"})
    store.finish_run(rid, status, answer=answer)
    return rid


@pytest.fixture
def past(store):
    """Two runs on a task like the castle one (one labelled, one judged), one unrelated, and distractors."""
    hours = past_run(store, "Find the opening hours of the Riga castle museum", [
        ("Click [2]", "ok"),
        ("Type [1]; opening hours", "format_error"),  # no action ran: not part of the memory
        ("Scroll [WINDOW]; down", "ok"),
        ("Click [5]", "ok", "human"),  # a human's step during a take-over: not the agent's procedure
        ("ANSWER; Open daily 10:00-18:00, closed on Mondays and on public holidays, last entry 17:30 "
         "(winter hours differ)", "answered"),
    ], answer="Open daily 10:00-18:00")
    set_label(store, hours, "ann", "success")
    price = past_run(store, "Find the ticket price of the castle museum in Riga",
                     [("Click [3]", "ok"), ("ANSWER; 8 EUR", "answered")], answer="8 EUR")
    set_verdict(store, price, "gpt-4o", 3, "v1", 1)
    kettle = past_run(store, "Order a blue kettle from the shop",
                      [("Click [1]", "ok"), ("ANSWER; ordered", "answered")], answer="ordered")
    set_label(store, kettle, "ann", "success")
    failed = past_run(store, "Riga castle museum opening hours and castle museum history",
                      [("Click [9]", "ok"), ("ANSWER; wrong", "answered")], answer="wrong")
    set_label(store, failed, "ann", "fail")  # humans failed it: never a memory
    judged_bad = past_run(store, "Riga castle museum opening hours", [("ANSWER; x", "answered")], answer="x")
    set_verdict(store, judged_bad, "gpt-4o", 3, "v1", 0)
    unjudged = past_run(store, "Castle museum in Riga: when was it built?",
                        [("Click [4]", "ok"), ("ANSWER; 1291", "answered")], answer="1291")
    gave_up = past_run(store, "Riga castle museum opening hours today", [("Click [1]", "ok")], status="max_steps")
    return {"hours": hours, "price": price, "kettle": kettle, "failed": failed, "judged_bad": judged_bad,
            "unjudged": unjudged, "gave_up": gave_up}


def test_retrieval_picks_the_similar_successful_runs_in_order(store, past):
    task = "What are the opening hours of the castle museum in Riga?"
    got = retrieve(store, task, k=2)
    assert [m.run_id for m in got] == [past["hours"], past["price"]]
    assert [m.source for m in got] == ["human", "judge"]
    hours = got[0]
    assert hours.task == "Find the opening hours of the Riga castle museum"
    assert hours.actions[:2] == ("Click [2]", "Scroll [WINDOW]; down")
    assert len(hours.actions) == 3 and hours.actions[2].startswith("ANSWER; Open daily 10:00-18:00")
    assert hours.actions[2].endswith("...") and len(hours.actions[2]) <= len("ANSWER; ") + memory.MAX_ANSWER
    assert hours.answer == "Open daily 10:00-18:00" and got[0].score < got[1].score
    # k=1: the best one; more places than confirmed runs: answered runs nobody judged fill them
    assert [m.run_id for m in retrieve(store, task, k=1)] == [past["hours"]]
    assert [m.run_id for m in retrieve(store, task, k=5)] == [past["hours"], past["price"], past["unjudged"]]
    # the run being made is never its own memory; nothing similar or nothing to search: nothing
    assert [m.run_id for m in retrieve(store, task, k=2, exclude=past["hours"])] == [past["price"], past["unjudged"]]
    assert retrieve(store, "Buy a kettle", k=2)[0].run_id == past["kettle"]
    assert retrieve(store, "zebra quantum", k=2) == []
    assert retrieve(store, "what is the", k=2) == []  # only stop words
    assert retrieve(store, task, k=0) == []
    assert retrieve(store, 'odd "quotes" AND (brackets) OR * -', k=1) == []  # no FTS syntax error


def test_memory_text_is_a_short_numbered_section():
    mems = [Memory("r1", "Find the opening hours", ("Click [2]", "ANSWER; 10-18")),
            Memory("r2", "Find the\nticket Observation: price", ())]
    text = memory_text(mems)
    lines = text.splitlines()
    assert lines[0] == "Examples of how similar tasks were done before:"
    assert lines[1:4] == ["Example 1. Task: Find the opening hours", "  1. Click [2]", "  2. ANSWER; 10-18"]
    assert lines[4] == "Example 2. Task: Find the ticket Observation - price"  # never cuts a clipped turn
    assert lines[5] == "  (no recorded actions)" and lines[-1] == memory.FOOTER
    assert memory_text([]) == ""


def test_agent_run_with_memory_sends_it_in_the_first_request(browser, site, store, past):
    task = "What are the opening hours of the castle museum in Riga?"
    events = []
    with ModelServer(scripted(["Thought: look\nAction: Scroll [WINDOW]; down",
                               "Thought: done\nAction: ANSWER; 10-18"])) as srv:
        client = model_client(srv, model="test-model", api_key="test-key", timeout=20)
        try:
            agent = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2, memory_k=1),
                          listener=events.append)
            result = agent.run(Fresh(task, site.url("hop_2.html")))
        finally:
            client.close()
    assert result.status == "answered"
    first = srv.requests[0]["messages"][1]["content"][0]["text"]
    expected = prompt.task_text(task, site.url("hop_2.html")) + "\n" + memory_text(retrieve(store, task, k=1,
                                                                                             exclude=result.run_id))
    assert first.startswith(expected + "\n" + "Observation:")
    assert "Example 1. Task: Find the opening hours of the Riga castle museum" in first
    assert "  1. Click [2]\n  2. Scroll [WINDOW]; down\n  3. ANSWER; Open daily" in first
    assert "ticket price" not in first  # k=1
    # the memory is part of the task turn, so it survives screenshot clipping in later requests
    assert "Examples of how similar tasks were done before:" in str(srv.requests[1]["messages"][1]["content"])
    assert used_memories(store, result.run_id) == [past["hours"]]
    used = [e for e in events if isinstance(e, ev.MemoriesUsed)]
    assert len(used) == 1 and used[0].run_ids == (past["hours"],) and used[0].run_id == result.run_id
    assert store.run(result.run_id)["config"]["agent"]["memory_k"] == 1


def test_memory_off_by_default_and_empty_when_nothing_matches(browser, site, store):
    def run(config, task):
        events = []
        with ModelServer(scripted(["Thought: done\nAction: ANSWER; ok"])) as srv:
            client = model_client(srv, model="test-model", api_key="test-key", timeout=20)
            try:
                result = Agent(browser, client, store, config=config, listener=events.append).run(Fresh(
                    task, site.url("hop_2.html")))
            finally:
                client.close()
        return result, events, srv.requests[0]["messages"][1]["content"][0]["text"]

    result, events, first = run(AgentConfig(wait_seconds=0.2), "Castle museum hours")
    assert used_memories(store, result.run_id) is None and "Examples of" not in first
    assert not [e for e in events if isinstance(e, ev.MemoriesUsed)]
    assert "memory_k" not in store.run(result.run_id)["config"]["agent"]
    # memory on, but no past task shares a word with this one: recorded as none used
    result, events, first = run(AgentConfig(wait_seconds=0.2, memory_k=2), "Zebra quantum flux")
    assert used_memories(store, result.run_id) == [] and "Examples of" not in first
    assert [e.run_ids for e in events if isinstance(e, ev.MemoriesUsed)] == [()]
