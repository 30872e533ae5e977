"""Issue #39: a Qwen model served with its own pixel budget (vLLM's ``--mm-processor-kwargs '{"max_pixels":
1003520}'``) points on the grid that budget makes; told the budget, Cockpit lands its clicks where it meant.

The scripted server plays a model served that way: it sees the screenshot resized within that budget
(a 1148x840 grid at device scale 2) and points at the target's true centre on it.
"""
import math

import pytest

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.approval import PolicyApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.modelserver import ModelServer
from testkit.pixelmodel import Move, PixelModel
from tests.models import model_client

SERVED = (3136, 1003520)
MOVES = [Move("click", "#press"), Move("click", "#name"), Move("type", text="Ada"), Move("answer", text="done")]


def budget_run(session, store, site, dialect, told: bool):
    model = PixelModel(session, list(MOVES), dialect, "qwen", qwen_pixels=SERVED)
    budget = {"qwen_min_pixels": SERVED[0], "qwen_max_pixels": SERVED[1]} if told else {}
    with ModelServer(model) as srv, model_client(srv, timeout=20, dialect=dialect, coords="qwen",
                                                 image_format="png", **budget) as client:
        result = Agent(session, client, store, approver=PolicyApprover(True),
                       config=AgentConfig(max_steps=6, wait_seconds=0.1)).run(Fresh("fill", site.url("pixel_shop.html")))
    steps = store.steps(result.run_id)
    off = [math.dist(parse_action(s["action"]).point, target) for s, target in zip(steps, model.targets)
           if target is not None]
    return result, steps, off


@pytest.mark.parametrize("dialect", ["qwen", "uitars"])
def test_at_a_budget_of_1003520_and_device_scale_2_clicks_land_within_a_pixel(store, site, dialect):
    with BrowserSession(BrowserConfig(device_scale_factor=2)) as session:
        result, steps, off = budget_run(session, store, site, dialect, told=True)
        state = session.js("return [document.getElementById('status').textContent, "
                           "document.getElementById('name').value]")
    assert steps[0]["pointer"]["frame"] == {"viewport": [1024, 768], "image": [2048, 1536],
                                            "qwen_pixels": list(SERVED)}
    assert len(off) == 2 and max(off) <= 1.0, off
    assert state == ["highlighted", "Ada"] and result.status == "answered"


def test_not_told_the_budget_the_clicks_land_far_off_and_miss(store, site):
    with BrowserSession(BrowserConfig(device_scale_factor=2)) as session:
        _, steps, off = budget_run(session, store, site, "qwen", told=False)
        status = session.js("return document.getElementById('status').textContent")
    assert min(off) > 50 and status == "not highlighted"  # the grid read as 2044x1540: about 0.56 of the way
