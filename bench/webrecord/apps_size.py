"""The archive's size per step on the grounding bench's real apps (bench/grounding/apps.py, installed by
``python -m bench.apps install``): a recorded run of a few steps on each, clicking links it has not clicked yet
(scrolling when there are none), and the bytes each step added (sizes.py)."""
from __future__ import annotations

import re
from pathlib import Path

from bench.grounding.apps import APPS, serve
from bench.webrecord.sizes import per_step
from cockpit.core.agent.approval import PolicyApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserSession
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.llm.modelserver import ModelServer


def wanderer():
    clicked: set[str] = set()

    def respond(body):
        text = body["messages"][-1]["content"][0]["text"]
        for n, label in re.findall(r'^\[(\d+)\]: <a> "([^"]+)"', text, re.M):
            if label not in clicked:
                clicked.add(label)
                return f"Thought: look there\nAction: Click [{n}]"
        return "Thought: further down\nAction: Scroll [WINDOW]; down"
    return respond


def measure(home: Path, steps: int, names: list[str] | None = None) -> dict[str, list[int]]:
    from cockpit.core.store import Store
    out: dict[str, list[int]] = {}
    with Store(home) as store, BrowserSession() as session:
        for name in names or list(APPS):
            with serve(name) as app, ModelServer(wanderer()) as srv:
                client = ModelClient(ModelConfig(base_url=srv.base_url, model="bench", max_retries=0), api_key="x")
                session.fresh_context()
                res = Agent(session, client, store,
                            config=AgentConfig(max_steps=steps, approval_policy="never", allowed_domains=["127.0.0.1"]),
                            approver=PolicyApprover(False)).run(Fresh(f"look around {name}", app.base + "/"))
                client.close()
                out[name] = list(per_step(store.run_dir(res.run_id)).values())
    return out
