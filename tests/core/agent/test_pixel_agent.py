"""Pixel-grounded models end to end (issue #27): real Chromium, real store, a scripted pixel model over HTTP.

The scripted model (testkit.pixelmodel) points at the true centre of each target on the live page,
converted into its coordinate space for the screenshot the request carries; these tests check where the
action lands, what the page did, what the gate asked and what was recorded.
"""
import pytest

from cockpit.core.agent.approval import Decision, ScriptedApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.modelserver import ModelServer
from testkit.pixelmodel import Move, PixelModel
from tests.models import model_client


def run_pixel(session, store, site, moves, *, dialect="plain", space="pixels", approver=None, page="pixel_shop.html",
              max_width=None, policy="irreversible"):
    model = PixelModel(session, moves, dialect, space)
    with ModelServer(model) as srv:
        with model_client(srv, model="pixel-test", timeout=20, dialect=dialect, coords=space,
                          image_max_width=max_width, image_format="png") as client:
            agent = Agent(session, client, store, approver=approver or ScriptedApprover([]),
                          config=AgentConfig(max_steps=len(moves) + 1, wait_seconds=0.1, approval_policy=policy))
            result = agent.run(Fresh("reserve and order", site.url(page)))
        return result, store.steps(result.run_id), model, srv.requests


def test_a_mousedown_only_control_is_pressed_at_its_point(browser, store, site):
    result, steps, model, requests = run_pixel(browser, store, site, [
        Move("click", "#press"), Move("answer", text="reserved")])
    assert result.status == "answered"
    assert browser.js("return document.getElementById('status').textContent") == "highlighted"
    first = steps[0]
    x, y = model.targets[0]
    assert first["action"] == f"Click ({round(x)}, {round(y)})"
    assert first["pointer"]["mode"] == "pixels" and first["pointer"]["dialect"] == "plain"
    assert "Hold to highlight" in first["pointer"]["resolved"]["text"]
    # the model saw a clean screenshot: no element list, the stored image is the clean one
    sent = requests[0]["messages"][1]["content"][0]["text"]
    assert "[1]:" not in sent and "The screenshot is 1024x768 pixels" in sent


def test_the_gate_asks_before_a_pixel_click_on_place_order_and_a_refusal_keeps_the_page(browser, store, site):
    approver = ScriptedApprover([Decision(False, "human:ada", "not today")])
    result, steps, model, _ = run_pixel(browser, store, site, [
        Move("click", "#order"), Move("answer", text="stopped")], approver=approver)
    assert len(approver.requests) == 1
    req = approver.requests[0]
    assert req.risk.level == "irreversible" and req.action.point is not None
    assert req.mark is not None and req.mark.text == "Place order"
    assert steps[0]["status"] == "refused"
    assert browser.title == "Pixel shop"  # nothing was submitted
    assert result.status == "refused"


def test_a_point_on_plain_text_is_read_only_and_not_asked(browser, store, site):
    approver = ScriptedApprover([])
    result, steps, _, _ = run_pixel(browser, store, site, [Move("click", "h1"), Move("answer", text="ok")],
                                    approver=approver)
    assert approver.requests == []
    assert steps[0]["risk"] == "read-only" and "not a control" in steps[0]["evidence"][0]


class SwapWhileAsking:
    """Approves; while the person reads the question, the page swaps the button under the point."""

    def __init__(self, browser):
        self.browser, self.requests = browser, []

    def decide(self, request, cancel):
        self.requests.append(request)
        if len(self.requests) == 1:
            self.browser.js("document.getElementById('slot').innerHTML = "
                            "'<button id=\"del\" type=\"submit\" formaction=\"gate_deleted.html\">Delete account</button>'")
            return Decision(True, "human:ada")
        return Decision(False, "human:ada", "no")


def test_an_approved_point_whose_element_was_swapped_is_not_clicked(browser, store, site):
    approver = SwapWhileAsking(browser)
    result, steps, _, _ = run_pixel(browser, store, site, [
        Move("click", "#order"), Move("click", "#del"), Move("answer", text="stopped")], approver=approver)
    assert steps[0]["status"] == "changed", steps[0]
    assert "not done" in steps[0]["outcome"]
    assert browser.title == "Pixel shop"
    assert len(approver.requests) == 2  # asked again about the new element
    assert approver.requests[1].mark.text == "Delete account"


def test_a_point_outside_the_screenshot_is_refused_and_nothing_is_clicked(browser, store, site):
    from cockpit.core.llm.modelserver import scripted
    with ModelServer(scripted(["Thought: far away\nAction: Click (5000, 10)",
                               "Thought: done\nAction: ANSWER; gave up"])) as srv:
        with model_client(srv, dialect="plain") as client:
            result = Agent(browser, client, store, config=AgentConfig(max_steps=3)).run(
                Fresh("t", site.url("pixel_shop.html")))
        feedback = srv.requests[1]["messages"][-1]["content"][0]["text"]
    steps = store.steps(result.run_id)
    assert steps[0]["status"] == "format_error"
    assert "outside the screenshot" in steps[0]["error"] and "outside the screenshot" in feedback
    assert browser.js("return document.getElementById('status').textContent") == "not highlighted"


@pytest.mark.parametrize("scale,max_width,space", [(1, None, "pixels"), (2, None, "pixels"), (2, 800, "pixels"),
                                                   (1, None, "qwen"), (2, 800, "norm1000")])
def test_points_convert_to_the_target_at_any_scale_and_resize(store, site, scale, max_width, space):
    with BrowserSession(BrowserConfig(device_scale_factor=scale)) as session:
        result, steps, model, requests = run_pixel(session, store, site, [
            Move("click", "#press"), Move("answer", text="reserved")], max_width=max_width, space=space)
        assert session.js("return document.getElementById('status').textContent") == "highlighted"
    frame = steps[0]["pointer"]["frame"]
    assert frame["image"][0] == (max_width or 1024 * scale)
    from cockpit.core.actions import coords
    x, y = model.targets[0]
    fr = coords.Frame(tuple(frame["viewport"]), tuple(frame["image"]))
    said = coords.to_model((x, y), space, fr)  # what the model wrote: the target on its own grid
    assert steps[0]["pointer"]["model_action"] == f"Click ({said[0]}, {said[1]})"
    done = steps[0]["action"]
    px, py = (int(v) for v in done[done.index("(") + 1:done.index(")")].split(","))
    assert (px, py) == coords.to_viewport(said, space, fr)  # no error added by the conversion
    err = ((px - x) ** 2 + (py - y) ** 2) ** 0.5  # only the grid's own rounding
    assert err <= (1.0 if space == "pixels" else 1.6), (done, x, y)


DIALECT_SPACES = [("plain", "pixels"), ("uitars", "qwen"), ("uitars", "norm1000"), ("qwen", "qwen"),
                  ("claude", "pixels"), ("openai_tools", "norm1"), ("openai_computer", "pixels")]


@pytest.mark.parametrize("dialect,space", DIALECT_SPACES)
def test_every_dialect_clicks_types_presses_and_answers(browser, store, site, dialect, space):
    result, steps, model, requests = run_pixel(browser, store, site, [
        Move("click", "#name"), Move("type", text="Ada"), Move("click", "#press"), Move("answer", text="done")],
        dialect=dialect, space=space)
    assert result.status == "answered" and result.answer == "done", [s.get("error") for s in steps]
    assert browser.js("return document.getElementById('name').value") == "Ada"
    assert browser.js("return document.getElementById('status').textContent") == "highlighted"
    assert [s["pointer"]["dialect"] for s in steps] == [dialect] * 4
    assert steps[1]["action"] == "Type; Ada"
    if dialect == "openai_computer":  # the Responses API: the next turn answers the computer call
        assert requests[1]["previous_response_id"] and requests[1]["input"][0]["type"] == "computer_call_output"
    elif dialect in ("claude", "openai_tools"):  # tool calls are answered by a tool message
        assert any(m["role"] == "tool" for m in requests[1]["messages"]) and requests[0]["tools"]


def test_auto_detects_the_dialect_from_each_reply(browser, store, site):
    from cockpit.core.llm.modelserver import scripted
    with ModelServer(scripted([
            "Thought: press it\nAction: click(start_box='<|box_start|>(114,153)<|box_end|>')",
            "Thought: done\nAction: ANSWER; done"])) as srv:
        with model_client(srv, dialect="auto") as client:
            result = Agent(browser, client, store, config=AgentConfig(max_steps=3)).run(
                Fresh("t", site.url("pixel_shop.html")))
    steps = store.steps(result.run_id)
    assert steps[0]["pointer"]["dialect"] == "uitars" and steps[0]["action"].startswith("Click (")
    assert result.status == "answered"


def test_a_pixel_run_replays_and_stops_where_its_point_now_hits_something_else(browser, store, site):
    from cockpit.core.agent.start import RunContext
    from cockpit.core.replay.replay import Diverged, ReplayOptions, replay
    result, steps, _, _ = run_pixel(browser, store, site, [Move("click", "#press"), Move("answer", text="ok")])
    browser.goto(site.url("pixel_shop.html"))
    assert browser.js("return document.getElementById('status').textContent") == "not highlighted"
    done = replay(RunContext(browser, store), result.run_id, None)
    assert [d.recorded_action for d in done][:1] == [steps[0]["action"]]
    assert browser.js("return document.getElementById('status').textContent") == "highlighted"
    browser.js("localStorage.setItem('moved', '1')")
    try:
        with pytest.raises(Diverged) as e:
            replay(RunContext(browser, store), result.run_id, None, ReplayOptions(check=False))  # the point alone
    finally:
        browser.js("localStorage.removeItem('moved')")
    assert "now hits <div> \"Delete all\"" in str(e.value) and "Hold to highlight" in str(e.value)
    assert browser.js("return document.getElementById('status').textContent") == "not highlighted"


@pytest.mark.parametrize("dialect", ["plain", "openai_tools", "openai_computer"])
def test_reasking_a_pixel_step_sends_the_clean_screenshot_and_reads_the_reply_in_its_dialect(
        browser, store, site, dialect):
    from cockpit.core.page.images import from_data_url
    from cockpit.core.replay.reask import ReaskEdit, reask
    from testkit.pixelmodel import encode
    result, steps, _, _ = run_pixel(browser, store, site, [Move("click", "#press"), Move("answer", text="ok")],
                                    dialect=dialect, space="pixels")
    space_reply = encode(dialect, Move("click"), (200, 100))
    with ModelServer([space_reply]) as srv:
        res = reask(store, result.run_id, 1, ReaskEdit(base_url=srv.base_url), api_key="k")
        sent = srv.requests[0]
    assert res.original_action == steps[0]["action"] and res.new_action == "Click (200, 100)" and res.changed
    clean = store.read_file(steps[0]["screenshot_clean"])
    images = [from_data_url(u) for u in _image_urls(sent)]
    assert images == [clean]  # the screenshot the model saw: clean, not marked
    if dialect == "openai_computer":
        assert "input" in sent and "tools" in sent and sent["tools"][0]["type"].startswith("computer")
    elif dialect == "openai_tools":
        assert sent["tools"] and sent["messages"][0]["role"] == "system"


def _image_urls(body):
    out = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "image_url":
                    out.append(v["url"] if isinstance(v, dict) else v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(body)
    return out


@pytest.mark.parametrize("dialect", ["openai_tools", "openai_computer"])
def test_a_pixel_run_branches_at_step_k_and_goes_on_in_its_dialect(browser, store, site, dialect):
    from cockpit.core.agent.start import RunContext
    from cockpit.core.replay.branch import branch
    result, steps, _, _ = run_pixel(browser, store, site, [
        Move("click", "#name"), Move("type", text="Ada"), Move("click", "h1"), Move("answer", text="first")],
        dialect=dialect)
    model = PixelModel(browser, [Move("click", "#press"), Move("answer", text="second")], dialect, "pixels")
    with ModelServer(model) as srv:
        with model_client(srv, model="pixel-test", dialect=dialect, image_format="png") as client:
            res = branch(RunContext(browser, store, client=client, approver=ScriptedApprover([])), result.run_id, 3,
                         config=AgentConfig(max_steps=3, wait_seconds=0.1))
        first = srv.requests[0]
    assert res.status == "answered" and res.answer == "second", res
    assert browser.js("return document.getElementById('name').value") == "Ada"  # steps 1-2 replayed at their points
    assert browser.js("return document.getElementById('status').textContent") == "highlighted"
    if dialect == "openai_computer":  # a new chain, told what happened before
        assert "previous_response_id" not in first
        assert "Earlier steps of this task" in first["input"][0]["content"][0]["text"]
    else:
        roles = [m["role"] for m in first["messages"]]
        assert roles[0] == "system" and roles[-1] == "user" and first["tools"]
        for i, m in enumerate(first["messages"]):  # every tool call is answered before the next turn
            if m.get("tool_calls"):
                assert first["messages"][i + 1]["role"] == "tool"
