"""Faults around the world model and planning (issue #7): a broken world model must not stop a run,
and the world model (often another provider) never sees what was typed into secret fields, while
the preview model's key never lands in the store."""
from __future__ import annotations

import json

import pytest

from cockpit.core.agent import events as ev
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.lookahead.planning import PlanningConfig
from tests.lookahead_helpers import calls, candidates, kind, mark_in, observation, page_title, user_text, world

PASSWORD = "S3cr3t-Pa55"
KEY = "sk-wm-FAKEpreviewKEY-93ab71c2"


def _to_order(body):
    title, text = page_title(body), observation(body)
    if "refused by the human supervisor" in text or title != "Details":
        return "Thought: stop here.\nAction: ANSWER; done"
    return f"Thought: order it.\nAction: Click [{mark_in(text, 'Order a copy')}]"


@pytest.mark.fault("model")
def test_a_failing_preview_model_leaves_the_step_unpredicted_and_the_run_going(site, make_agent, store):
    with ModelServer(_to_order) as srv, ModelServer(lambda b: Reply.error(500, "world model down")) as wm:
        agent = make_agent(srv, AgentConfig(wait_seconds=0.2, preview=world(wm)))
        result = agent.run(Fresh("Order", site.url("agent_details.html")))
    assert (result.status, result.answer) == ("answered", "done")
    first = store.steps(result.run_id)[0]
    assert first["url_after"].endswith("agent_order.html")  # the action ran regardless
    assert first["prediction"]["text"] == "" and "world model down" in first["prediction"]["error"]
    made = [e for e in agent.events if isinstance(e, ev.PredictionMade)]
    assert made[0].text == "" and "world model down" in made[0].error


@pytest.mark.fault("model")
def test_a_failing_world_model_in_planning_falls_back_to_the_policys_first_candidate(site, make_agent, store):
    def policy(body):
        if kind(body) == "refine":
            return "Keep: 1, 2"
        text = observation(body)
        if page_title(body) == "Details":
            return candidates(("done", "ANSWER; 4217"))
        return candidates(("the link", f"Click [{mark_in(text, 'details page')}]"), ("scroll", "Scroll [WINDOW]; down"))
    with ModelServer(policy) as srv, ModelServer(lambda b: Reply.error(500, "world model down")) as wm:
        result = make_agent(srv, AgentConfig(wait_seconds=0.2, planning=PlanningConfig(world=world(wm)))).run(Fresh(
            "Find the secret number", site.url("agent_start.html")))
    assert (result.status, result.answer) == ("answered", "4217")
    plan = store.steps(result.run_id)[0]["plan"]
    assert plan["chosen"] == 1 and "planning failed" in plan["note"] and "world model down" in plan["note"]


@pytest.mark.fault("secrets")
def test_the_world_model_never_sees_a_typed_password_and_the_preview_key_is_not_stored(site, make_agent, store,
                                                                                       tmp_path, record_property):
    def policy(body):
        if kind(body) == "refine":
            return "Keep: 1, 2"
        text = observation(body)
        done = sum(m["role"] == "assistant" for m in body["messages"])
        if done == 0:
            return candidates((f"the password is {PASSWORD}", f"Type [{mark_in(text, 'Password')}]; {PASSWORD}"),
                              ("sign in first", f"Click [{mark_in(text, 'Sign in')}]"))
        if done == 1:
            return candidates((f"typed {PASSWORD}, now sign in", f"Click [{mark_in(text, 'Sign in')}]"))
        return candidates(("signed in", "ANSWER; signed in"))

    def world_model(body):
        text = user_text(body)
        if kind(body) == "score":
            return "Verdict: on track" if "fills in" in text else "Verdict: incorrect"
        return "The password field fills in." if "Type [" in text.split("about to run:")[-1] else "The form is sent."

    with ModelServer(policy) as srv, ModelServer(world_model) as wm:
        config = AgentConfig(wait_seconds=0.2, preview=world(wm, api_key=KEY), planning=PlanningConfig())
        result = make_agent(srv, config).run(Fresh("Sign in", site.url("secret_login.html")))
    assert result.answer == "signed in"
    steps = store.steps(result.run_id)
    assert steps[0]["plan"]["chosen"] == 1 and steps[0]["plan"]["candidates"][0]["action"].endswith("; (secret)")
    assert steps[1]["prediction"]["source"] == "preview"  # a single candidate: the preview model was asked
    assert steps[0]["status"] == "ok" and steps[0]["action"].endswith("; (secret)")  # typed for real
    assert len(calls(wm, "forecast")) == 3  # two simulations, then one preview
    assert any("; (secret)" in user_text(b) for b in calls(wm, "forecast"))  # simulated, masked
    seen_by_world_model = sum(json.dumps(b).count(PASSWORD) for b in wm.requests)
    stored = 0
    key_hits = 0
    for p in (tmp_path / "home").rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            stored += data.count(PASSWORD.encode())
            key_hits += data.count(KEY.encode())
    record_property("key_hits", key_hits)
    assert key_hits == 0
    assert seen_by_world_model == 0
    assert stored == 0
    assert "(secret)" in json.dumps(steps[0]["plan"]) and "(secret)" in steps[1]["plan"]["candidates"][0]["thought"]
