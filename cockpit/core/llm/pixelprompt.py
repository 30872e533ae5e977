"""The conversation with a pixel-grounded model: a clean screenshot each turn, its own prompt and tools.

Two shapes, by dialect:

* chat completions (plain, UI-TARS, Qwen, Claude-style JSON, OpenAI function
  tools): :class:`PixelConversation`, the WebVoyager conversation with the
  dialect's system prompt. A reply carrying tool calls is kept with them and
  answered by a ``tool`` message (what happened) before the next screenshot.
* the Responses API (OpenAI's computer-use tool): :class:`ResponsesConversation`.
  The first turn sends the task and the screenshot; each later turn answers the
  last ``computer_call`` with a ``computer_call_output`` holding the new
  screenshot (and the safety checks a person acknowledged), chained to the
  previous response by its id. Feedback (an error, a refusal) goes as text.

Images are references (``cockpit:step/<k>``) as in :mod:`cockpit.core.llm.prompt`;
:func:`materialize_any` swaps them for data URLs just before the request.
"""
from __future__ import annotations

import copy
import json
from typing import Callable

from cockpit.core.actions import coords
from cockpit.core.llm.prompt import IMAGE_REF, Conversation
from cockpit.core.page.images import data_url


def observation_text(url: str, title: str, space: str, frame: coords.Frame | None, pdf_text: str = "",
                     note: str = "") -> str:
    """A pixel model's observation: where the page is and the screenshot's size in the model's own coordinates
    (the size its system prompt and tools state: Qwen's grid, 1000x1000 in 0..1000), never a second one; no
    element list."""
    where = f" The page is {title!r} at {url}." if url else ""
    size = coords.size_words(space, frame) if frame else "0x0"
    unit = " pixels" if space in ("pixels", "qwen") else f" ({coords.describe(space, frame)})"
    body = f"Observation:{where} The screenshot is {size}{unit if frame else ''}. Give your next action."
    if note:
        body += f"\n{note}"
    if pdf_text:
        body += f"\nThe last action downloaded a PDF; its text follows.\n{pdf_text.strip()}"
    return body


class PixelConversation(Conversation):
    """A chat conversation whose replies may carry tool calls."""

    def __init__(self, system: str, keep_images: int = 3):
        super().__init__(system, keep_images)
        self._open_calls: list[str] = []

    def add_observation(self, step: int, text: str, *, lead: str = "") -> None:
        for call_id in self._open_calls:  # every tool call is answered before the next user turn
            self.messages.append({"role": "tool", "tool_call_id": call_id, "content": lead or "done"})
        self._open_calls = []
        super().add_observation(step, text, lead=lead)

    def add_reply(self, text: str, tool_calls: list[dict] | None = None) -> None:
        msg = {"role": "assistant", "content": text or None}
        if tool_calls:
            msg["tool_calls"] = copy.deepcopy(tool_calls)
            self._open_calls = [c.get("id") or f"call_{k}" for k, c in enumerate(tool_calls)]
        else:
            msg["content"] = text
        self.messages.append(msg)


class ResponsesConversation:
    """The turns of a Responses API conversation (computer-use models), chained by response id."""

    def __init__(self, instructions: str, tools: list[dict]):
        self.instructions = instructions
        self.tools = tools
        self.previous: str = ""  # the last response's id
        self.call_id: str = ""  # the last computer_call to answer
        self.acknowledged: list[dict] = []  # safety checks a person approved, sent with the next output
        self._input: list[dict] = []
        self._history = ""  # a seeded run's earlier turns, said once in the first turn

    def acknowledge(self, checks: list[dict]) -> bool:
        """A person approved an action with these safety checks: they go back acknowledged with the next
        screenshot (OpenAI's computer-use protocol). True: this conversation sends them."""
        self.acknowledged = list(checks)
        return True

    def seed(self, messages: list[dict]) -> None:
        """Go on from a recorded run (a branch, a resume): the server's chain is not continued; the first
        turn starts a new one, with the earlier turns (task, feedback, replies) as text before it."""
        lines = []
        for m in messages:
            content = m.get("content")
            if isinstance(content, list):
                content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            if m.get("role") in ("user", "assistant") and content:
                lines.append(f"{'You' if m['role'] == 'assistant' else 'Cockpit'}: {content}")
        self._history = "Earlier steps of this task:\n" + "\n".join(lines) if lines else ""
        self.previous = self.call_id = ""

    def add_observation(self, step: int, text: str, *, lead: str = "") -> None:
        image = f"{IMAGE_REF}{step}"
        history, self._history = self._history, ""
        if history:
            lead = f"{history}\n{lead}" if lead else history
        if self.call_id:
            item = {"type": "computer_call_output", "call_id": self.call_id,
                    "output": {"type": "computer_screenshot", "image_url": image}}
            if self.acknowledged:
                item["acknowledged_safety_checks"] = self.acknowledged
            self._input = [item]
            if lead:
                self._input.append({"role": "user", "content": [{"type": "input_text", "text": lead}]})
        else:
            full = f"{lead}\n{text}" if lead else text
            self._input = [{"role": "user", "content": [{"type": "input_text", "text": full},
                                                        {"type": "input_image", "image_url": image}]}]
        self.call_id, self.acknowledged = "", []

    def add_reply(self, response_id: str, call_id: str = "") -> None:
        self.previous, self.call_id = response_id, call_id

    def request(self) -> dict:
        req = {"instructions": self.instructions, "tools": copy.deepcopy(self.tools), "input": copy.deepcopy(self._input),
               "reasoning": {"summary": "concise"}}  # the model's reasoning summary: the step's thought
        if self.previous:
            req["previous_response_id"] = self.previous
        return req


def materialize_any(request, load_image: Callable[[int], bytes]):
    """A copy of a request (chat messages or a Responses body) with every image reference made a data URL."""
    out = copy.deepcopy(request)

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "image_url" and isinstance(v, str) and v.startswith(IMAGE_REF):
                    node[k] = data_url(load_image(int(v[len(IMAGE_REF):])))
                elif k == "image_url" and isinstance(v, dict) and str(v.get("url", "")).startswith(IMAGE_REF):
                    v["url"] = data_url(load_image(int(v["url"][len(IMAGE_REF):])))
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(out)
    return out


def raw_reply(text: str, tool_calls: list[dict] | None = None, output: list[dict] | None = None) -> str:
    """A reply as recorded: its text, then its tool calls or output items as JSON."""
    parts = [text] if text else []
    if tool_calls:
        parts.append(json.dumps({"tool_calls": tool_calls}, ensure_ascii=False))
    if output:
        parts.append(json.dumps({"output": [o for o in output if o.get("type") != "message"]}, ensure_ascii=False))
    return "\n".join(parts)
