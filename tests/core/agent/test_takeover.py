"""Taking the browser over while the agent waits at the gate or on the model (issue #38): the person's actions
run at once on the page they see, and the agent's pending action never runs. Real Chromium, real store, the
real openai client on the scripted model server, the window's kind of approver (ApprovalDesk: it waits)."""
import threading

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import ApprovalDesk
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.gate import TOOK_OVER
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.replay.branch import history_before
from tests.models import by_page, last_user_text, mark_for
from tests.waiting import PATIENCE, within


def _run_in_thread(agent, start):
    out = {}
    t = threading.Thread(target=lambda: out.update(result=agent.run(start)), daemon=True)
    t.start()
    return t, out


def test_taking_over_at_the_gate_drops_the_pending_action_and_acts_at_once(shop, agent_for, store):
    responder = by_page({
        "Order": lambda b: f"Thought: place it.\nAction: Click [{mark_for(b, 'Place order')}]",
        "Details": "Thought: the human brought me here.\nAction: ANSWER; 4217",
    })
    desk = ApprovalDesk()  # waits for an answer, as the window's approval panel does
    with ModelServer(responder) as srv:
        agent = agent_for(srv, approver=desk, control=RunControl())
        t, out = _run_in_thread(agent, Fresh("Order a copy", shop.url("agent_order.html")))
        assert within(lambda: desk.pending()), "the gate never asked"
        asked = desk.pending()[0]
        assert asked.display.startswith("Click [")

        seen = agent.take_over("human:ada").result(PATIENCE)  # resolves although no one answered the gate
        assert desk.pending() == []  # the question is gone: nobody can approve the dropped action any more
        assert seen.url.endswith("agent_order.html") and seen.title == "Order"  # the page the person sees

        typed = agent.human_act(parse_action(f"Type [{next(m.id for m in seen.marks if m.tag == 'input')}]; Ada"))
        row = typed.result(PATIENCE)
        assert row["status"] == "ok" and row["url_after"].endswith("agent_order.html")
        link = next(m.id for m in agent.last_obs.marks if "Keep browsing" in m.text)
        went = agent.human_act(parse_action(f"Click [{link}]")).result(PATIENCE)
        assert went["url_after"].endswith("agent_start.html")
        details = next(m.id for m in agent.last_obs.marks if "details" in m.text)
        agent.human_act(parse_action(f"Click [{details}]")).result(PATIENCE)
        agent.hand_back()
        t.join(PATIENCE)

    assert shop.posts == []  # the order form was never sent: the irreversible click did not run
    result = out["result"]
    assert (result.status, result.answer) == ("answered", "4217")  # not "refused": nobody refused at the gate
    steps = store.steps(result.run_id)
    dropped = steps[0]
    assert dropped["action"] == asked.display and dropped["status"] == "refused"
    assert dropped["outcome"] == f"rejected: {TOOK_OVER}"
    assert dropped["decision"]["by"] == "human:ada" and dropped["decision"]["took_over"]
    decision = store.decisions(result.run_id)[0]
    assert (decision["approved"], decision["by"], decision["message"], decision["policy"]) == (
        0, "human:ada", TOOK_OVER, "take-over")
    assert [s["actor"] for s in steps] == ["agent", "human", "human", "human", "agent"]
    told = last_user_text(srv.requests[-1])  # the model is told what happened, honestly
    assert "not executed: the human supervisor took over the browser before it ran" in told
    assert "the human supervisor took over and did:" in told and f"- Click [{link}]: clicked" in told
    decided = [e for e in agent.events if isinstance(e, ev.ApprovalDecided)]
    assert [(e.approved, e.by, e.message) for e in decided] == [(False, "human:ada", TOOK_OVER)]
    for step in (2, 5):  # a branch is told the same: from the prompt stored at 5, rebuilt from the rows at 2
        _, lead = history_before(store, result.run_id, step)
        assert lead.startswith("Your last action was not executed: the human supervisor took over"), (step, lead)
    assert f"- Click [{link}]: clicked" in lead


def test_taking_over_while_the_model_thinks_drops_its_reply_without_asking(shop, agent_for, store):
    """The model's action arrives after the person took the browser: it does not run under their hands, and
    the gate does not ask them about it."""
    replies = iter([Reply(text="Thought: scroll.\nAction: Scroll [WINDOW]; down", delay=1.5),
                    Reply(text="Thought: done.\nAction: ANSWER; done")])
    desk = ApprovalDesk()
    with ModelServer(lambda body: next(replies)) as srv:
        agent = agent_for(srv, approver=desk, control=RunControl())
        t, out = _run_in_thread(agent, Fresh("Look around", shop.url("agent_start.html")))
        assert within(lambda: len(srv.requests) == 1)
        seen = agent.take_over("human:ada").result(PATIENCE)
        assert seen.url.endswith("agent_start.html")
        assert agent.session.driver.execute_script("return window.scrollY") == 0  # the agent's scroll never ran
        agent.hand_back()
        t.join(PATIENCE)
    assert desk.pending() == [] and out["result"].answer == "done"
    first = store.steps(out["result"].run_id)[0]
    assert first["status"] == "refused" and first["outcome"] == f"rejected: {TOOK_OVER}"
    assert not [e for e in agent.events if isinstance(e, ev.ApprovalRequested)]  # no one was asked
