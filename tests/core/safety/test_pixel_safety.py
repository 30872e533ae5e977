"""What a second reading of the pixel gate found (issue #27), each now a test on real Chromium:
a newline typed into an order form, a click inside a cross-origin payment frame, secrets typed into the focus,
an un-gated point whose element changed before dispatch, the mark grammar left as it was."""
import json

import pytest

from cockpit.core.actions import coords
from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import Decision, ScriptedApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.errors import ActionParseError
from cockpit.core.llm.modelserver import ModelServer, scripted
from cockpit.core.page.marks import Mark
from cockpit.core.safety.risk_point import classify_point
from testkit.pixelmodel import Move
from tests.core.agent.test_pixel_agent import run_pixel
from tests.models import model_client


def test_a_newline_typed_into_an_order_form_is_enter_and_the_gate_asks(browser, store, site):
    approver = ScriptedApprover([Decision(False, "human:ada", "no")])
    result, steps, _, _ = run_pixel(browser, store, site, [
        Move("click", "#name"), Move("type", text="Ada\n"), Move("answer", text="stopped")],
        dialect="uitars", space="qwen", approver=approver)
    assert len(approver.requests) == 1 and approver.requests[0].risk.level == "irreversible"
    assert steps[1]["status"] == "refused" and browser.title == "Pixel shop"


def test_a_click_inside_a_cross_origin_payment_frame_is_asked(browser, store, site):
    approver = ScriptedApprover([Decision(False, "human:ada", "no")])
    browser.goto(site.url("pixel_pay.html"))
    box = browser.js("var r = document.getElementById('payframe').getBoundingClientRect();"
                     "return [r.left + 60, r.top + 30]")
    with ModelServer(scripted([f"Thought: pay\nAction: Click ({round(box[0])}, {round(box[1])})",
                               "Thought: ok\nAction: ANSWER; done"])) as srv:
        with model_client(srv, dialect="plain") as client:
            result = Agent(browser, client, store, approver=approver, config=AgentConfig(max_steps=3)).run(
                Fresh("pay", site.url("pixel_pay.html")))
    steps = store.steps(result.run_id)
    assert approver.requests, steps[0]
    assert approver.requests[0].risk.level == "irreversible"
    assert "cannot see" in approver.requests[0].risk.evidence[0]
    assert steps[0]["status"] == "refused"


@pytest.mark.parametrize("dialect", ["plain", "openai_tools"])
def test_a_password_typed_into_the_focus_is_never_recorded_or_sent_back(browser, store, site, dialect):
    result, steps, _, requests = run_pixel(browser, store, site, [
        Move("click", "input[type=password]"), Move("type", text="hunter2"), Move("answer", text="in")],
        dialect=dialect, page="secret_login.html")
    assert steps[1]["action"] == "Type; (secret)", steps[1]
    for row in steps:
        assert "hunter2" not in json.dumps(row, default=str)
    assert "hunter2" not in json.dumps(requests[2])  # the conversation sent on after it


def test_an_ungated_point_whose_element_changed_before_the_click_is_not_clicked(browser, store, site):
    def swap(event):  # between the gate (read-only text) and the dispatch, the page puts an order button there
        if isinstance(event, ev.ActionProposed) and event.step == 1:
            browser.js("var h = document.querySelector('h1'); h.outerHTML = "
                       "'<form method=post action=agent_ordered.html><button style=\"font-size:32px\">Place order"
                       "</button></form>'")
    from testkit.pixelmodel import PixelModel
    model = PixelModel(browser, [Move("click", "h1"), Move("answer", text="done")], "plain")
    with ModelServer(model) as srv:
        with model_client(srv, dialect="plain", image_format="png") as client:
            result = Agent(browser, client, store, listener=swap, config=AgentConfig(max_steps=3)).run(
                Fresh("t", site.url("pixel_shop.html")))
    steps = store.steps(result.run_id)
    assert steps[0]["risk"] == "read-only" and steps[0]["status"] == "error", steps[0]
    assert browser.title == "Pixel shop"  # the order button that appeared was not pressed


def test_a_drag_dropped_on_delete_is_rated_by_where_it_ends():
    card = Mark(1, (10, 10, 100, 40), "div", text="Invoice 7", reason="listener")
    trash = Mark(2, (300, 10, 80, 40), "button", text="Delete forever", reason="native")
    risk = classify_point(Action("drag", point=(50, 30), end=(340, 30)), card, [card, trash], "http://x/",
                          end=(trash, {}))
    assert risk.level == "irreversible" and "the drag ends on it" in risk.evidence[0]


def test_the_mark_grammar_is_as_it_was_for_set_of_mark_models():
    for text in ("Type 'laptop' into [5]", 'Type "hello" [3]', "Click (600, 475)", "DoubleClick (3, 4)"):
        with pytest.raises(ActionParseError):
            parse_action(text, pixel=False)
    assert str(parse_action("Click [12, 3]", pixel=False)) == "Click [12]"
    with pytest.raises(ActionParseError):  # not typing the whole phrase into the focus in pixel mode either
        parse_action("Type 'laptop' into [5]")


def test_canonical_typed_text_reads_back_verbatim_and_a_negative_point_is_refused():
    for a in (Action("type", text="ada\n", focused=True), Action("type", text=" **bold** ", point=(3, 4)),
              Action("scroll", delta=(0, 400))):
        assert parse_action(str(a)) == a
    frame = coords.Frame((1024, 768), (1024, 768))
    with pytest.raises(coords.PointOutside):
        coords.place(parse_action("Click (-1, -1)"), "pixels", frame)
    assert coords.place(parse_action("Scroll by (0, 400)"), "pixels", frame).point == (512, 384)


def test_qwens_grid_uses_its_processors_pixel_budget():
    assert coords.smart_resize(768, 1024) == (756, 1036)
    assert coords.smart_resize(1536, 2048) == (1540, 2044)  # device scale 2: as vLLM feeds it, not shrunk


def test_auto_reads_a_marks_reply_as_a_format_error(browser, store, site):
    with ModelServer(scripted(["Thought: x\nAction: Click [1]", "Thought: y\nAction: ANSWER; done"])) as srv:
        with model_client(srv, dialect="auto") as client:
            result = Agent(browser, client, store, config=AgentConfig(max_steps=3)).run(
                Fresh("t", site.url("pixel_shop.html")))
    steps = store.steps(result.run_id)
    assert steps[0]["status"] == "format_error" and "Format ERROR" in steps[0]["error"]


@pytest.mark.parametrize("who", ["human:ada", "policy:allow"])
def test_openai_safety_checks_are_shown_and_acknowledged_only_by_a_person(browser, store, site, who):
    from cockpit.core.agent.approval import PolicyApprover
    approver = (ScriptedApprover([Decision(True, who)]) if who.startswith("human") else PolicyApprover(True))
    result, steps, _, requests = run_pixel(browser, store, site, [
        Move("click", "h1", thought="safety check pending"), Move("answer", text="done")],
        dialect="openai_computer", approver=approver)
    check_id = steps[0]["pointer"]["safety_checks"][0]["id"]
    follow = requests[1]["input"][0]
    if who.startswith("human"):  # asked although the click itself is read-only; the check went back acknowledged
        assert approver.requests and "safety check irrelevant_domain" in approver.requests[0].risk.evidence[0]
        assert steps[0]["status"] == "ok"
        assert follow["acknowledged_safety_checks"][0]["id"] == check_id
    else:  # a policy cannot acknowledge it: refused, and nothing acknowledged
        assert steps[0]["status"] == "refused" and "person" in steps[0]["outcome"]
        assert "acknowledged_safety_checks" not in follow
