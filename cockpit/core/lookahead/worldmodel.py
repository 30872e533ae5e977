"""The world model: an LLM asked what an action will change on the page (WebDreamer).

What it is for: before an action runs, a model (any OpenAI-compatible one,
configured apart from the agent's) writes a few sentences predicting the
state change. The approval gate shows it ("If you approve: ..."), the store
keeps it beside what really changed, and the planner
(:mod:`cockpit.core.lookahead.planning`) uses it to simulate candidate actions instead of
trying them on a live site.

What it must not do: touch a browser, import Qt, or see secrets: text typed
into a password or card field is replaced by "(secret)" before any prompt.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

from cockpit.core import resources
from cockpit.core.actions.grammar import Action
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ChatResult, ModelClient, ModelConfig
from cockpit.core.page.images import data_url
from cockpit.core.page.marks import Mark, describe
from cockpit.core.safety import redaction

#: The page text sent to the world model is clipped to this many characters.
MAX_ELEMENTS = 6000


@dataclass
class WorldModelConfig:
    """Which model predicts state changes. The key is never stored (to_dict leaves it out)."""
    model: ModelConfig = field(default_factory=ModelConfig)
    api_key: str | None = field(default=None, repr=False)  # None: the key store / the agent's key, see Lookahead
    images: bool = True  # send the marked screenshot (off for text-only models)

    def to_dict(self) -> dict:
        return {"model": self.model.to_dict(), "images": self.images}


@dataclass
class Page:
    """What the world model is told about the page an action starts from."""
    task: str
    url: str = ""
    title: str = ""
    marks: tuple = ()  # Mark objects
    screenshot: bytes | None = None  # the marked screenshot (PNG or JPEG)
    secrets: frozenset = frozenset()  # text typed into secret fields so far: never put in a prompt

    @property
    def elements(self) -> str:
        text = "\n".join(describe(m) for m in self.marks) or "(no element is marked on this page)"
        return text if len(text) <= MAX_ELEMENTS else text[:MAX_ELEMENTS] + "\n(... more elements)"

    def mark(self, target: int | None) -> Mark | None:
        return next((m for m in self.marks if m.id == target), None) if target else None

    def shown(self, action: Action) -> str:
        """The action as prompts and records show it: text for a secret field (or typed into one
        earlier) is masked."""
        return redaction.shown(action, self.marks, self.secrets)

    def target_text(self, action: Action) -> str:
        m = self.mark(action.target)
        return f"\nIts target: {describe(m)}" if m is not None else ""


@dataclass
class Prediction:
    """One world-model answer, with what it cost."""
    action: str
    text: str
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0
    calls: int = 1
    source: str = "preview"  # "preview" (its own call) or "plan" (the chosen candidate's simulation)
    error: str = ""

    def to_dict(self) -> dict:
        d = {"action": self.action, "text": self.text, "model": self.model, "source": self.source,
             "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
             "cost": self.cost, "seconds": round(self.seconds, 3)}
        if self.error:
            d["error"] = self.error
        return d


def _image_part(image: bytes) -> dict:
    return {"type": "image_url", "image_url": {"url": data_url(image)}}


def _clean(text: str) -> str:
    return " ".join((text or "").split())


class WorldModel:
    """Predicts state changes with one ModelClient; thread-compatible like the client."""

    def __init__(self, client: ModelClient, *, images: bool = True):
        self.client = client
        self.images = images

    @property
    def model(self) -> str:
        return self.client.config.model

    def _chat(self, system: str, text: str, image: bytes | None, cancel) -> ChatResult:
        content: list[dict] = [{"type": "text", "text": text}]
        if image and self.images:
            content.append(_image_part(image))
        return self.client.chat([{"role": "system", "content": system}, {"role": "user", "content": content}],
                                cancel=cancel)

    def predict(self, page: Page, action: Action, *, cancel: threading.Event | None = None) -> tuple[str, ChatResult]:
        """The predicted change if `action` runs on `page` (one call)."""
        text = (f"The agent's task: {page.task}\n"
                f"The page: {page.title!r} at {page.url}\n"
                f"Its numbered elements:\n{page.elements}\n\n"
                f"The action about to run: {page.shown(action)}{page.target_text(action)}\n"
                "What will change on the page if this action runs?")
        r = self._chat(resources.read_text("prompts/worldmodel_system.txt"), text, page.screenshot, cancel)
        return _clean(r.text), r

    def predict_after(self, page: Page, history: list[tuple[str, str]], action: Action, *,
                      cancel: threading.Event | None = None) -> tuple[str, ChatResult]:
        """The change `action` would make after the imagined `history` of (action, predicted change)."""
        text = (f"The agent's task: {page.task}\n"
                f"The page it started from: {page.title!r} at {page.url}\n"
                f"Its numbered elements:\n{page.elements}\n\n"
                f"Since then (imagined, not run):\n{_history(history)}\n\n"
                f"The next action: {page.shown(action)}\n"
                "Assume the page now is as those forecasts say. What will change on it if this action runs?")
        r = self._chat(resources.read_text("prompts/worldmodel_system.txt"), text, None, cancel)
        return _clean(r.text), r

    def imagine_next(self, page: Page, history: list[tuple[str, str]], *,
                     cancel: threading.Event | None = None) -> tuple[Action | None, ChatResult]:
        """The action the agent would take next on the imagined page (None: no usable reply)."""
        text = (f"The agent's task: {page.task}\n"
                f"The page it started from: {page.title!r} at {page.url}\n"
                f"Its numbered elements:\n{page.elements}\n\n"
                f"Actions taken since then, with forecasts of what they changed:\n{_history(history)}\n\n"
                "What does the agent do next?")
        r = self._chat(resources.read_text("prompts/worldmodel_next_system.txt"), text, None, cancel)
        return prompt.parse_reply(r.text).action, r


def _history(history: list[tuple[str, str]]) -> str:
    return "\n".join(f"{i}. {a}\n   forecast: {c}" for i, (a, c) in enumerate(history, 1))


def actual_change(effect: dict | None, *, url_before: str, url_after: str, title_before: str,
                  title_after: str) -> dict:
    """What really changed, stored beside a prediction: the measured effect plus address and title."""
    return {"effect": dict(effect or {}), "url_before": url_before, "url_after": url_after,
            "title_before": title_before, "title_after": title_after}


def describe_actual(actual: dict | None) -> str:
    """One line for people: 'now at Details (…/details.html); +3/-1 marks, 40% of pixels changed'."""
    if not actual:
        return ""
    eff = actual.get("effect") or {}
    parts = []
    if actual.get("url_after") and actual.get("url_after") != actual.get("url_before"):
        parts.append(f"went to {actual.get('title_after') or ''!r} ({actual['url_after']})")
    elif actual.get("title_after") != actual.get("title_before"):
        parts.append(f"title became {actual.get('title_after')!r}")
    if eff.get("noop"):
        parts.append("no visible effect")
    else:
        if eff.get("marks_added") or eff.get("marks_removed"):
            parts.append(f"+{eff.get('marks_added', 0)}/-{eff.get('marks_removed', 0)} elements")
        if "pixels_changed" in eff:
            parts.append(f"{eff['pixels_changed']:.0%} of pixels changed")
    return "; ".join(parts) or "no change measured"
