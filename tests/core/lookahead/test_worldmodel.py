"""World-model preview (issue #7): the prediction is stored per step and what really changed is stored
beside it (shown at the approval gate and in the step log: tests/ui/live/test_worldmodel_ui.py). Real
Chromium, real store, the real openai client against two rule-based model servers (the agent's and the
world model's)."""
from cockpit.core.agent.approval import Decision, ScriptedApprover
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, Reply
from tests.lookahead_helpers import calls, mark_in, observation, page_title, user_text, world

TO_ORDER = "The browser opens the order page, which has a form to order a copy."
TO_PLACED = "The form is sent: the <b>order</b> is placed and a confirmation page opens."


def agent_replies(body):
    title, text = page_title(body), observation(body)
    if "refused by the human supervisor" in text:
        return "Thought: not allowed.\nAction: ANSWER; not ordered"
    if title == "Details":
        return f"Thought: order it.\nAction: Click [{mark_in(text, 'Order a copy')}]"
    if title == "Order":
        return f"Thought: place it.\nAction: Click [{mark_in(text, 'Place order')}]"
    return "Thought: done.\nAction: ANSWER; ordered"


def forecasts(body):
    about = user_text(body).split("The action about to run:", 1)[1]
    if "Place order" in about:
        return Reply(TO_PLACED, prompt_tokens=40, completion_tokens=12)
    if "Order a copy" in about:
        return Reply(TO_ORDER, prompt_tokens=30, completion_tokens=10)
    return Reply("Nothing visible changes.", prompt_tokens=20, completion_tokens=5)


def test_no_preview_model_means_no_prediction_and_no_extra_calls(site, make_agent, store):
    with ModelServer(agent_replies) as srv:
        result = make_agent(srv, AgentConfig(wait_seconds=0.2)).run(Fresh("Read", site.url("agent_ordered.html")))
    step = store.steps(result.run_id)[0]
    assert step["prediction"] is None and step["plan"] is None
    assert store.run(result.run_id)["plan_calls"] == 0


def test_a_resumed_run_keeps_its_preview_model(shop, make_agent, store):
    """A run started with a world-model preview fails midway (the agent's model server fell over); resumed
    with no look-ahead chosen (as `cockpit resume` and the window without one do), its steps are still
    previewed by the run's own world model."""
    from cockpit.core.agent.start import RunContext
    from cockpit.core.replay.resume import resume
    fell_over = {"on": False}

    def flaky(body):
        if page_title(body) == "Order" and not fell_over["on"]:
            fell_over["on"] = True
            return Reply(status=500, error_message="the model server fell over")
        return agent_replies(body)
    approver = ScriptedApprover([Decision(True, "human:ada")])
    with ModelServer(flaky) as srv, ModelServer(forecasts) as wm:
        failed = make_agent(srv, AgentConfig(wait_seconds=0.2, preview=world(wm))).run(Fresh(
            "Order a copy of the book", shop.url("agent_details.html")))
        assert failed.status == "failed" and len(calls(wm, "forecast")) == 1
        fresh = make_agent(srv, AgentConfig())  # a new process's browser session and model client
        result = resume(RunContext(fresh.session, store, fresh.client, approver=approver), failed.run_id,
                        AgentConfig(wait_seconds=0.2))
    assert (result.run_id, result.status, result.answer) == (failed.run_id, "answered", "ordered")
    assert len(calls(wm, "forecast")) == 2  # the Place order click was previewed after the resume too
    placed = [s for s in store.steps(failed.run_id) if s["action"] and "Click" in s["action"]][-1]
    assert placed["prediction"]["text"] == TO_PLACED and placed["prediction"]["model"] == "wm-model"
    assert approver.requests[0].prediction == TO_PLACED  # and the human at the gate was told


def test_recorded_planning_settings_come_back_as_they_were_started():
    from cockpit.core.agent.loop import AgentConfig as Config
    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.lookahead.planning import PlanningConfig
    from cockpit.core.lookahead.worldmodel import WorldModelConfig
    from cockpit.core.replay.resume import recorded_lookahead
    judge = WorldModelConfig(ModelConfig(base_url="http://127.0.0.1:9/v1", model="sim"), images=False)
    started = Config(planning=PlanningConfig(k=4, horizon=2, samples=3, refine=False, world=judge))
    preview, planning = recorded_lookahead({"id": "r", "config": {"agent": started.to_dict()}})
    assert preview is None and planning == started.planning  # the key is never recorded, so none to compare
    assert recorded_lookahead({"id": "r", "config": {"agent": {"planning": {"k": 99}}}}) == (None, None)
    assert recorded_lookahead({"id": "r", "config": {}}) == (None, None)


def test_a_recorded_openai_world_model_without_a_key_now_is_left_out_not_fatal(memory_keyring, monkeypatch):
    """The run was started with an OpenAI world model; resuming on a machine with no OpenAI key must not fail
    the run at its start (it would then fail the same way at every resume): that world model is left out."""
    from cockpit.core.agent.loop import AgentConfig as Config
    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.lookahead.planning import PlanningConfig
    from cockpit.core.lookahead.worldmodel import WorldModelConfig
    from cockpit.core.replay.resume import usable_lookahead
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    openai_wm = WorldModelConfig(ModelConfig(base_url=None, model="gpt-4o"))
    local_wm = WorldModelConfig(ModelConfig(base_url="http://127.0.0.1:9/v1", model="local-wm"))
    run = {"id": "r", "config": {"agent": Config(preview=openai_wm, planning=PlanningConfig(
        k=2, world=openai_wm)).to_dict()}}
    agent = ModelConfig(base_url="http://127.0.0.1:8/v1", model="agent")
    preview, planning = usable_lookahead(run, agent)
    assert preview is None and planning is not None and planning.world is None and planning.k == 2
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # a key now: kept
    preview, planning = usable_lookahead(run, agent)
    assert preview.model.model == "gpt-4o" and planning.world.model.model == "gpt-4o"
    run = {"id": "r", "config": {"agent": Config(preview=local_wm).to_dict()}}
    monkeypatch.delenv("OPENAI_API_KEY")
    assert usable_lookahead(run, agent)[0].model.model == "local-wm"  # a local server needs no key
