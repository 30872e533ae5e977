"""Issue #39: a pixel model is told of points in its own coordinates, in every dialect and space.

The scripted model (testkit.pixelmodel) answers in its dialect and space; these tests read the next request
Cockpit sent it and compare the point it is told of with the point it wrote. The step's record keeps viewport
CSS pixels for the person.
"""
import threading
import time

import pytest

from cockpit.core.actions.grammar import Action
from cockpit.core.agent.approval import Decision, ScriptedApprover
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.modelserver import ModelServer
from testkit.pixelmodel import Move, PixelModel
from tests.models import model_client


def told(request: dict) -> str:
    """What a request tells the model in words (chat: the last user message; Responses: its input's text)."""
    if "messages" in request:
        last = next(m for m in reversed(request["messages"]) if m["role"] == "user")
        return " ".join(p.get("text", "") for p in last["content"]) if isinstance(last["content"], list) \
            else last["content"]
    return " ".join(p.get("text", "") for item in request["input"] if isinstance(item.get("content"), list)
                    for p in item["content"])


def xy(p) -> str:
    return ", ".join(str(int(v)) if float(v) == int(v) else f"{v:g}" for v in p)


def feedback_run(session, store, site, moves, dialect, space, *, budget=None, approver=None, page="pixel_shop.html",
        control=None, during=None):
    model = PixelModel(session, moves, dialect, space, **({"qwen_pixels": budget} if budget else {}))
    extra = {"qwen_min_pixels": budget[0], "qwen_max_pixels": budget[1]} if budget else {}
    with ModelServer(model) as srv:
        with model_client(srv, model="pixel-test", timeout=20, dialect=dialect, coords=space, image_format="png",
                          **extra) as client:
            agent = Agent(session, client, store, approver=approver or ScriptedApprover([]), control=control,
                          config=AgentConfig(max_steps=len(moves) + 2, wait_seconds=0.1))
            if during is None:
                result = agent.run(Fresh("highlight", site.url(page)))
            else:
                out = {}
                t = threading.Thread(target=lambda: out.update(r=agent.run(Fresh("highlight", site.url(page)))))
                t.start()
                during(agent, srv)
                t.join(30)
                result = out["r"]
        return result, store.steps(result.run_id), model, srv.requests


SPACES = [  # (dialect, space, device scale, Qwen budget): every dialect, every space
    ("plain", "pixels", 2, None), ("uitars", "norm1000", 1, None), ("uitars", "qwen", 2, None),
    ("qwen", "qwen", 2, (3136, 1003520)), ("qwen", "norm1000", 2, None), ("claude", "pixels", 2, None),
    ("openai_tools", "norm1", 1, None), ("openai_computer", "pixels", 2, None)]


@pytest.mark.parametrize("dialect,space,scale,budget", SPACES)
def test_the_feedback_names_the_point_the_model_wrote(store, site, dialect, space, scale, budget):
    with BrowserSession(BrowserConfig(device_scale_factor=scale)) as session:
        result, steps, model, requests = feedback_run(session, store, site, [Move("click", "#press"),
                                                                    Move("answer", text="done")],
                                             dialect, space, budget=budget)
        assert session.js("return document.getElementById('status').textContent") == "highlighted"
    wrote, css = model.said[0], steps[0]["action"]
    feedback = told(requests[1])
    assert f"clicked at {xy(wrote)} on <div>" in feedback, feedback  # its own numbers
    assert css.startswith("Click (")
    shown = css[len("Click ("):-1]  # the person's record: viewport CSS pixels
    assert f"clicked at {shown} on" in steps[0]["outcome"]
    if shown != xy(wrote):
        assert f"clicked at {shown}" not in feedback
        assert steps[0]["pointer"]["told"].startswith(f"clicked at {xy(wrote)} on")


@pytest.mark.parametrize("space,scale,size", [("pixels", 2, "2048x1536 pixels"), ("norm1000", 1, "1000x1000"),
                                              ("qwen", 1, "1036x756 pixels"), ("qwen", 2, "1148x840 pixels")])
def test_the_prompt_names_one_size_the_one_the_points_are_in(store, site, space, scale, size):
    budget = (3136, 1003520) if (space, scale) == ("qwen", 2) else None
    dialect = "uitars" if space != "pixels" else "claude"
    with BrowserSession(BrowserConfig(device_scale_factor=scale)) as session:
        _, _, _, requests = feedback_run(session, store, site, [Move("answer", text="done")], dialect, space, budget=budget)
    text = str(requests[0].get("messages")) + str(requests[0].get("tools") or "")
    sizes = {s for s in __import__("re").findall(r"\b(\d{1,4})x(\d{1,4})\b", text)}
    assert sizes == {tuple(size.split()[0].split("x"))}, sizes  # system prompt, tools and observation agree
    assert f"The screenshot is {size}" in told(requests[0])


def test_an_error_names_the_point_and_the_action_as_the_model_wrote_them(store, site):
    class CoverWhileAsking:  # approves; meanwhile the page puts another button over the point
        def __init__(self, session):
            self.session = session

        def decide(self, request, cancel):
            self.session.js("const b = document.getElementById('order').getBoundingClientRect();"
                            "const d = document.createElement('button'); d.textContent = 'Delete account';"
                            "d.style = `position:fixed;left:${b.left}px;top:${b.top}px;width:${b.width}px;"
                            "height:${b.height}px;z-index:9`; document.body.appendChild(d);")
            return Decision(True, "human:ada")
    with BrowserSession(BrowserConfig(device_scale_factor=2)) as session:
        _, steps, model, requests = feedback_run(session, store, site, [Move("click", "#order"), Move("answer", text="x")],
                                        "plain", "pixels", approver=CoverWhileAsking(session))
    wrote = xy(model.said[0])
    feedback, css = told(requests[1]), steps[0]["action"][len("Click ("):-1]
    assert steps[0]["status"] == "changed" and f"the point ({css}) no longer hits" in steps[0]["error"]
    assert f"the point ({wrote}) no longer hits" in feedback and f"Click ({wrote}) was not done" in feedback
    assert css not in feedback


def test_a_takeover_is_told_to_the_model_in_its_coordinates(store, site):
    control, first = RunControl(), threading.Event()
    moves = [Move("wait"), Move("answer", text="done")]

    def during(agent, srv):
        deadline = time.monotonic() + 20
        while not srv.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        agent.take_over().result(20)
        centre = agent.session.js("const r = document.getElementById('press').getBoundingClientRect();"
                                  "return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]")
        first.centre = tuple(centre)
        agent.human_act(Action("click", point=tuple(centre))).result(20)
        agent.hand_back()
    with BrowserSession(BrowserConfig(device_scale_factor=2)) as session:
        result, steps, _, requests = feedback_run(session, store, site, moves, "claude", "pixels", control=control,
                                         during=during)
    x, y = first.centre
    human = next(s for s in steps if s["actor"] == "human")
    assert human["action"] == f"Click ({x}, {y})" and f"clicked at {x}, {y}" in human["outcome"]
    last = told(requests[-1])
    assert f"- Click ({2 * x}, {2 * y}): clicked at {2 * x}, {2 * y} on <div>" in last, last
