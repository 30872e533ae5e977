"""The navigation fence hook alone: the run's allowed domains, on a real executor in real Chromium."""
import pytest

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.config import AgentConfig
from cockpit.core.agent.hooks.navfence import NavFence
from cockpit.core.agent.start import Fresh
from cockpit.core.errors import ActionError


def test_the_fence_keeps_the_agent_on_its_domains_and_the_run_records_it(hook_run, step_at, site, browser):
    run = hook_run(AgentConfig(allowed_domains=["example.org"]))
    start = site.url("agent_start.html")
    settings = {}
    NavFence(run.scope).opening(Fresh("Find it", start), settings)
    assert settings["navigation"]["allowed_domains"] == ["example.org"]
    assert settings["navigation"]["start_host"] == "127.0.0.1"

    st = step_at("agent_start.html")
    with pytest.raises(ActionError, match="example.com is not one of the domains this run may visit"):
        run.scope.executor.run(parse_action("Goto [https://example.com/]"), st.obs.marks)
    assert browser.title == "Agent start"  # it never left

    run.scope.executor.run(parse_action(f"Goto [{site.url('agent_details.html')}]"), st.obs.marks)
    assert browser.title == "Details"  # the start page's own host is always allowed


def test_without_allowed_domains_any_host_is_allowed_and_none_are_recorded(hook_run, site):
    run = hook_run()
    settings = {}
    NavFence(run.scope).opening(Fresh("Find it", site.url("agent_start.html")), settings)
    assert settings["navigation"]["allowed_domains"] == []
    assert run.scope.executor.nav.target_problem("https://example.com/") is None
