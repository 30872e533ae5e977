"""World-model preview (issue #7) in the window: the prediction is stored per step, shown at the approval
gate and in the step log, and what really changed is stored beside it. Offscreen Qt, real Chromium, real
store, the real openai client against two rule-based model servers (the agent's and the world model's)."""
from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import Decision, ScriptedApprover
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.ui.live.approval_panel import ApprovalPanel
from cockpit.ui.live.step_details import StepDetails
from cockpit.ui.live.step_log import StepLogPanel
from tests.core.lookahead.test_worldmodel import TO_ORDER, TO_PLACED, agent_replies, forecasts
from tests.lookahead_helpers import calls, world


def test_preview_is_stored_shown_at_the_gate_and_checked_against_what_happened(shop, make_agent, store, qtbot):
    approver = ScriptedApprover([Decision(True, "human:ada")])
    with ModelServer(agent_replies) as srv, ModelServer(forecasts) as wm:
        agent = make_agent(srv, AgentConfig(wait_seconds=0.2, preview=world(wm, api_key="wm-key")), approver=approver)
        result = agent.run(Fresh("Order a copy of the book", shop.url("agent_details.html")))
    assert (result.status, result.answer) == ("answered", "ordered")
    assert shop.posts == ["/agent_ordered.html"]  # approved, so it ran
    steps = store.steps(result.run_id)
    first, second, last = steps
    # the prediction is stored with the step, by the world model, about the action that ran
    assert first["prediction"]["text"] == TO_ORDER and first["prediction"]["model"] == "wm-model"
    assert first["prediction"]["action"] == first["action"] and first["prediction"]["source"] == "preview"
    assert (first["prediction"]["prompt_tokens"], first["prediction"]["completion_tokens"]) == (30, 10)
    assert second["prediction"]["text"] == TO_PLACED
    assert last["prediction"] is None  # an ANSWER changes no page: nothing to predict
    # and next to it, what really changed
    actual = first["prediction"]["actual"]
    assert actual["url_after"].endswith("agent_order.html") and actual["title_after"] == "Order"
    assert actual["title_before"] == "Details" and actual["effect"]["url_changed"] is True
    assert second["prediction"]["actual"]["title_after"] == "Order placed"
    # the world model saw the page (screenshot and elements), the task and the action, under its own prompt
    asked = calls(wm, "forecast")
    assert len(asked) == 2 and len(wm.requests) == 2
    assert asked[1]["model"] == "wm-model"
    content = asked[1]["messages"][1]["content"]
    assert content[1]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    assert "Order a copy of the book" in content[0]["text"] and "Place order" in content[0]["text"]
    # the preview calls are counted apart from the agent's
    run = store.run(result.run_id)
    assert (run["plan_calls"], run["plan_prompt_tokens"], run["plan_completion_tokens"]) == (2, 70, 22)
    assert run["prompt_tokens"] == sum(s["prompt_tokens"] for s in steps)
    assert run["config"]["agent"]["preview"]["model"]["model"] == "wm-model"
    assert "wm-key" not in str(run["config"])
    # the human at the gate was told what approving would do, as plain text
    req = approver.requests[0]
    assert req.prediction == TO_PLACED
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    panel.show_request(req)
    assert panel.prediction.isVisible()
    assert panel.prediction.text() == f"If you approve: {TO_PLACED}"  # "<b>" shown as written, not bold
    assert panel.prediction.textFormat() == panel.prediction.textFormat().PlainText
    # the step log shows prediction and outcome, live and from the store
    made = [e for e in agent.events if isinstance(e, ev.PredictionMade)]
    assert [(e.step, e.text) for e in made] == [(1, TO_ORDER), (2, TO_PLACED)]
    names = [type(e).__name__ for e in agent.events]
    assert names.index("PredictionMade") < names.index("ApprovalRequested")
    log = StepLogPanel()
    qtbot.addWidget(log)
    for e in agent.events:
        log.add_event(e)
    children = [log.items[2].child(i).text(0) for i in range(log.items[2].childCount())]
    assert f"predicted: {TO_PLACED}" in children
    assert any(c.startswith("actually: went to 'Order placed'") for c in children)
    details = StepDetails()
    qtbot.addWidget(details)
    details.show_step(store, store.run(result.run_id), steps[1])
    text = details.summary.toPlainText()
    assert f"Predicted {TO_PLACED}" in text.replace("\t", " ").replace("\n", " ")
    assert "went to 'Order placed'" in text
