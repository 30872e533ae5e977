"""A resumed run keeps the navigation limits it was started with (allowed domains, its start host).

`cockpit resume` has no --allow-domain option and the window resumes with the settings of the day, so
the limits come from the run's record; a resume must not let the agent go where the run could not.
"""
from __future__ import annotations

import pytest

from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh, RunContext
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.replay.resume import plan, resume
from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun
from tests.models import model_client

pytestmark = pytest.mark.fault("kill")
RESUMED = "has been resumed"


def test_a_resumed_run_keeps_its_allowed_domains(browser, recording_pages, tmp_path):
    port = recording_pages.server_address[1]
    start = f"http://127.0.0.1:{port}/hostile_links.html"
    away = f"http://localhost:{port}/hostile_away.html"

    def model(body):
        texts = [str(m.get("content")) for m in body["messages"]]
        if not any(RESUMED in t for t in texts):
            return Reply(status=500, error_message="the model is down")  # the first run fails at step 1
        if sum(m["role"] == "assistant" for m in body["messages"]) == 0:
            return f"Thought: the other site has it.\nAction: Goto [{away}]"
        return "Thought: done.\nAction: ANSWER; done"

    with ModelServer(model) as srv, Store(tmp_path / "home") as store:
        client = model_client(srv)
        try:
            first = Agent(browser, client, store, config=AgentConfig(max_steps=5, allowed_domains=["127.0.0.1"])) \
                .run(Fresh("Find the page", start))
            assert first.status == "failed"
            # As `cockpit resume` and the window do: an AgentConfig without the run's domains.
            result = resume(RunContext(browser, store, client), first.run_id, AgentConfig())
        finally:
            client.close()
        steps = store.steps(first.run_id)
    assert result.status == "answered"
    goto = next(s for s in steps if (s["action"] or "").startswith("Goto"))
    assert goto["status"] == "error" and "localhost is not one of the domains" in goto["error"]
    hosts = {host for host, _ in recording_pages.seen}
    assert f"localhost:{port}" not in hosts, "the resumed run opened a page of a domain the run does not allow"


def test_resume_does_not_reopen_a_page_the_run_was_not_allowed_on(tmp_path):
    """The last address the run recorded is on a forbidden host (the page went there by itself):
    a resume opens the run's start address instead, and says so to the model."""
    start = "http://127.0.0.1:8000/start.html"
    with Store(tmp_path / "home") as store:
        rid = store.new_run(NewRun("t", start, config={
            "agent": {"max_steps": 5, "allowed_domains": ["127.0.0.1"]},
            "navigation": {"schemes": ["http", "https", "about:blank"], "allowed_domains": ["127.0.0.1"],
                           "start_host": "127.0.0.1"}}))
        store.commit_step(rid, dict(step=1, url="http://127.0.0.1:8000/next.html", status="ok", reply="r",
                                    action="Click [1]", url_after="http://evil.example/trap.html",
                                    started=0, finished=0))
        store.finish_run(rid, "failed", error="the browser died")
        p = plan(store, rid)
        assert p.url == start and start in p.lead
        store.commit_step(rid, dict(step=2, url="http://127.0.0.1:8000/next.html", status="ok", reply="r",
                                    action="Scroll [WINDOW]; down", url_after="http://127.0.0.1:8000/next.html",
                                    started=0, finished=0))
        assert plan(store, rid).url == "http://127.0.0.1:8000/next.html"  # an allowed page is reopened


def test_cockpit_resume_keeps_the_runs_approval_gate(site, tmp_path):
    """A run made with --ask-before every, resumed without --ask-before: every action is still asked about
    (here nobody answers: --approval deny), instead of the default gate (irreversible only)."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    start = site.url("agent_details.html")

    def model(body):
        if sum(m["role"] == "assistant" for m in body["messages"]) == 0:
            return "Thought: read on.\nAction: Scroll [WINDOW]; down"
        return "Thought: done.\nAction: ANSWER; done"

    with ModelServer(model) as srv:
        with Store(home) as store:
            rid = store.new_run(NewRun("Read the page", start, model="m", base_url=srv.base_url, approval_policy="every",
                                       config={"model": {"base_url": srv.base_url, "model": "m", "max_retries": 0},
                                               "agent": {"max_steps": 5, "approval_policy": "every"}}))
            store.finish_run(rid, "failed", error="the browser died")
        env = dict(os.environ, COCKPIT_HOME=str(home))
        r = subprocess.run([sys.executable, "-m", "cockpit", "resume", rid, "--approval", "deny"],
                           capture_output=True, text=True, timeout=180, env=env, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, r.stderr
    with Store(home) as store:
        scroll = next(s for s in store.steps(rid) if (s["action"] or "").startswith("Scroll"))
    assert scroll["decision"] and scroll["decision"]["approved"] is False, \
        "the resumed run scrolled without asking, though the run asks before every action"
    assert scroll["status"] != "ok"
