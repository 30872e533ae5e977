"""A password typed into a form that submits by GET ends up in the next page's address
(?password=...): the store, the exports built from it and the history sent back to the model
must show (secret) there too, not only in the action."""
from __future__ import annotations

import json
import re

import pytest

from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from tests.models import model_client
from tests.secret_scan import PASSWORD, count, db_hits, needles, prompt_text


def password_model(body):
    text = prompt_text(body)
    if "Result of your last action" in text:
        return "Thought: signed in.\nAction: ANSWER; signed in"
    n = re.search(r"^\[(\d+)\]: <input type=password>", text, re.M).group(1)
    return f"Thought: type the password and press Enter.\nAction: Type [{n}]; {PASSWORD}"


@pytest.mark.fault("secrets")
def test_a_password_in_the_address_after_a_get_form_is_masked(site, browser, tmp_path, record_property):
    from cockpit.core.agent.loop import Agent, AgentConfig
    from cockpit.core.store import Store
    events = []
    with ModelServer(password_model) as srv, Store(tmp_path / "home") as store, \
            model_client(srv) as client:
        result = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2), listener=events.append).run(Fresh(
            "Sign in as alice", site.url("secret_login_get.html")))
        assert result.status == "answered", result
        assert PASSWORD in browser.url  # the page did get it, in its address
        steps = store.steps(result.run_id)
    find = needles(PASSWORD)
    hits = {"database": db_hits(tmp_path / "home" / "cockpit.db", find),
            "sent to the model": {i: n for i, b in enumerate(srv.requests) if (n := count(json.dumps(b), find))},
            # the events the window and the command line show (the next page's address, where the action led)
            "events": {i: n for i, e in enumerate(events) if (n := count(repr(e), find))}}
    record_property("secret_hits", sum(sum(v.values()) for v in hits.values()))
    assert hits == {"database": {}, "sent to the model": {}, "events": {}}
    assert "(secret)" in steps[0]["url_after"] and "(secret)" in steps[1]["url"]
