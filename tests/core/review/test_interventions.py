"""Autonomous and assisted success: runs on real Chromium where a person rejects, approves and takes over,
then what `cockpit agreement`, the labels export and the HTML report say about them."""
import csv
import json
import threading

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.approval import Decision, ScriptedApprover
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.review import exports
from cockpit.core.review import interventions as IV
from cockpit.core.review.outcomes import assisted_success
from cockpit.core.store import labels as lb
from tests.clitools import cockpit
from tests.models import by_page, last_user_text, mark_for


def order_run(site, agent_for, approver):
    """The model places an order; after a refusal it tries once more, then answers."""
    def order(body):
        if "not yet" in json.dumps(body) and "tried twice" not in json.dumps(body):
            return f"Thought: asked to wait; tried twice.\nAction: Click [{mark_for(body, 'Place order')}]"
        return f"Thought: place it.\nAction: Click [{mark_for(body, 'Place order')}]"
    responder = by_page({"Order": order, "Order placed": "Thought: done.\nAction: ANSWER; ordered"})
    with ModelServer(responder) as srv:
        return agent_for(srv, approver=approver).run(Fresh("Order a copy", site.url("agent_order.html")))


def helped_run(site, agent_for, approver):
    """One run with all three: a rejection at the gate, then a person takes over and types the name, hands
    back with a note, and the order is approved."""
    control = RunControl()
    rejected = threading.Event()

    def order(body):
        text = json.dumps(body)
        if "the human supervisor took over" in last_user_text(body):
            return f"Thought: the name is in; order.\nAction: Click [{mark_for(body, 'Place order')}]"
        if "not yet" in text:
            rejected.set()
            return "Thought: I will wait.\nAction: Scroll [WINDOW]; down"
        return f"Thought: place it.\nAction: Click [{mark_for(body, 'Place order')}]"
    responder = by_page({"Order": order, "Order placed": "Thought: done.\nAction: ANSWER; ordered"})
    with ModelServer(responder) as srv:
        agent = agent_for(srv, approver=approver, control=control)
        out = {}
        t = threading.Thread(target=lambda: out.update(r=agent.run(Fresh("Order a copy for Ada",
                                                                         site.url("agent_order.html")))))
        t.start()
        assert rejected.wait(30)
        agent.take_over().result(20)
        name = next(m.id for m in agent.last_obs.marks if m.tag == "input")
        agent.human_act(parse_action(f"Type [{name}]; Ada")).result(20)
        agent.hand_back("the name is filled in")
        t.join(30)
    return out["r"]


def autonomous_run(site, agent_for):
    responder = by_page({
        "Agent start": lambda b: f"Thought: follow the link.\nAction: Click [{mark_for(b, 'details page')}]",
        "Details": "Thought: found it.\nAction: ANSWER; 4217"})
    with ModelServer(responder) as srv:
        return agent_for(srv).run(Fresh("Find the number", site.url("agent_start.html")))


def test_a_run_with_an_approval_a_rejection_and_a_take_over_is_assisted(site, agent_for, store, tmp_path):
    approver = ScriptedApprover([Decision(False, "human:ada", "not yet"), Decision(True, "human:ada")])
    helped = helped_run(site, agent_for, approver)
    assert helped.answer == "ordered" and len(approver.requests) == 2
    alone = autonomous_run(site, agent_for)
    policy = order_run(site, agent_for, ScriptedApprover([Decision(True, "policy:allow")]))  # a policy, no person
    assert policy.answer == "ordered"
    for rid in (helped.run_id, alone.run_id, policy.run_id):
        lb.set_label(store, rid, "bob", "success")

    ivs = IV.of_runs(store)
    assert set(ivs) == {helped.run_id}
    assert ivs[helped.run_id].describe() == "1 approval, 1 rejection, 1 take-over step, 1 note"

    a = assisted_success(store)
    assert (a["n"], a["success"], a["autonomous"], a["assisted_runs"], a["assisted_successes"]) == (3, 3, 2, 1, 1)
    assert (a["assisted_rate"], round(a["autonomous_rate"], 3)) == (1.0, 0.667)
    assert [r["run_id"] for r in a["runs"]] == [helped.run_id]

    out = cockpit(store.root, "agreement").stdout
    assert "3 runs: success 3 (100.0%) counting the help people gave, 2 (66.7%) without it; 1 run had " \
           "interventions, 1 of them succeeded" in out
    assert f"{helped.run_id}  success  1 approval, 1 rejection, 1 take-over step, 1 note" in out

    r = cockpit(store.root, "export", "all", "--format", "labels-csv", "--out", str(tmp_path / "labels.csv"))
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "labels.csv", newline="", encoding="utf-8") as f:
        rows = {row["run_id"]: row for row in csv.DictReader(f)}
    assert (rows[helped.run_id]["assisted"], rows[helped.run_id]["interventions"]) == (
        "True", "1 approval, 1 rejection, 1 take-over step, 1 note")
    assert (rows[alone.run_id]["assisted"], rows[alone.run_id]["interventions"]) == ("False", "none")
    assert rows[policy.run_id]["assisted"] == "False"

    assert "assisted: 1 approval, 1 rejection, 1 take-over step, 1 note" in exports.html_report(store, helped.run_id)
    assert "none (autonomous)" in exports.html_report(store, alone.run_id)

    from PySide6.QtWidgets import QApplication  # the Reports tab says the same (offscreen Qt)

    from cockpit.ui.reports.panel import ReportsPanel
    app = QApplication.instance() or QApplication([])
    panel = ReportsPanel(store)
    panel.refresh()
    assert panel.assisted.text() == ("3 runs with a known outcome: 100.0% succeeded counting people's help, "
                                     "66.7% without it. 1 had interventions, 1 of them succeeded.")
    panel.deleteLater()
    app.processEvents()


def test_edits_and_breakpoints_count_and_a_running_run_is_not_listed(store):
    from cockpit.core.store.newrun import NewRun
    rid = store.new_run(NewRun("t", "http://x.test/", model="m"))
    store.commit_step(rid, dict(step=1, action="Click [1]", status="ok", flags=["breakpoint: step 1"]))
    store.db["decisions"].insert({"run_id": rid, "step": 1, "approved": 1, "by": "human:ada",
                                  "edited_action": "Click [2]"})
    iv = IV.of_run(store, rid)
    assert iv.describe() == "1 approval, 1 edited action, 1 breakpoint resumed" and iv.assisted
    assert assisted_success(store)["runs"] == []  # still running: no outcome yet
    store.finish_run(rid, "answered", answer="x")
    assert [r["run_id"] for r in assisted_success(store)["runs"]] == [rid]
