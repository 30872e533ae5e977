"""The look-ahead hook alone, with a preview: a real world-model server forecasts the proposed action, the
human at the gate is told, and what the action really changed in Chromium is stored beside the forecast."""
from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import ApprovalRequest
from cockpit.core.agent.config import AgentConfig
from cockpit.core.agent.hooks.lookahead import Lookahead
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.lookahead.worldmodel import WorldModelConfig
from cockpit.core.page import effects
from cockpit.core.page.observation import observe
from cockpit.core.safety.risk import Risk

TO_ORDER = "The browser opens the order page, which has a form to order a copy."


def preview_by(server) -> WorldModelConfig:
    model = ModelConfig(base_url=server.base_url, model="wm-model", max_retries=0, timeout=20)
    return WorldModelConfig(model, api_key="test-key", images=False)


def test_a_preview_forecasts_the_action_tells_the_gate_and_is_checked_against_the_page(hook_run, step_at,
                                                                                        site, browser):
    with ModelServer(lambda body: Reply(TO_ORDER, prompt_tokens=30, completion_tokens=10)) as wm:
        run = hook_run(AgentConfig(preview=preview_by(wm)))
        hook = Lookahead(run.scope)
        st = step_at("agent_details.html")
        hook.started(Fresh("Order a copy of the book", site.url("agent_details.html")))
        assert hook.ask(st) is None  # a preview alone: the agent's own model call decides

        mark = next(m for m in st.obs.marks if "Order a copy" in m.label)
        click = parse_action(f"Click [{mark.id}]")
        st.write(action=str(click))
        hook.proposed(st, click, mark, Risk("read-only", ()))
        assert len(wm.requests) == 1
        assert st.record.prediction.text == TO_ORDER and st.record.prediction.model == "wm-model"
        assert [(e.step, e.text, e.source) for e in run.of(ev.PredictionMade)] == [(1, TO_ORDER, "preview")]
        assert (st.record.plan_calls, st.record.plan_prompt_tokens) == (1, 30)  # its cost is planning cost

        req = ApprovalRequest(run.scope.run_id, 1, click, mark, Risk("read-only", ()), "every")
        hook.gating(st, req)
        assert req.prediction == TO_ORDER  # the human at the gate reads the forecast

        run.store.commit_step(run.scope.run_id, st.record.but(step=1, status="ok").to_row())
        run.scope.executor.run(click, st.obs.marks)
        after = observe(browser)
        eff = effects.effect(st.obs.url, st.obs.marks, st.obs.screenshot, after.url, after.marks,
                             after.screenshot)
        hook.measured(1, st.obs, after, eff.to_dict())
        hook.ended()

    actual = run.store.step(run.scope.run_id, 1)["prediction"]["actual"]
    assert actual["title_before"] == "Details" and actual["url_after"].endswith("agent_order.html")
    checked = run.of(ev.PredictionChecked)
    assert [(e.step, e.prediction) for e in checked] == [(1, TO_ORDER)] and checked[0].summary


def test_an_answer_is_not_previewed(hook_run, step_at, site):
    with ModelServer(lambda body: Reply(TO_ORDER)) as wm:
        run = hook_run(AgentConfig(preview=preview_by(wm)))
        hook = Lookahead(run.scope)
        hook.started(Fresh("Read it", site.url("agent_details.html")))
        st = step_at("agent_details.html")
        hook.proposed(st, parse_action("ANSWER; a book"), None, Risk("read-only", ()))
        hook.ended()
    assert wm.requests == [] and st.record.prediction is None and run.of(ev.PredictionMade) == []
