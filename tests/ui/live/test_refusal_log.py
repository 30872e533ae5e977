"""Issue #39 item 5 in the window: the step log and the step's details say who refused an action (a person, the
run's policy, a site rule); a real run (Chromium, store, scripted model) feeds them its events."""
import pytest

from cockpit.core.agent.approval import Decision, PolicyApprover, ScriptedApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.safety.rules import SiteRule
from cockpit.core.store import Store
from cockpit.ui.live.step_details import StepDetails
from cockpit.ui.live.step_log import StepLogPanel
from tests.models import last_user_text, mark_for, model_client


def click_then_stop(target):
    def reply(body):
        if "Your last action was refused" in last_user_text(body):
            return "Thought: refused\nAction: ANSWER; stopped"
        return f"Thought: go\nAction: Click [{mark_for(body, target)}]"
    return reply


@pytest.mark.parametrize("approver,rules,target,column,detail", [
    (PolicyApprover(False), [], "Place order", "refused by policy",
     "refused by policy — actions of this kind are not allowed in this run"),
    (PolicyApprover(False), [SiteRule("127.0.0.1", "irreversible", text="Keep browsing", note="stay here")],
     "Keep browsing", "refused by site rule", "refused by site rule — site rule for 127.0.0.1: stay here"),
    (ScriptedApprover([Decision(False, "human:ada", "not today")]), [], "Place order", "rejected by ada",
     "rejected by ada — not today")])
def test_the_step_log_says_who_refused(qtbot, tmp_path, browser, site, approver, rules, target, column, detail):
    events = []
    with Store(tmp_path / "home") as store:
        with ModelServer(click_then_stop(target)) as srv, model_client(srv, timeout=20) as client:
            result = Agent(browser, client, store, approver=approver, listener=events.append,
                           config=AgentConfig(wait_seconds=0.2, risk_rules=rules)).run(
                Fresh("Order a copy", site.url("agent_order.html")))
        log = StepLogPanel()
        qtbot.addWidget(log)
        for e in events:
            log.add_event(e)
        assert log.items[1].text(2) == column
        details = StepDetails()
        qtbot.addWidget(details)
        details.show_step(store, store.run(result.run_id), store.steps(result.run_id)[0])
        assert detail in details.summary.toPlainText().replace("\n", " ")
