"""Breakpoints, action effects and the loop detector, on real Chromium."""
import threading
import time

from cockpit.core.agent import events as ev
from cockpit.core.agent.breakpoints import Breakpoint
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, Reply, scripted
from cockpit.core.page import effects
from cockpit.core.page.marks import Mark
from testkit.fakeruns import screenshot
from tests.models import by_page, mark_for


def run_in_thread(agent, task, url):
    out = {}
    t = threading.Thread(target=lambda: out.update(r=agent.run(Fresh(task, url))), daemon=True)
    t.start()
    return t, out


def wait_for(pred, timeout=20):
    end = time.monotonic() + timeout
    while not pred() and time.monotonic() < end:
        time.sleep(0.05)
    return pred()


def test_a_click_breakpoint_pauses_before_the_click_runs(site, agent_for, store, browser):
    control = RunControl()
    responder = by_page({"Agent start": lambda b: f"Thought: go\nAction: Click [{mark_for(b, 'details page')}]",
                         "Details": "Thought: done\nAction: ANSWER; 4217"})
    with ModelServer(responder) as srv:
        cfg = AgentConfig(breakpoints=[Breakpoint("action", "click"), Breakpoint("text", "nothing matches this")])
        agent = agent_for(srv, control=control, config=cfg)
        t, out = run_in_thread(agent, "Find it", site.url("agent_start.html"))
        assert wait_for(lambda: any(isinstance(e, ev.BreakpointHit) for e in agent.events))
        time.sleep(0.5)
        assert browser.title == "Agent start"  # paused before the click
        hit = next(e for e in agent.events if isinstance(e, ev.BreakpointHit))
        assert hit.step == 1 and hit.reason.startswith("action click: Click [")
        cfg.breakpoints[0].enabled = False  # cleared in the window while paused
        control.resume()
        t.join(20)
    assert out["r"].answer == "4217"
    assert cfg.breakpoints[1].hits == 0  # the text breakpoint never matched
    assert "breakpoint: action click" in store.steps(out["r"].run_id)[0]["flags"][0]


def test_no_op_and_loop_on_a_dead_button(site, agent_for, store):
    control = RunControl()
    dead = lambda b: f"Thought: press it\nAction: Click [{mark_for(b, 'Does nothing')}]"  # noqa: E731
    with ModelServer(dead) as srv:
        cfg = AgentConfig(max_steps=6, breakpoints=[Breakpoint("loop")])
        agent = agent_for(srv, control=control, config=cfg)
        t, out = run_in_thread(agent, "Press the button", site.url("agent_start.html"))
        assert wait_for(lambda: any(isinstance(e, ev.BreakpointHit) for e in agent.events))
        hit = next(e for e in agent.events if isinstance(e, ev.BreakpointHit))
        assert hit.reason.startswith("loop:")
        control.stop()
        t.join(20)
    steps = store.steps(out["r"].run_id)
    assert steps[0]["effect"]["noop"] is True and "noop" in steps[0]["flags"]
    assert steps[0]["effect"]["pixels_changed"] < 0.005 and not steps[0]["effect"]["url_changed"]
    assert any("repeated x2" in f for f in steps[1]["flags"])
    assert any(f.startswith("breakpoint: loop") for f in steps[2]["flags"])
    assert sum(isinstance(e, ev.EffectMeasured) and e.effect["noop"] for e in agent.events) >= 2
    # and on the command line, where a headless user reads a run step by step
    from tests.clitools import cockpit
    shown = cockpit(store.root, "runs", out["r"].run_id)
    assert shown.returncode == 0, shown.stderr
    step2 = shown.stdout.split("\nstep 2 ", 1)[1].split("\nstep 3 ", 1)[0]
    assert "  effect:   no visible effect" in step2 and "  flags:    " in step2 and "repeated x2" in step2


def test_a_real_click_has_an_effect(site, agent_for, store):
    responder = by_page({"Agent start": lambda b: f"Thought: go\nAction: Click [{mark_for(b, 'details page')}]",
                         "Details": "Thought: done\nAction: ANSWER; 4217"})
    with ModelServer(responder) as srv:
        result = agent_for(srv).run(Fresh("Find it", site.url("agent_start.html")))
    eff = store.steps(result.run_id)[0]["effect"]
    assert eff["url_changed"] and not eff["noop"] and eff["pixels_changed"] > 0.002  # text-only pages change little


def test_model_error_breakpoint_retries_after_resume(site, agent_for, store):
    control = RunControl()
    with ModelServer(scripted([Reply.error(500, "down"), "Thought: ok\nAction: ANSWER; back"])) as srv:
        agent = agent_for(srv, control=control, config=AgentConfig(breakpoints=[Breakpoint("model_error")]))
        t, out = run_in_thread(agent, "x", site.url("agent_start.html"))
        assert wait_for(lambda: any(isinstance(e, ev.BreakpointHit) for e in agent.events))
        assert "model error" in next(e for e in agent.events if isinstance(e, ev.BreakpointHit)).reason
        control.resume()
        t.join(20)
    assert out["r"].answer == "back"


def test_unparsable_and_step_breakpoints_pause(site, agent_for, store):
    control = RunControl()
    with ModelServer(scripted(["no idea", "Thought: a\nAction: Scroll [WINDOW]; down",
                               "Thought: b\nAction: ANSWER; x"])) as srv:
        cfg = AgentConfig(breakpoints=[Breakpoint("unparsable"), Breakpoint("step", "3")])
        agent = agent_for(srv, control=control, config=cfg)
        t, out = run_in_thread(agent, "x", site.url("agent_start.html"))
        assert wait_for(lambda: sum(isinstance(e, ev.BreakpointHit) for e in agent.events) == 1)
        time.sleep(0.3)
        assert len(srv.requests) == 1  # paused after the unparsable reply
        control.resume()
        assert wait_for(lambda: sum(isinstance(e, ev.BreakpointHit) for e in agent.events) == 2)
        time.sleep(0.3)
        assert len(srv.requests) == 2  # paused before step 3
        control.resume()
        t.join(20)
    assert out["r"].answer == "x"


def test_effect_measures():
    a, marks = screenshot(1)
    b, _ = screenshot(2)
    assert effects.pixel_change(a, a) == 0
    assert effects.pixel_change(a, b) > 0.01
    m = [Mark(i, (0, 0, 5, 5), "a", text=f"x{i}") for i in range(1, 4)]
    renumbered = [Mark(i + 10, (0, 0, 5, 5), "a", text=f"x{i}") for i in range(1, 4)]
    assert effects.marks_delta(m, renumbered) == (0, 0)
    assert effects.marks_delta(m, m[:1]) == (0, 2)
    e = effects.effect("http://x/a#top", m, a, "http://x/a", renumbered, a)
    assert e.noop and e.describe() == "no visible effect"


def test_typing_into_a_field_is_not_a_no_op():
    before = [Mark(1, (0, 0, 50, 20), "input", placeholder="Name")]
    after = [Mark(1, (0, 0, 50, 20), "input", placeholder="Name", value="Ada")]
    png, _ = screenshot(1)
    e = effects.effect("http://x/", before, png, "http://x/", after, png)
    assert not e.noop and (e.marks_added, e.marks_removed) == (1, 1)


def test_a_click_that_only_shows_a_word_is_not_a_no_op(site, agent_for, store):
    """A status line ("in stock", "Added to cart") is the whole effect of many clicks: it must not be
    flagged as doing nothing (and three of them as a loop), while a dead button still is."""
    clicks = iter(["Check stock", "Does nothing"])
    responder = lambda b: f"Thought: press\nAction: Click [{mark_for(b, next(clicks, 'Does nothing'))}]"  # noqa: E731
    with ModelServer(responder) as srv:
        result = agent_for(srv, config=AgentConfig(max_steps=3)).run(Fresh("Is it in stock?", site.url("status_word.html")))
    first, second = store.steps(result.run_id)[:2]  # (an effect is measured at the next step's observation)
    assert first["effect"]["noop"] is False and "noop" not in (first["flags"] or [])
    assert 0 < first["effect"]["pixels_changed"] < 0.005  # below the old threshold, which called it a no-op
    assert second["effect"]["noop"] is True
