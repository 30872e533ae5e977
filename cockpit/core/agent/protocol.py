"""How the agent talks to its model: marks (Set-of-Mark) or pixels, chosen by the model config's dialect.

``marks``: WebVoyager's protocol (:mod:`cockpit.core.llm.prompt`): the marked
screenshot, the element list, ``Action: Click [12]``.

A pixel dialect (:mod:`cockpit.core.actions.dialects`): the clean screenshot (no
boxes drawn into what the model sees), the dialect's own system prompt and
tools, and a reply in its form, whose point is converted from the model's
coordinate space (:mod:`cockpit.core.actions.coords`) to the viewport. Marks
are still computed at every step, for the window, the gate, corrections and
Review; they are not sent. ``auto`` detects the dialect from each reply.

Each step records what it used (``pointer``: mode, dialect, space, the frame,
the model's own action before conversion, safety checks).
"""
from __future__ import annotations

import json

from cockpit.core.actions import coords, dialects
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ChatResult, ModelClient
from cockpit.core.llm.pixelprompt import (
    PixelConversation,
    ResponsesConversation,
    materialize_any,
    observation_text,
    raw_reply,
)
from cockpit.core.page import images
from cockpit.core.page.observation import Observation
from cockpit.core.safety import redaction


class MarksProtocol:
    mode = "marks"

    def __init__(self, client: ModelClient):
        self.client = client

    def conversation(self, keep_images: int, frame: coords.Frame | None = None):
        return prompt.Conversation(prompt.system_prompt(), keep_images)

    def observation_text(self, obs: Observation, pdf_text: str, note: str) -> str:
        return prompt.observation_text(obs.element_text, url=obs.url, title=obs.title, pdf_text=pdf_text, note=note)

    def image(self, obs: Observation) -> bytes:
        return obs.for_model(self.client.config.image_format, self.client.config.image_max_width)

    def image_of(self, png: bytes) -> bytes:
        return images.for_model(png, self.client.config.image_format, self.client.config.image_max_width)

    def call(self, request, load_image, **kw) -> ChatResult:
        return self.client.chat(prompt.materialize(request, load_image), **kw)

    def parse(self, result: ChatResult) -> tuple[prompt.ParsedReply, dict | None]:
        return prompt.parse_reply(result.text), None

    def recorded_reply(self, result: ChatResult) -> str:
        return result.text

    def add_reply(self, conv, reply: str, result: ChatResult, extra: dict | None, hide=()) -> None:
        conv.add_reply(reply)


class PixelProtocol(MarksProtocol):
    mode = "pixels"

    def __init__(self, client: ModelClient):
        super().__init__(client)
        self.dialect = client.config.dialect
        self.space = client.config.coords
        self.budget = client.config.qwen_budget()  # the qwen space: the server's processor budget
        self.frame: coords.Frame | None = None

    # -- the request -------------------------------------------------------------
    def expected_frame(self, viewport: tuple[int, int], scale: float = 1.0) -> coords.Frame:
        """The frame the first screenshot will have: the viewport at the device scale, then downscaled."""
        size = coords.sent_size(viewport, scale, self.client.config.image_max_width)
        return coords.Frame(tuple(viewport), size, self.budget)

    def frame_of(self, viewport: tuple[int, int], data: bytes) -> coords.Frame:
        """The frame of a screenshot as sent (`data`, encoded) of a page of `viewport` CSS pixels."""
        return coords.Frame(tuple(viewport), images.size(data), self.budget)

    def conversation(self, keep_images: int, frame: coords.Frame | None = None):
        frame = frame or coords.Frame((1024, 768), (1024, 768), self.budget)
        dialect = self.dialect if self.dialect != "auto" else "plain"
        mw, mh = frame.model_size(self.space)
        system = dialects.system_prompt(dialect, width=int(mw), height=int(mh),
                                        space_words=coords.describe(self.space, frame))
        tools = dialects.tools(dialect, width=int(mw), height=int(mh))
        self.tools = tools if dialect != "openai_computer" else None
        if dialect == "openai_computer":
            return ResponsesConversation(system, tools or [])
        return PixelConversation(system, keep_images)

    def observation_text(self, obs: Observation, pdf_text: str, note: str) -> str:
        return observation_text(obs.url, obs.title, self.space, self.frame, pdf_text, note)

    def image(self, obs: Observation) -> bytes:
        """The clean screenshot as sent; the frame it sets is what the model's points are read against."""
        data = self.image_of(obs.screenshot)
        self.frame = self.frame_of(obs.viewport, data)
        return data

    def call(self, request, load_image, **kw) -> ChatResult:
        if isinstance(request, dict):  # the Responses API
            return self.client.respond(materialize_any(request, load_image), **kw)
        return self.client.chat(prompt.materialize(request, load_image), tools=self.tools, **kw)

    # -- the reply ---------------------------------------------------------------
    def parse(self, result: ChatResult) -> tuple[prompt.ParsedReply, dict | None]:
        """The reply in its dialect, its point converted against the frame of the screenshot sent (image())."""
        reply = dialects.Reply(text=result.text or "", tool_calls=list(result.tool_calls or []),
                               output=list(result.output or []))
        dialect = self.dialect
        if dialect == "auto":  # a reply that fits no pixel dialect is read as plain text (no marks: none were sent)
            dialect = dialects.detect(reply) or "plain"
        dp = dialects.parse(dialect, reply)
        frame = self.frame
        extra = {"mode": "pixels", "dialect": dialect, "space": self.space, "frame": frame.to_dict(),
                 "model_action": str(dp.action) if dp.action is not None else None}
        if dp.safety_checks:
            extra["safety_checks"] = dp.safety_checks
        if dp.call_id:
            extra["call_id"] = dp.call_id
        if result.response_id:
            extra["response_id"] = result.response_id
        if dp.action is None:
            return prompt.ParsedReply(dp.thought, dp.action_text, None, dp.error), extra
        try:
            action = coords.place(dp.action, self.space, frame)
        except coords.PointOutside as e:
            return prompt.ParsedReply(dp.thought, dp.action_text, None, f"Format ERROR: {e}"), extra
        return prompt.ParsedReply(dp.thought, dp.action_text, action), extra

    def recorded_reply(self, result: ChatResult) -> str:
        return raw_reply(result.text, result.tool_calls, result.output)

    def add_reply(self, conv, reply: str, result: ChatResult, extra: dict | None, hide=()) -> None:
        """The reply into the history, with text typed into a secret field hidden (also in tool calls'
        arguments; the Responses API keeps its own copy on the server, chained by id)."""
        if isinstance(conv, ResponsesConversation):
            conv.add_reply(result.response_id, (extra or {}).get("call_id", ""))
            return
        calls = json.loads(redaction.scrub(json.dumps(result.tool_calls), hide)) if result.tool_calls else None
        conv.add_reply(redaction.scrub(result.text or "", hide) if calls else reply, calls)


def protocol_for(client: ModelClient) -> MarksProtocol:
    return PixelProtocol(client) if client.config.pixel else MarksProtocol(client)
