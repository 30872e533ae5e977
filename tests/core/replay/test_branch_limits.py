"""A branch keeps the navigation limits of the run it branches from (allowed domains, start host).

The window branches with the settings of the day and `cockpit branch` is given no --allow-domain unless
the user names one, so the limits come from the parent's record; a branch must not let the agent go
where the parent run could not. Real Chromium, the scripted model server, a real store.
"""
from __future__ import annotations

import pytest

from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh, RunContext
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.replay.branch import branch
from cockpit.core.store import Store
from tests.clitools import cockpit
from tests.models import assistant_turns, last_user_text, mark_for, model_client

pytestmark = pytest.mark.fault("hostile")
TASK = "Find the page about the other site"


def limited_parent(browser, store, start: str) -> dict:
    """A run limited to 127.0.0.1 (as `cockpit run --allow-domain 127.0.0.1`): 1 scroll, 2 answer."""
    def model(body):
        return "Thought: read on.\nAction: Scroll [WINDOW]; down" if assistant_turns(body) == 0 else \
            "Thought: done.\nAction: ANSWER; here"

    with ModelServer(model) as srv, \
            model_client(srv) as client:
        result = Agent(browser, client, store, config=AgentConfig(max_steps=5, wait_seconds=0.2,
                                                                  allowed_domains=["127.0.0.1"])).run(Fresh(TASK, start))
    assert (result.status, result.steps) == ("answered", 2)
    return store.run(result.run_id)


def test_a_branch_keeps_the_parents_allowed_domains(browser, recording_pages, tmp_path):
    port = recording_pages.server_address[1]
    start = f"http://127.0.0.1:{port}/hostile_links.html"
    away = f"http://localhost:{port}/hostile_away.html?via=goto"

    def model(body):  # the branch's conversation holds the parent's reply to step 1
        n = assistant_turns(body)
        if n == 1:
            return f"Thought: the other site has it.\nAction: Goto [{away}]"
        if n == 2 and "Go away by script" in last_user_text(body):
            return f"Thought: this button goes there.\nAction: Click [{mark_for(body, 'Go away by script')}]"
        if n == 2:  # the Goto went through: the page is the other site's
            return "Thought: I got there.\nAction: ANSWER; roamed"
        return "Thought: I stay here.\nAction: ANSWER; stayed"

    with Store(tmp_path / "home") as store:
        parent = limited_parent(browser, store, start)
        with ModelServer(model) as srv, \
                model_client(srv) as client:
            # As the window does: today's settings, which name no domains.
            result = branch(RunContext(browser, store, client), parent["id"], 2,
                            AgentConfig(max_steps=5, wait_seconds=0.2))
        run = store.run(result.run_id)
        steps = store.steps(result.run_id)
    goto = steps[0]
    assert goto["status"] == "error" and "localhost is not one of the domains this run may visit" in goto["error"]
    assert (result.status, result.answer, result.divergence) == ("answered", "stayed", None)
    click = steps[1]
    seen = {(h.split(":")[0], p) for h, p in recording_pages.seen}
    assert ("localhost", "/hostile_away.html?via=goto") not in seen, \
        "the branched run opened an address on a domain its parent run was not allowed on"
    # A page script that sends the tab elsewhere: the branched run comes back to the allowed page.
    assert f"the page then went to http://localhost:{port}/hostile_away.html, which this run does not allow" \
        in click["outcome"]
    assert click["url_after"] == start and all(s["url"].startswith("http://127.0.0.1:") for s in steps)
    nav, parent_nav = run["config"]["navigation"], parent["config"]["navigation"]
    assert nav["allowed_domains"] == parent_nav["allowed_domains"] == ["127.0.0.1"]
    assert nav["start_host"] == parent_nav["start_host"] == "127.0.0.1"
    assert run["parent_run"] == parent["id"]


def test_cockpit_branch_adds_its_allow_domain_to_the_parents_limits(browser, recording_pages, tmp_path):
    port = recording_pages.server_address[1]
    start = f"http://127.0.0.1:{port}/hostile_links.html"
    away = f"http://localhost:{port}/hostile_away.html?via=cli"
    home = tmp_path / "home"
    with Store(home) as store:
        parent = limited_parent(browser, store, start)

    def model(body):
        if assistant_turns(body) == 1:
            return f"Thought: the other site has it.\nAction: Goto [{away}]"
        return "Thought: I stay here.\nAction: ANSWER; stayed"

    with ModelServer(model) as srv:
        r = cockpit(home, "branch", parent["id"], "2", "--allow-domain", "example.com", "--base-url", srv.base_url,
                    "--model", "m", "--approval", "deny", "--max-steps", "5")
    assert r.returncode == 0, r.stderr
    child = r.stdout.split()[0]
    with Store(home) as store:
        run = store.run(child)
        steps = store.steps(child)
    assert run["parent_run"] == parent["id"]
    assert [s["status"] for s in steps] == ["error", "answered"]
    assert "localhost is not one of the domains this run may visit" in steps[0]["error"]
    assert not any(p == "/hostile_away.html?via=cli" for _, p in recording_pages.seen)
    nav = run["config"]["navigation"]
    assert sorted(nav["allowed_domains"]) == ["127.0.0.1", "example.com"] and nav["start_host"] == "127.0.0.1"
