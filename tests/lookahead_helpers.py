"""Shared pieces of the preview and planning tests: model servers told apart by their system text,
and a page server that records every POST (what a real shop would have received)."""
from __future__ import annotations

import functools
import re

from cockpit.core.llm.client import ModelConfig
from cockpit.core.localserver import LocalSite, _Handler
from cockpit.core.lookahead.worldmodel import WorldModelConfig

AGENT = "You are a web agent."
REFINE = "You review the candidate next actions"
FORECAST = "You forecast what a web page will do."
IMAGINE = "You imagine the next move of a web agent."
SCORE = "You judge the progress of a web agent."


def system(body) -> str:
    m = body["messages"][0]
    return m["content"] if m["role"] == "system" else ""


def kind(body) -> str:
    s = system(body)
    for name, head in (("refine", REFINE), ("forecast", FORECAST), ("imagine", IMAGINE), ("score", SCORE)):
        if s.startswith(head):
            return name
    if s.startswith(AGENT):
        c = body["messages"][-1]["content"]
        texts = [c] if isinstance(c, str) else [p.get("text", "") for p in c]
        return "candidates" if any("Candidate 1:" in t for t in texts) else "agent"
    return "?"


def user_text(body) -> str:
    c = body["messages"][-1]["content"]
    return c if isinstance(c, str) else c[0]["text"]


def observation(body) -> str:
    """The newest observation text sent to the agent's model (not the planning instruction after it)."""
    for m in reversed(body["messages"]):
        if m["role"] == "user" and isinstance(m["content"], list):
            return m["content"][0]["text"]
    return ""


def page_title(body) -> str:
    m = re.search(r"The page is '([^']*)'", observation(body))
    return m.group(1) if m else ""


def mark_in(text: str, label: str) -> int:
    for line in text.splitlines():
        m = re.match(r"\s*\[(\d+)\]: <[^>]+> (.*);", line)
        if m and label.lower() in m.group(2).lower():
            return int(m.group(1))
    raise AssertionError(f"no element {label!r} in:\n{text}")


def candidates(*pairs) -> str:
    return "\n\n".join(f"Candidate {i}:\nThought: {t}\nAction: {a}" for i, (t, a) in enumerate(pairs, 1))


def calls(server, name: str) -> list[dict]:
    return [b for b in server.requests if kind(b) == name]


class RecordingSite(LocalSite):
    """The fixture pages, with every POST the browser sends remembered in `posts`."""

    def __init__(self, root):
        super().__init__(root)
        posts = self.posts = []

        class Handler(_Handler):
            def do_POST(self):
                posts.append(self.path)
                super().do_POST()
        self.httpd.RequestHandlerClass = functools.partial(Handler, directory=str(root))


def world(server, model="wm-model", **kw) -> WorldModelConfig:
    return WorldModelConfig(ModelConfig(base_url=server.base_url, model=model, max_retries=0, timeout=20), **kw)

