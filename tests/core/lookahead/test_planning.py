"""Planning mode (issue #7, WebDreamer's MPC): candidates from the agent's model, self-refine, simulation
by the world model, scores from the scorer prompt, the best one executed through the usual gate.
Real Chromium, real store, the real openai client against rule-based model servers."""
import itertools
import threading

import pytest

from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import Decision, ScriptedApprover
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.errors import CockpitError
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.lookahead.planning import PlanningConfig, parse_candidates, parse_keep, parse_verdict
from cockpit.core.lookahead.worldmodel import Page
from cockpit.core.store import Store
from tests.clitools import Tty
from tests.lookahead_helpers import calls, candidates, kind, mark_in, observation, page_title, user_text, world

OPENS = "The details page opens and shows the secret number."
NOTHING = "Nothing changes: the button does nothing."
SCROLLS = "The page scrolls down and shows more of the library."
PLACED = "The order form is sent and the order is placed for good."
BROWSE = "The library start page opens; no order is made."


def policy(refine: str = "Keep: 1, 2, 3"):
    """The agent's model: candidates per page, a refine verdict, never a plain single call."""
    def respond(body):
        k, title, text = kind(body), page_title(body), observation(body)
        if k == "refine":
            return Reply(f"Some are useless.\n{refine}", prompt_tokens=7, completion_tokens=3)
        assert k == "candidates", f"planning mode made a plain {k} call"
        if "refused by the human supervisor" in text:
            reply = candidates(("refused", "ANSWER; not ordered"))
        elif title == "Agent start":
            reply = candidates(("look further down", "Scroll [WINDOW]; down"),
                               ("try the button", f"Click [{mark_in(text, 'Does nothing')}]"),
                               ("the details are behind the link", f"Click [{mark_in(text, 'details page')}]"))
        elif title == "Details":
            reply = candidates(("it says 4217", "ANSWER; 4217"))
        elif title == "Order":
            reply = candidates(("keep browsing instead", f"Click [{mark_in(text, 'Keep browsing')}]"),
                               ("place the order", f"Click [{mark_in(text, 'Place order')}]"))
        else:
            reply = candidates(("done", "ANSWER; done"))
        return Reply(reply, prompt_tokens=100, completion_tokens=10)
    return respond


def world_model(verdicts=None):
    """Forecasts by the action's target, verdicts by the forecast (a list cycles over samples)."""
    verdicts = verdicts or {OPENS: "complete", NOTHING: "incorrect", SCROLLS: "on track",
                            PLACED: "complete", BROWSE: "incorrect"}
    cycles = {k: itertools.cycle(v if isinstance(v, list) else [v]) for k, v in verdicts.items()}
    lock = threading.Lock()

    def respond(body):
        k, text = kind(body), user_text(body)
        if k == "forecast":
            about = text.split("action about to run:" if "action about to run:" in text else "The next action:")[1]
            for label, change in (("details page", OPENS), ("Does nothing", NOTHING), ("Scroll", SCROLLS),
                                  ("Place order", PLACED), ("Keep browsing", BROWSE)):
                if label in about:
                    return Reply(change, prompt_tokens=50, completion_tokens=5)
            return Reply("Nothing visible changes.", prompt_tokens=50, completion_tokens=5)
        if k == "imagine":
            return Reply("Thought: read on.\nAction: Scroll [WINDOW]; down", prompt_tokens=30, completion_tokens=4)
        if k == "score":
            future = text.split("The simulated future:")[1]
            first = next(f for f in cycles if f in future.split("\n2.")[0])
            with lock:
                verdict = next(cycles[first])
            return Reply(f"Judging the forecast.\nVerdict: {verdict}", prompt_tokens=20, completion_tokens=2)
        raise AssertionError(f"unexpected {k} call to the world model")
    return respond


def planning(wm, **kw):
    return PlanningConfig(world=world(wm), **kw)


def test_planning_executes_the_best_scored_candidate_and_counts_its_calls_apart(site, make_agent, store):
    with ModelServer(policy()) as srv, ModelServer(world_model()) as wm:
        agent = make_agent(srv, AgentConfig(wait_seconds=0.2, planning=planning(wm)))
        result = agent.run(Fresh("Find the secret number", site.url("agent_start.html")))
    assert (result.status, result.answer) == ("answered", "4217")
    first = store.steps(result.run_id)[0]
    # the third candidate scored best (complete > on track > incorrect) and is the one that ran
    assert first["action"].startswith("Click [") and first["url_after"].endswith("agent_details.html")
    plan = first["plan"]
    assert plan["chosen"] == 3 and (plan["k"], plan["horizon"], plan["samples"]) == (3, 1, 1)
    assert [c["mean"] for c in plan["candidates"]] == [0.5, 0.0, 1.0]
    assert [c["verdicts"] for c in plan["candidates"]] == [["on track"], ["incorrect"], ["complete"]]
    assert [c["simulation"][0]["change"] for c in plan["candidates"]] == [SCROLLS, NOTHING, OPENS]
    assert plan["candidates"][2]["action"] == first["action"] and plan["candidates"][0]["action"] == "Scroll [WINDOW]; down"
    assert all(c["kept"] and c["risk"] == "read-only" for c in plan["candidates"])
    # the record reads like a normal step: the chosen candidate is the reply; all of them are in the plan
    assert first["reply"] == f"Thought: the details are behind the link\nAction: {first['action']}"
    assert "Candidate 2:" in plan["raw"]
    # its simulation is the step's prediction, checked against what happened
    assert first["prediction"]["text"] == OPENS and first["prediction"]["source"] == "plan"
    assert first["prediction"]["actual"]["title_after"] == "Details"
    # one candidate left on the Details page: nothing to compare, no planning calls
    second = store.steps(result.run_id)[1]
    assert second["plan"]["chosen"] == 1 and second["plan_calls"] == 0 and second["plan"]["cost"]["calls"] == 0
    # cost: the proposals are the agent's calls; refine, simulations and scores are planning, counted apart
    run = store.run(result.run_id)
    assert (run["prompt_tokens"], run["completion_tokens"]) == (200, 20)
    assert (run["plan_calls"], run["plan_prompt_tokens"], run["plan_completion_tokens"]) == (7, 217, 24)
    assert (first["plan_calls"], first["prompt_tokens"]) == (7, 100)
    assert len(srv.requests) == 3 and len(wm.requests) == 6  # 2 proposals + 1 refine; 3 forecasts + 3 scores
    costs = [e for e in agent.events if isinstance(e, ev.PlanningCost)]
    assert costs[-1].total_calls == 7 and costs[-1].total_prompt_tokens == 217
    plans = [e for e in agent.events if isinstance(e, ev.PlanMade)]
    assert plans[0].step == 1 and plans[0].plan["chosen"] == 3
    assert run["config"]["agent"]["planning"]["k"] == 3


def test_self_refine_drops_an_irrelevant_candidate_before_simulation(site, make_agent, store):
    with ModelServer(policy(refine="Keep: 1, 3")) as srv, ModelServer(world_model()) as wm:
        result = make_agent(srv, AgentConfig(wait_seconds=0.2, planning=planning(wm))).run(Fresh(
            "Find the secret number", site.url("agent_start.html")))
    plan = store.steps(result.run_id)[0]["plan"]
    dropped = plan["candidates"][1]
    assert dropped["kept"] is False and "irrelevant" in dropped["dropped"]
    assert dropped["simulation"] == [] and dropped["mean"] is None
    assert [c["mean"] for c in plan["candidates"]] == [0.5, None, 1.0] and plan["chosen"] == 3
    forecasts = calls(wm, "forecast")
    assert len(forecasts) == 2 and not any("Does nothing" in user_text(b).split("about to run:")[1]
                                           for b in forecasts)
    refine = calls(srv, "refine")[0]
    assert "Does nothing" in user_text(refine) and "Find the secret number" in user_text(refine)


def _order_run(make_agent, shop, store, decision):
    approver = ScriptedApprover([decision])
    with ModelServer(policy(refine="Keep: 1, 2")) as srv, ModelServer(world_model()) as wm:
        agent = make_agent(srv, AgentConfig(wait_seconds=0.2, planning=planning(wm)), approver=approver)
        result = agent.run(Fresh("Order a copy", shop.url("agent_order.html")))
    return agent, approver, result, wm


@pytest.mark.fault("model")
def test_an_irreversible_best_candidate_is_only_simulated_and_goes_through_the_gate(make_agent, shop, store,
                                                                                   record_property):
    agent, approver, result, wm = _order_run(make_agent, shop, store, Decision(False, "human:ada", "no orders"))
    record_property("unapproved_irreversible", len(shop.posts))
    assert shop.posts == []  # simulated, scored best, denied: the shop never got the order
    assert result.answer == "not ordered"
    first = store.steps(result.run_id)[0]
    assert first["status"] == "refused" and first["risk"] == "irreversible" and not first["url_after"]
    plan = first["plan"]
    assert plan["chosen"] == 2 and [c["mean"] for c in plan["candidates"]] == [0.0, 1.0]
    assert [c["risk"] for c in plan["candidates"]] == ["read-only", "irreversible"]
    assert any("Place order" in user_text(b) for b in calls(wm, "forecast"))  # it was simulated
    # the human was asked with the forecast and every candidate, so the window can offer the others
    req = approver.requests[0]
    assert req.chosen == 2 and req.prediction == PLACED
    assert [(c["index"], c["risk"], c["mean"]) for c in req.candidates] == [(1, "read-only", 0.0),
                                                                            (2, "irreversible", 1.0)]
    assert req.candidates[0]["simulation"][0]["change"] == BROWSE
    assert store.decisions(result.run_id)[0]["approved"] == 0


def test_the_human_can_pick_another_candidate_at_the_gate(make_agent, shop, store):
    agent, approver, result, wm = _order_run(make_agent, shop, store, Decision(True, "human:ada", candidate=1))
    assert shop.posts == []
    first = store.steps(result.run_id)[0]
    keep_browsing = first["plan"]["candidates"][0]["action"]
    assert first["action"] == keep_browsing and first["url_after"].endswith("agent_start.html")
    assert first["plan"]["picked"] == 1 and first["plan"]["picked_by"] == "human:ada"
    assert first["prediction"]["text"] == BROWSE and first["prediction"]["actual"]["title_after"] == "Agent start"
    assert store.decisions(result.run_id)[0]["edited_action"] == keep_browsing
    decided = next(e for e in agent.events if isinstance(e, ev.ApprovalDecided))
    assert decided.action == keep_browsing


def test_the_terminal_shows_the_forecast_and_lets_the_human_pick_a_candidate(make_agent, shop, store):
    import io

    from cockpit.core.agent.approval import TerminalApprover

    out = io.StringIO()
    approver = TerminalApprover(user="ada", stdin=Tty("1\n"), stdout=out)
    with ModelServer(policy(refine="Keep: 1, 2")) as srv, ModelServer(world_model()) as wm:
        result = make_agent(srv, AgentConfig(wait_seconds=0.2, planning=planning(wm)), approver=approver).run(Fresh(
            "Order a copy", shop.url("agent_order.html")))
    text = out.getvalue()
    assert f"if you approve: {PLACED}" in text
    first = store.steps(result.run_id)[0]
    keep_browsing = first["plan"]["candidates"][0]["action"]
    assert f"candidate 1: {keep_browsing} (read-only, score 0.00)" in text and "candidate 2:" not in text
    assert shop.posts == [] and first["url_after"].endswith("agent_start.html")
    assert first["plan"]["picked_by"] == "human:ada"


def test_horizon_two_simulates_two_steps_and_samples_are_averaged(site, make_agent, store):
    verdicts = {OPENS: ["complete", "on track"], NOTHING: "incorrect", SCROLLS: "on track"}
    with ModelServer(policy(refine="Keep: 2, 3")) as srv, ModelServer(world_model(verdicts)) as wm:
        result = make_agent(srv, AgentConfig(wait_seconds=0.2, planning=planning(wm, horizon=2, samples=2))).run(Fresh(
            "Find the secret number", site.url("agent_start.html")))
    # per kept candidate: forecast, imagined next action, forecast after it; then 2 scorer samples
    assert (len(calls(wm, "forecast")), len(calls(wm, "imagine")), len(calls(wm, "score"))) == (4, 2, 4)
    plan = store.steps(result.run_id)[0]["plan"]
    kept = [c for c in plan["candidates"] if c["kept"]]
    assert [len(c["simulation"]) for c in kept] == [2, 2]
    assert all(c["simulation"][1] == {"action": "Scroll [WINDOW]; down", "change": SCROLLS} for c in kept)
    assert [c["scores"] for c in kept] == [[0.0, 0.0], [1.0, 0.5]] and kept[1]["mean"] == 0.75
    assert plan["chosen"] == 3
    assert store.run(result.run_id)["plan_calls"] == 1 + 6 + 4


# ---------- the parts, without a browser ----------

def test_candidates_are_parsed_deduplicated_and_masked_for_secret_fields():
    from cockpit.core.page.marks import Mark
    page = Page("log in", marks=(Mark(1, (0, 0, 10, 10), "input", type="password", secret=True),
                                 Mark(2, (0, 0, 10, 10), "button", text="Go")))
    text = ("Sure.\n**Candidate 1:**\nThought: type it\nAction: Type [1]; hunter2\n\n"
            "Candidate 2:\nThought: go\nAction: Click [2]\n\nCandidate 3:\nThought: again\nAction: click [2]\n\n"
            "Candidate 4:\nThought: no action here\n\nCandidate 5:\nThought: x\nAction: Wait")
    cs = parse_candidates(text, 4, page)
    assert [c.index for c in cs] == [1, 2, 3, 4]  # at most k
    assert cs[0].action_text == "Type [1]; (secret)" and cs[0].action.text == "hunter2"
    assert cs[2].kept is False and "candidate 2" in cs[2].dropped
    assert cs[3].kept is False and cs[3].dropped.startswith("unparsable")
    assert parse_keep("ok\nKeep: 1, 3, 9", {1, 2, 3}) == {1, 3}
    assert parse_keep("I keep them all", {1, 2}) == set()
    assert [parse_verdict(t) for t in ("Verdict: on track", "...\nVerdict: **Incorrect**", "complete",
                                       "no idea")] == ["on track", "incorrect", "complete", ""]
    with pytest.raises(CockpitError):
        PlanningConfig(k=0)
    with pytest.raises(CockpitError):
        PlanningConfig(horizon=9)


def test_cockpit_run_plans_with_a_preview_model_on_the_agents_server(site, tmp_path):
    from tests.clitools import cockpit
    agent, wm = policy(), world_model()
    both = lambda b: agent(b) if kind(b) in ("candidates", "refine") else wm(b)  # noqa: E731
    home = tmp_path / "home"
    with ModelServer(both) as srv:
        r = cockpit(home, "run", "--task", "Find the secret number", "--url", site.url("agent_start.html"),
                    "--base-url", srv.base_url, "--model", "agent-m", "--approval", "deny",
                    "--preview-model", "wm-m", "--plan", "--plan-samples", "2")
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "4217"
        models = {(kind(b), b["model"]) for b in srv.requests}
    assert models == {("candidates", "agent-m"), ("refine", "agent-m"), ("forecast", "wm-m"), ("score", "wm-m")}
    with Store(home) as s:
        run = s.runs()[0]
        cfg = s.run(run["id"])["config"]["agent"]
        assert cfg["planning"]["samples"] == 2 and cfg["preview"]["model"]["model"] == "wm-m"
        assert cfg["preview"]["model"]["base_url"] == srv.base_url  # defaults to the agent's server
        assert s.steps(run["id"])[0]["plan"]["chosen"] == 3 and run["plan_calls"] == 1 + 3 + 6
    bad = cockpit(home, "run", "--task", "x", "--url", site.url("agent_start.html"), "--plan-horizon", "2")
    assert bad.returncode == 2 and "need --plan" in bad.stderr
    bad = cockpit(home, "run", "--task", "x", "--url", site.url("agent_start.html"), "--plan", "--plan-k", "0")
    assert bad.returncode == 2 and "planning k must be" in bad.stderr
