"""A real run with every kind of supervision (issue #43): the agent loop in real Chromium against the scripted
model server, asking before every action, with a person who accepts, edits, rejects and takes over, and an
annotator who labels it in the store as Review does (a corrected mark target, step judgements, success).

    1 Agent start  Click [Does nothing]        approved; Review: wrong target, the right box is the details link
    2 Agent start  Click [details link]        approved                      (an accepted step)
    3 Details      Click [Back to the start]   edited to Click [Order a copy] at the gate
    4 Order        Click [Keep browsing]       rejected: "fill in the name first"
    5 Order        Scroll [WINDOW]; down       approved; Review: no progress
    6 Order        Type [name]; Ada            a person's step (take-over)
    7 Order        Click [Place order]         approved; Review: correct
    8 Order placed ANSWER; ordered             approved
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.approval import Decision
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from tests.models import by_page, last_user_text, mark_for, model_client

REJECTION = "fill in the name first"


@dataclass
class SupervisedRun:
    run_id: str
    requests: list  # the bodies the model server received, in order
    marks: dict = field(default_factory=dict)  # name -> mark number, as the model read them


class Person:
    """The approver: approves, edits step 3, rejects step 4."""

    def __init__(self, marks: dict):
        self.marks = marks

    def decide(self, request, cancel) -> Decision:
        if request.step == 3:
            return Decision(True, "human:ada", action=parse_action(f"Click [{self.marks['order link']}]", pixel=False))
        if request.step == 4:
            return Decision(False, "human:ada", REJECTION)
        return Decision(True, "human:ada")


def supervised_run(browser, site, store: Store) -> SupervisedRun:
    marks: dict = {}
    scrolled = threading.Event()

    def start(body):
        marks["details link"] = mark_for(body, "details page")
        marks["dead button"] = mark_for(body, "Does nothing")
        if "Result of your last action" in last_user_text(body):
            return f"Thought: that did nothing; the link then.\nAction: Click [{marks['details link']}]"
        return f"Thought: this button looks right.\nAction: Click [{marks['dead button']}]"

    def details(body):
        marks["order link"] = mark_for(body, "Order a copy")
        return f"Thought: back to the start.\nAction: Click [{mark_for(body, 'Back to the start')}]"

    def order(body):
        text = last_user_text(body)
        marks["name"] = mark_for(body, "Name") if "Name" in text else marks.get("name")
        if "took over" in text:
            return f"Thought: the name is in; order.\nAction: Click [{mark_for(body, 'Place order')}]"
        if "refused by the human supervisor" in text:
            scrolled.set()
            return "Thought: look for the name field.\nAction: Scroll [WINDOW]; down"
        return f"Thought: keep browsing first.\nAction: Click [{mark_for(body, 'Keep browsing')}]"

    responder = by_page({"Agent start": start, "Details": details, "Order": order,
                         "Order placed": "Thought: done.\nAction: ANSWER; ordered"})
    control = RunControl()
    out = {}
    with ModelServer(responder) as srv, model_client(srv, model="agent-model", timeout=20) as client:
        agent = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2, approval_policy="every"),
                      approver=Person(marks), control=control)
        t = threading.Thread(target=lambda: out.update(r=agent.run(Fresh("Order a copy for Ada",
                                                                         site.url("agent_start.html")))))
        t.start()
        assert scrolled.wait(60)
        agent.take_over().result(30)  # pauses before step 6
        name = next(m.id for m in agent.last_obs.marks if m.tag == "input")
        agent.human_act(parse_action(f"Type [{name}]; Ada", pixel=False)).result(30)
        agent.hand_back()
        t.join(60)
        requests = list(srv.requests)
    result = out["r"]
    assert result.status == "answered", result
    rid = result.run_id
    L.set_label(store, rid, "ada", "success")
    L.set_step_label(store, rid, 1, "ada", "wrong_target", corrected_target=marks["details link"])
    L.set_step_label(store, rid, 2, "ada", "correct")
    L.set_step_label(store, rid, 5, "ada", "no_progress")
    L.set_step_label(store, rid, 7, "ada", "correct")
    marks["typed name"] = name
    return SupervisedRun(rid, requests, marks)
