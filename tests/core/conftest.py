"""Fixtures of the core tests."""
import pytest

from cockpit.core.agent.loop import Agent, AgentConfig
from tests.models import model_client


@pytest.fixture
def agent_for(browser, store):
    """agent_for(server, timeout=20, config=AgentConfig(wait_seconds=0.2), **kw) -> an Agent on the shared browser
    and `store`, its model "test-model" on `server`; its events in `agent.events` unless a listener is given.
    The clients are closed after the test."""
    made = []

    def make(server, **kw):
        client = model_client(server, model="test-model", api_key="test-key", timeout=kw.pop("timeout", 20))
        made.append(client)
        events = []
        kw.setdefault("listener", events.append)
        agent = Agent(browser, client, store, config=kw.pop("config", AgentConfig(wait_seconds=0.2)), **kw)
        agent.events = events
        return agent
    yield make
    for c in made:
        c.close()
