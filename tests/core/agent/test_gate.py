"""The approval gate of issue #17, end to end: real Chromium, real store, scripted model, fixture pages.

* a "Save" the human approved that a re-render turned into "Delete" is not clicked: looked at and asked again;
* an admin's GET "Delete" link is not irreversible (no question), its confirmation POST is (a question);
* a GET search form's "Submit" is not asked about;
* two live runs waiting at once: each answer reaches its own run, a misaddressed one reaches none.
"""
import threading
import time

import pytest

# (The new names of issue #17 are imported inside the tests that use them, so that this file
# also runs against the code before the change, where the behavioural tests fail on behaviour.)
from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.approval import Decision, ScriptedApprover
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.execute import Executor
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.page.observation import observe
from cockpit.core.safety.risk import classify
from cockpit.core.store import Store
from tests.models import by_page, last_user_text, mark_for, model_client


@pytest.fixture
def clients():
    made = []
    yield made
    for c in made:
        c.close()


def gated_agent(session, store, server, clients, approver, **kw):
    client = model_client(server, model="test-model", api_key="test-key", timeout=20)
    clients.append(client)
    return Agent(session, client, store, config=kw.pop("config", AgentConfig(wait_seconds=0.2, max_steps=6)),
                 approver=approver, **kw)


class SwapDuringApproval:
    """A human who approves; while they read the first question, the page re-renders (its own script)."""

    def __init__(self, browser):
        self.browser = browser
        self.requests = []

    def decide(self, request, cancel):
        self.requests.append(request)
        if len(self.requests) == 1:
            self.browser.js("rerender()")
        return Decision(True, "human:ada")


# ---------- bound to the exact element ----------
def test_an_approved_save_swapped_for_delete_is_not_clicked_and_is_asked_again(site, browser, store, clients):
    responder = by_page({
        "Payment method": lambda b: f"Thought: save it\nAction: Click [{mark_for(b, 'Save')}]",
        "Card saved": "Thought: done\nAction: ANSWER; saved",
        "Card deleted": "Thought: oops\nAction: ANSWER; deleted",
    })
    approver = SwapDuringApproval(browser)
    with ModelServer(responder) as srv:
        result = gated_agent(browser, store, srv, clients, approver).run(
            Fresh("Save my card", site.url("gate_card.html")))
    # What the user sees: the card was saved, never deleted.
    assert result.answer == "saved" and browser.title == "Card saved"
    steps = store.steps(result.run_id)
    assert [s["url"].rsplit("/", 1)[-1] for s in steps[:2]] == ["gate_card.html", "gate_card.html"]
    first, second = steps[0], steps[1]
    assert first["status"] == "changed", (first["status"], first.get("error"))
    assert "not what was approved" in first["error"] and '"Save", now "Delete"' in first["error"]
    assert first["outcome"].startswith("not done:")
    assert first["decision"]["approved_target"]["text"] == "Save"
    # Looked again and asked again: the second question is about the element that says Save now.
    assert len(approver.requests) == 2
    assert [r.mark.text for r in approver.requests] == ["Save", "Save"]
    assert approver.requests[0].mark.id != approver.requests[1].mark.id
    assert approver.requests[0].request_id != approver.requests[1].request_id
    assert second["status"] == "ok" and second["url_after"].endswith("gate_card_saved.html")


def test_an_approval_does_not_carry_over_to_another_action(site, browser):
    from cockpit.core.agent.execute import TargetChanged
    from cockpit.core.safety.binding import Binding
    browser.goto(site.url("gate_card.html"))
    obs = observe(browser)
    save = next(m for m in obs.marks if m.text == "Save")
    delete = next(m for m in obs.marks if m.text == "Delete")
    approved = Binding.of(parse_action(f"Click [{save.id}]"), save)
    with pytest.raises(TargetChanged, match="not the approved action"):
        Executor(browser).run(parse_action(f"Click [{delete.id}]"), obs.marks, approved=approved)
    assert browser.title == "Payment method"
    # The same element, unchanged, with the same action: it runs.
    Executor(browser).run(parse_action(f"Click [{save.id}]"), obs.marks, approved=approved)
    assert browser.title == "Card saved"


def test_a_moved_target_is_not_clicked(site, browser):
    from cockpit.core.safety.binding import Binding
    browser.goto(site.url("gate_card.html"))
    obs = observe(browser)
    save = next(m for m in obs.marks if m.text == "Save")
    approved = Binding.of(parse_action(f"Click [{save.id}]"), save)
    # A banner pushes the form down; the point of the old box is now the banner's (or nothing's).
    browser.js("const d = document.createElement('div'); d.style.height = '300px'; d.textContent = 'Sale!';"
               "document.body.prepend(d);")
    with pytest.raises(Exception, match="covered|moved|not what was approved"):
        Executor(browser).run(parse_action(f"Click [{save.id}]"), obs.marks, approved=approved)
    assert browser.title == "Payment method"


# ---------- classification from what the action does ----------
def test_a_get_delete_link_is_not_asked_and_its_confirmation_post_is(site, browser, store, clients):
    responder = by_page({
        "Change article | Site administration": lambda b: f"Thought: delete\nAction: Click [{mark_for(b, 'Delete')}]",
        "Are you sure? | Site administration": lambda b: (
            "Thought: stop\nAction: ANSWER; not deleted" if "refused by the human" in last_user_text(b)
            else f"Thought: confirm\nAction: Click [{mark_for(b, 'Yes, I')}]"),
    })
    approver = ScriptedApprover([Decision(False, "human:ada", "keep it")])
    with ModelServer(responder) as srv:
        result = gated_agent(browser, store, srv, clients, approver).run(
            Fresh("Delete the article", site.url("gate_admin_change.html")))
    assert result.answer == "not deleted"
    link, confirm = store.steps(result.run_id)[:2]
    assert link["risk"] != "irreversible" and link["status"] == "ok", link["evidence"]
    assert link["url_after"].endswith("gate_confirm_delete.html")
    assert any("GET" in e for e in link["evidence"])
    # One question, about the confirmation page's POST button, and its evidence says why.
    assert len(approver.requests) == 1
    req = approver.requests[0]
    assert req.mark.label == "Yes, I'm sure" and req.risk.level == "irreversible"
    assert any("Are you sure" in e for e in req.risk.evidence), req.risk.evidence
    assert confirm["status"] == "refused" and browser.title == "Are you sure? | Site administration"


def test_a_get_search_forms_submit_is_not_asked(site, browser, store, clients):
    responder = by_page({
        "Find a recipe": lambda b: f"Thought: search\nAction: Click [{mark_for(b, 'Submit')}]",
        "Recipes found": "Thought: done\nAction: ANSWER; 3",
    })
    approver = ScriptedApprover([])  # any question would be refused
    with ModelServer(responder) as srv:
        result = gated_agent(browser, store, srv, clients, approver).run(
            Fresh("Find lentil recipes", site.url("gate_search.html")))
    assert approver.requests == [] and result.answer == "3" and browser.title == "Recipes found"
    step = store.steps(result.run_id)[0]
    assert step["risk"] != "irreversible" and any("GET form" in e for e in step["evidence"])


def test_marks_carry_the_facts_the_gate_reads(site, browser):
    browser.goto(site.url("gate_card.html"))
    obs = observe(browser)
    by = {m.text: m for m in obs.marks}
    save, delete = by["Save"], by["Delete"]
    assert save.form_method == "post" and save.submit and save.form_payment and not save.form_password
    assert save.form_action.endswith("/gate_card_saved.html")  # the button's formaction wins
    assert delete.form_action.endswith("/gate_card_deleted.html")
    assert save.dom_path and save.dom_path != delete.dom_path and save.dom_path.startswith("html:1>body:1")
    trash = next(m for m in obs.marks if m.icon)  # a nameless button showing a trash icon
    assert trash.icon == "trash" and trash.label == "trash icon"  # named from its class (#32)
    assert classify(parse_action(f"Click [{trash.id}]"), trash, obs.marks, obs.url).level == "irreversible"
    browser.goto(site.url("gate_confirm_delete.html"))
    obs = observe(browser)
    yes = next(m for m in obs.marks if m.label == "Yes, I'm sure")
    assert "Are you sure" in yes.confirm_text
    back = next(m for m in obs.marks if m.text == "No, take me back")
    assert back.confirm_text == ""  # links do not carry it
    r = classify(parse_action(f"Click [{back.id}]"), back, obs.marks, obs.url)
    assert r.level == "read-only"


# ---------- approvals belong to the run that asked ----------
def _order_model(body):
    text = last_user_text(body)
    if "refused by the human supervisor" in text:
        return "Thought: refused\nAction: ANSWER; not ordered"
    if "The page is 'Order placed'" in text:
        return "Thought: done\nAction: ANSWER; ordered"
    return f"Thought: place it\nAction: Click [{mark_for(body, 'Place order')}]"


def test_two_live_runs_each_answer_reaches_its_own_run(site, browser, store, tmp_path, clients):
    from cockpit.core.agent.approval import ApprovalDesk
    desk = ApprovalDesk()
    results = {}
    with BrowserSession(BrowserConfig(settle_cap_ms=4000)) as other, Store(tmp_path / "home2") as store2, \
            ModelServer(_order_model) as srv:
        agents = {"a": gated_agent(browser, store, srv, clients, desk, control=RunControl()),
                  "b": gated_agent(other, store2, srv, clients, desk, control=RunControl())}
        threads = [threading.Thread(target=lambda k=k: results.update(
            {k: agents[k].run(Fresh("Order a copy", site.url("agent_order.html")))})) for k in agents]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while len(desk.pending()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        pending = {r.run_id: r for r in desk.pending()}
        assert set(pending) == {agents["a"].run_id, agents["b"].run_id}
        ra, rb = pending[agents["a"].run_id], pending[agents["b"].run_id]
        # An answer addressed to a request that is not waiting (another run's id with this one's
        # request id, or an old question) reaches no one.
        assert not desk.answer(Decision(True, "human:ada"), (ra.run_id, rb.request_id))
        assert not desk.answer(Decision(True, "human:ada"))  # no key: no one
        assert len(desk.pending()) == 2
        # B is answered first (no), then A (yes): each run gets its own answer.
        assert desk.answer(Decision(False, "human:ada", "not this one"), rb.key)
        assert desk.answer(Decision(True, "human:ada"), ra.key)
        for t in threads:
            t.join(60)
        assert results["a"].answer == "ordered" and browser.title == "Order placed"
        assert results["b"].answer == "not ordered" and other.title == "Order"
        db = store2.steps(results["b"].run_id)[0]
        assert db["status"] == "refused" and db["decision"]["message"] == "not this one"
        assert store.steps(results["a"].run_id)[0]["status"] == "ok"
        assert desk.pending() == []


def test_binding_tells_a_row_moved_from_a_notice_far_above():
    from cockpit.core.page.marks import Mark
    from cockpit.core.safety.binding import Binding
    path = "html:1>body:1>div:2>main:1>table:1>tbody:1>tr:3>td:4>button:1"
    seen = Mark(id=5, bbox=(400, 300, 60, 24), tag="button", text="Delete", dom_path=path)
    approved = Binding.of(parse_action("Click [5]"), seen)
    banner_above = Mark(id=5, bbox=(400, 300, 60, 24), tag="button", text="Delete",
                        dom_path=path.replace("div:2", "div:3"))
    assert approved.differences(parse_action("Click [5]"), banner_above) == []
    row_moved = Mark(id=5, bbox=(400, 300, 60, 24), tag="button", text="Delete", dom_path=path.replace("tr:3", "tr:1"))
    diffs = approved.differences(parse_action("Click [5]"), row_moved)
    assert len(diffs) == 1 and "place in the page" in diffs[0]
    assert approved.differences(parse_action("Click [5]"), seen, box=(400, 300, 60, 24)) == []
    assert "moved" in approved.differences(parse_action("Click [5]"), seen, box=(400, 380, 60, 24))[0]
    # A clipped box (partly scrolled off in its container) is still the same place.
    assert approved.differences(parse_action("Click [5]"), seen, box=(400, 290, 60, 40)) == []


def test_a_refusal_on_the_last_allowed_step_ends_the_run_as_refused(site, browser, store, clients):
    """Issue #30 item 6: the budget's last step was the refused one: the run was stopped at the gate."""
    responder = by_page({
        "Change article | Site administration": lambda b: f"Thought: delete\nAction: Click [{mark_for(b, 'Delete')}]",
        "Are you sure? | Site administration": lambda b: f"Thought: confirm\nAction: Click [{mark_for(b, 'Yes, I')}]",
    })
    approver = ScriptedApprover([Decision(False, "human:ada", "keep it")])
    with ModelServer(responder) as srv:
        result = gated_agent(browser, store, srv, clients, approver,
                            config=AgentConfig(wait_seconds=0.2, max_steps=2)).run(
            Fresh("Delete the article", site.url("gate_admin_change.html")))
    assert len(approver.requests) == 1 and store.steps(result.run_id)[-1]["status"] == "refused"
    assert result.status == "refused" and store.run(result.run_id)["status"] == "refused"


# ---------- an action edited at the gate (issue #38) ----------
def test_a_click_retargeted_from_place_order_to_a_field_is_rated_as_that_click(shop, browser, store, clients):
    """The person aims "Place order" at the Name field: the step is that click, with its own risk, not the
    order button's; the decision keeps what was proposed and says it was edited."""
    proposed = {}

    def order(b):
        proposed.update(place=mark_for(b, "Place order"), name=mark_for(b, "Name"))
        return f"Thought: order it\nAction: Click [{proposed['place']}]"
    responder = by_page({"Order": [order, "Thought: later\nAction: ANSWER; not ordered"]})

    class Retarget:
        requests = []

        def decide(self, request, cancel):
            self.requests.append(request)
            return Decision(True, "human:ada", action=parse_action(f"Click [{proposed['name']}]"))
    approver = Retarget()
    with ModelServer(responder) as srv:
        result = gated_agent(browser, store, srv, clients, approver,
                             config=AgentConfig(wait_seconds=0.2, max_steps=3)).run(
            Fresh("Order a copy", shop.url("agent_order.html")))
    asked = approver.requests[0]
    assert asked.risk.level == "irreversible"
    step = store.steps(result.run_id)[0]
    ran = f"Click [{proposed['name']}]"
    assert step["action"] == ran and step["status"] == "ok" and not shop.posts  # no order was sent
    # before the fix: the field's click was stored as irreversible, with the order button's evidence
    assert step["risk"] != "irreversible" and not any("Place order" in e for e in step["evidence"])
    d = store.decisions(result.run_id)[0]
    assert (d["action"], d["risk"], d["edited_action"], d["by"]) == (
        f"Click [{proposed['place']}]", "irreversible", ran, "human:ada")
    assert step["decision"]["proposed_action"] == f"Click [{proposed['place']}]"
    # a replay asks only where the action that ran is itself risky: the click on a field runs unasked
    from cockpit.core.agent.start import RunContext
    from cockpit.core.replay.replay import replay
    replayer = ScriptedApprover([])  # no one to say yes: before the fix the replay stopped here, refused
    done = replay(RunContext(browser, store, approver=replayer), result.run_id)
    assert replayer.requests == [] and [r.step for r in done if r.action] == [1] and not shop.posts
    assert asked.boxes == len(observe(browser).marks) >= 2  # what the gate's edit field checks numbers against


def test_the_terminal_approver_refuses_an_edit_to_a_box_not_on_the_screenshot(shop, browser, store, clients):
    """`--approval ask`: "e", then `Click [99]` on a page of three boxes: said so before anything runs, and asked
    again (here: no). Before the fix the click ran, failed ("there is no element [99]") and spent a step."""
    from cockpit.core.agent.approval import TerminalApprover
    from tests.clitools import Tty
    responder = by_page({"Order": [lambda b: f"Thought: order it\nAction: Click [{mark_for(b, 'Place order')}]",
                                   "Thought: later\nAction: ANSWER; not ordered"]})
    out = Tty()
    approver = TerminalApprover("ada", stdin=Tty("e\nClick [99]\nn\nnot now\n"), stdout=out)
    with ModelServer(responder) as srv:
        result = gated_agent(browser, store, srv, clients, approver,
                             config=AgentConfig(wait_seconds=0.2, max_steps=3)).run(
            Fresh("Order a copy", shop.url("agent_order.html")))
    boxes = len(observe(browser).marks)
    assert f"there is no box [99] on this screenshot: the boxes are [1] to [{boxes}]" in out.getvalue()
    step = store.steps(result.run_id)[0]
    assert (step["status"], step["outcome"]) == ("refused", "refused by ada: not now") and not shop.posts
    assert [(d["approved"], d["edited_action"]) for d in store.decisions(result.run_id)] == [(0, None)]
