"""A run for one step hook alone: a real store with the run's record, a real executor on the shared
browser, a real run control; the events sent and the flags set are kept to look at."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import pytest

from cockpit.core.agent.config import AgentConfig
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.execute import Executor
from cockpit.core.agent.hooks.base import RunScope
from cockpit.core.agent.step import Step
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.page import effects
from cockpit.core.page.observation import observe
from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun


@dataclass
class HookRun:
    scope: RunScope
    store: Store
    events: list = field(default_factory=list)
    flags: dict = field(default_factory=dict)

    def of(self, kind) -> list:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture
def hook_run(tmp_path, browser):
    """`hook_run(config, model_url=None, task=...)`: a HookRun whose scope has a run in the store."""
    stores, clients = [], []

    def make(config: AgentConfig | None = None, model_url: str | None = None,
             task: str = "a task") -> HookRun:
        store = Store(tmp_path / f"home{len(stores)}")
        stores.append(store)
        url = model_url or "http://127.0.0.1:9/v1"
        client = ModelClient(ModelConfig(base_url=url, model="agent-model", max_retries=0, timeout=20),
                             api_key="test-key")
        clients.append(client)
        events, flags = [], {}
        scope = RunScope(config or AgentConfig(), store, client, Executor(browser), RunControl(),
                         effects.LoopWatch(), events.append,
                         lambda n, text: flags.setdefault(n, []).append(text),
                         lambda n, request: client.chat(request), lambda n: None)
        scope.run_id = store.new_run(NewRun(task, "http://127.0.0.1/"))
        run = HookRun(scope, store, events, flags)
        return run
    yield make
    for c in clients:
        c.close()
    for s in stores:
        s.close()


@pytest.fixture
def step_at(browser, site):
    """`step_at(page, n=1)`: a Step that observed the fixture page `page` in the shared browser."""
    def make(page: str, n: int = 1) -> Step:
        browser.goto(site.url(page))
        return Step(n, time.time(), obs=observe(browser))
    return make
