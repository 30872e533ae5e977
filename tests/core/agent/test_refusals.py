"""Issue #39 item 5: a refusal says who refused (a person, the run's policy, a site rule), to the model and in
the step's record, in marks mode and pixel mode."""
import pytest

from cockpit.core.agent.approval import Decision, PolicyApprover, ScriptedApprover, TerminalApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.safety.rules import SiteRule
from testkit.pixelmodel import Move, PixelModel
from tests.models import last_user_text, mark_for, model_client


def marks_run(agent_for, site, store, approver, page="agent_order.html", rules=(), target="Place order"):
    def respond(body):
        text = last_user_text(body)
        if "Your last action was refused" in text:
            return "Thought: refused\nAction: ANSWER; stopped"
        return f"Thought: go\nAction: Click [{mark_for(body, target)}]"
    with ModelServer(respond) as srv:
        agent = agent_for(srv, approver=approver, config=AgentConfig(wait_seconds=0.2, risk_rules=list(rules)))
        result = agent.run(Fresh("Order a copy", site.url(page)))
    step = store.steps(result.run_id)[0]
    return step, last_user_text(srv.requests[1]), agent


@pytest.mark.parametrize("approver,by", [(PolicyApprover(False), "policy:deny"),
                                         (TerminalApprover(stdin=open("/dev/null")), "policy:no-terminal")])
def test_the_runs_policy_refusing_is_not_told_as_a_persons(agent_for, site, store, approver, by):
    step, told, agent = marks_run(agent_for, site, store, approver)
    assert step["status"] == "refused" and step["decision"]["by"] == by
    assert "refused by this run's policy, not by a person" in told and "human supervisor" not in told
    assert step["outcome"].startswith("refused by policy: ")
    decided = next(e for e in agent.events if type(e).__name__ == "ApprovalDecided")
    assert decided.by == by and not decided.approved


def test_a_persons_refusal_is_told_as_theirs_with_their_message(agent_for, site, store):
    step, told, _ = marks_run(agent_for, site, store, ScriptedApprover([Decision(False, "human:ada", "not today")]))
    assert "refused by the human supervisor" in told and "Their message: not today" in told
    assert step["outcome"] == "refused by ada: not today"


def test_a_site_rule_that_made_the_gate_ask_is_named_as_the_refuser(agent_for, site, store):
    rule = SiteRule(domain="127.0.0.1", level="irreversible", text="Keep browsing", note="no leaving the order")
    step, told, _ = marks_run(agent_for, site, store, PolicyApprover(False), rules=[rule], target="Keep browsing")
    assert step["risk"] == "irreversible" and step["decision"]["by"] == "rule:127.0.0.1"
    assert "refused by a site rule, not by a person" in told
    assert "site rule for 127.0.0.1: no leaving the order (sets irreversible, instead of read-only)" in told
    assert step["outcome"].startswith("refused by site rule: site rule for 127.0.0.1")


def test_in_pixel_mode_too(browser, store, site):
    model = PixelModel(browser, [Move("click", "#order"), Move("answer", text="stopped")], "claude", "pixels")
    with ModelServer(model) as srv, model_client(srv, dialect="claude", coords="pixels") as client:
        result = Agent(browser, client, store, approver=PolicyApprover(False),
                       config=AgentConfig(max_steps=3, wait_seconds=0.1)).run(Fresh("order", site.url("pixel_shop.html")))
        told = " ".join(p.get("text", "") for p in srv.requests[1]["messages"][-1]["content"])
    step = store.steps(result.run_id)[0]
    assert step["status"] == "refused" and "refused by this run's policy, not by a person" in told


def test_safety_checks_nobody_acknowledged_are_the_policys_refusal(browser, store, site):
    model = PixelModel(browser, [Move("click", "h1", thought="safety check pending"), Move("answer", text="done")],
                       "openai_computer")
    with ModelServer(model) as srv, model_client(srv, dialect="openai_computer") as client:
        result = Agent(browser, client, store, approver=PolicyApprover(True),
                       config=AgentConfig(max_steps=3, wait_seconds=0.1)).run(Fresh("look", site.url("pixel_shop.html")))
        follow = srv.requests[1]["input"]
    step = store.steps(result.run_id)[0]
    told = " ".join(p["text"] for item in follow if isinstance(item.get("content"), list) for p in item["content"])
    assert step["decision"]["by"] == "policy:safety-checks" and step["status"] == "refused"
    assert "refused by this run's policy, not by a person" in told and "safety checks" in told
