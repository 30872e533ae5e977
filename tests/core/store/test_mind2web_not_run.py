"""`cockpit export RUN --format mind2web` of a run whose actions did not all run, then `cockpit import mind2web`
into another store (walkthrough 10, B1: refused, rejected and failed actions were written in action_history as
done, no note was printed, and the import showed them as executed and a person's Goto as the agent's
"Goto [[url] (human)]"). Real Chromium, the real store, the scripted model server, `cockpit` as a process."""
import json
import threading

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.approval import ApprovalDesk, PolicyApprover
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.gate import TOOK_OVER
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from tests.clitools import cockpit, ok
from tests.models import by_page, mark_for
from tests.waiting import PATIENCE, within


def _round_trip(store, run_id, tmp_path):
    """Export the run with the CLI, import it into another home; (export's stderr, result.json, the folder,
    the imported steps as (actor, status, action), the imported step records, the other home)."""
    out, other = tmp_path / "m2w", tmp_path / "other"
    e = cockpit(store.root, "export", run_id, "--format", "mind2web", "--out", str(out))
    assert e.returncode == 0, e.stderr
    folder = next(out.iterdir())
    result = json.loads((folder / "result.json").read_text())
    ok(cockpit(other, "import", "mind2web", str(out)))
    with Store(other) as back:
        new = back.runs()[0]["id"]
        steps = back.step_records(new)
        shots = [back.read_file(s.screenshot_clean, "shot") if s.screenshot_clean else None for s in steps]
    return e.stderr, result, folder, [(s.actor, s.status, s.action) for s in steps], steps, shots, other, new


def _shots(store, run_id):
    return {s.step: store.read_file(s.screenshot_clean or s.screenshot, "shot") for s in store.step_records(run_id)}


def test_failed_and_rejected_actions_are_not_written_as_done_and_the_person_stays_the_person(
        shop, agent_for, store, tmp_path):
    details = shop.url("agent_details.html")
    responder = by_page({
        "Order": ["Thought: the button.\nAction: Click [99]",  # no such element: it fails
                  lambda b: f"Thought: place it.\nAction: Click [{mark_for(b, 'Place order')}]"],
        "Details": "Thought: here it is.\nAction: ANSWER; 4217",
    })
    desk = ApprovalDesk()
    with ModelServer(responder) as srv:
        agent = agent_for(srv, approver=desk, control=RunControl())
        out = {}
        t = threading.Thread(target=lambda: out.update(result=agent.run(Fresh("Order a copy", shop.url(
            "agent_order.html")))), daemon=True)
        t.start()
        assert within(lambda: desk.pending()), "the gate never asked"
        agent.take_over("human:ada").result(PATIENCE)  # the pending Place order is dropped: rejected
        agent.human_act(parse_action(f"Goto [{details}]")).result(PATIENCE)
        agent.hand_back()
        t.join(PATIENCE)
    run_id = out["result"].run_id
    assert [(s.actor, s.status) for s in store.step_records(run_id)] == [
        ("agent", "error"), ("agent", "refused"), ("human", "ok"), ("agent", "answered")]
    original = _shots(store, run_id)

    said, result, folder, steps, records, shots, other, new = _round_trip(store, run_id, tmp_path)
    # what was done on the site: only the person's Goto (the failed click and the rejected one never ran)
    assert result["action_history"] == [f"Goto [{details}] (human)"] and len(result["thoughts"]) == 1
    assert "note:" in said and "1 step refused at the gate or dropped by a take-over (step 2)" in said, said
    assert "1 step whose action failed (step 1)" in said and "1 step taken by a human (step 3)" in said, said
    # screenshot k is the page action k was taken on, then the answer's page
    trajectory = sorted(p.name for p in (folder / "trajectory").iterdir())
    assert trajectory == ["0_screenshot.png", "1_screenshot.png"]
    assert (folder / "trajectory" / "0_screenshot.png").read_bytes() == original[3]
    # imported: what really happened, each step on its own page
    assert steps == [("agent", "error", "Click [99]"), ("agent", "refused", records[1].action),
                     ("human", "ok", f"Goto [{details}]"), ("agent", "answered", "ANSWER; 4217")]
    assert records[1].decision["by"] == "human:ada" and records[1].outcome == f"rejected: {TOOK_OVER}"
    assert shots == [original[1], original[2], original[3], original[4]]
    shown = ok(cockpit(other, "runs", new))
    assert "decision: rejected by human:ada" in shown, shown
    ok(cockpit(other, "export", new, "--format", "mind2web", "--out", str(tmp_path / "again")))
    again = next((tmp_path / "again").iterdir())  # the imported run written back: the same history, the same pages
    assert json.loads((again / "result.json").read_text())["action_history"] == result["action_history"]
    assert sorted(p.name for p in (again / "trajectory").iterdir()) == trajectory
    assert sorted(p.name for p in (again / "cockpit_not_executed").iterdir()) == ["step1.png", "step2.png"]


def test_actions_refused_by_the_policy_are_left_out_and_the_pages_stay_paired(shop, agent_for, store, tmp_path):
    responder = by_page({
        "Order": [lambda b: f"Thought: place it.\nAction: Click [{mark_for(b, 'Place order')}]"] * 2
        + [lambda b: f"Thought: elsewhere then.\nAction: Click [{mark_for(b, 'Keep browsing')}]"],
        "Agent start": "Thought: back at the start.\nAction: ANSWER; not ordered",
    })
    with ModelServer(responder) as srv:
        result = agent_for(srv, approver=PolicyApprover(False)).run(Fresh("Order a copy", shop.url("agent_order.html")))
    assert shop.posts == []
    original = _shots(store, result.run_id)
    assert [s.status for s in store.step_records(result.run_id)] == ["refused", "refused", "ok", "answered"]

    said, m2w, folder, steps, records, shots, _, _ = _round_trip(store, result.run_id, tmp_path)
    assert len(m2w["action_history"]) == 1 and "Place" not in json.dumps(m2w["action_history"])
    assert "2 steps refused at the gate or dropped by a take-over (steps 1, 2)" in said, said
    assert (folder / "trajectory" / "0_screenshot.png").read_bytes() == original[3]  # Keep browsing's page
    assert (folder / "trajectory" / "1_screenshot.png").read_bytes() == original[4]  # the answer's
    assert [(a, s) for a, s, _ in steps] == [("agent", "refused"), ("agent", "refused"), ("agent", "ok"),
                                             ("agent", "answered")]
    assert [r.decision["by"] for r in records[:2]] == ["policy:deny"] * 2
    assert [r.outcome for r in records[:2]] == ["refused by policy: actions of this kind are not allowed in this run"] * 2
    assert shots == [original[1], original[2], original[3], original[4]]
