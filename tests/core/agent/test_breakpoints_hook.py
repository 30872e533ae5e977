"""The breakpoints hook alone: a hit pauses a real run control, says why and marks the step; inside a
step it holds the run until the human resumes (or stops) it."""
import threading
import time

import pytest

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent import events as ev
from cockpit.core.agent.breakpoints import Breakpoint
from cockpit.core.agent.config import AgentConfig
from cockpit.core.agent.control import Stopped
from cockpit.core.agent.hooks.breakpoints import Breakpoints
from cockpit.core.llm.modelerrors import ModelError
from cockpit.core.safety.risk import Risk


def in_thread(fn):
    out = {}

    def go():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t, out


def held(t) -> bool:
    """The thread is still waiting (for the human) a moment later."""
    t.join(0.5)
    return t.is_alive()


def test_a_step_breakpoint_pauses_before_that_step_only(hook_run):
    run = hook_run(AgentConfig(breakpoints=[Breakpoint("step", "2")]))
    hook = Breakpoints(run.scope)
    hook.step_due(1)
    assert not run.scope.control.paused and run.events == []
    hook.step_due(2)
    assert run.scope.control.paused
    assert [(e.step, e.reason) for e in run.of(ev.BreakpointHit)] == [(2, "step 2")]
    assert run.flags == {2: ["breakpoint: step 2"]}


def test_an_unparsable_reply_pauses_only_with_its_breakpoint(hook_run, step_at):
    st = step_at("agent_start.html")
    quiet = hook_run()
    Breakpoints(quiet.scope).replied(st, None)
    assert not quiet.scope.control.paused

    run = hook_run(AgentConfig(breakpoints=[Breakpoint("unparsable")]))
    hook = Breakpoints(run.scope)
    hook.replied(st, parse_action("Scroll [WINDOW]; down"))
    assert not run.scope.control.paused
    hook.replied(st, None)
    assert run.scope.control.paused and run.flags == {1: ["breakpoint: unparsable reply"]}


def test_an_action_breakpoint_holds_the_step_until_the_human_resumes(hook_run, step_at):
    run = hook_run(AgentConfig(breakpoints=[Breakpoint("action", "click")]))
    hook = Breakpoints(run.scope)
    st = step_at("agent_start.html")
    st.write(action="Click [1]")
    click = parse_action("Click [1]")
    t, out = in_thread(lambda: hook.proposed(st, click, st.obs.marks[0], Risk("read-only", ())))
    assert held(t)
    hit = run.of(ev.BreakpointHit)
    assert [(e.step, e.reason) for e in hit] == [(1, "action click: Click [1]")]
    assert [e.between_steps for e in run.of(ev.RunPaused)] == [False]
    run.scope.control.resume()
    t.join(5)
    assert not t.is_alive() and out == {"value": None}

    # not a click: the step goes on
    hook.proposed(st, parse_action("Scroll [WINDOW]; down"), None, Risk("read-only", ()))
    assert len(run.of(ev.BreakpointHit)) == 1


def test_stopping_at_an_action_breakpoint_stops_the_run(hook_run, step_at):
    run = hook_run(AgentConfig(breakpoints=[Breakpoint("flagged")]))
    st = step_at("agent_start.html")
    st.write(action="Click [1]")
    t, out = in_thread(lambda: Breakpoints(run.scope).proposed(st, parse_action("Click [1]"), st.obs.marks[0],
                                                               Risk("irreversible", ("a test",))))
    assert held(t)
    run.scope.control.stop()
    t.join(5)
    assert isinstance(out.get("error"), Stopped)


def test_a_model_error_breakpoint_waits_then_asks_for_the_call_again(hook_run):
    error = ModelError("the server said no", reason="server")
    assert Breakpoints(hook_run().scope).model_failed(3, error) is False  # none set: the error fails the run

    run = hook_run(AgentConfig(breakpoints=[Breakpoint("model_error")]))
    t, out = in_thread(lambda: Breakpoints(run.scope).model_failed(3, error))
    assert held(t)
    assert [e.reason for e in run.of(ev.BreakpointHit)] == ["model error: the server said no"]
    time.sleep(0.1)
    run.scope.control.resume()
    t.join(5)
    assert out == {"value": True}


def test_the_loop_breakpoint_fires_when_the_detector_sees_a_loop(hook_run, step_at):
    run = hook_run(AgentConfig(breakpoints=[Breakpoint("loop")]))
    st = step_at("agent_start.html")
    st.write(action="Click [1]")
    click = parse_action("Click [1]")
    loops = run.scope.loops
    for _ in range(loops.repeats):
        loops.action(("same page", "Click [1]", "a button"))
    assert loops.looping
    hook = Breakpoints(run.scope)
    t, out = in_thread(lambda: hook.proposed(st, click, st.obs.marks[0], Risk("read-only", ())))
    assert held(t)
    assert [e.reason for e in run.of(ev.BreakpointHit)] == [f"loop: Click [1] {loops.repeats} times on an "
                                                             "unchanged page"]
    run.scope.control.resume()
    t.join(5)
    assert not t.is_alive()


@pytest.mark.parametrize("kind", ["step", "unparsable", "model_error", "loop"])
def test_a_disabled_breakpoint_never_pauses(hook_run, step_at, kind):
    bp = Breakpoint(kind, "1" if kind == "step" else "", enabled=False)
    run = hook_run(AgentConfig(breakpoints=[bp]))
    hook = Breakpoints(run.scope)
    hook.step_due(1)
    hook.replied(step_at("agent_start.html"), None)
    assert hook.model_failed(1, ModelError("x", reason="server")) is False
    assert not run.scope.control.paused and bp.hits == 0
