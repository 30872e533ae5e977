"""What the scripted model server answers (:mod:`cockpit.core.llm.modelserver`), and how OpenAI's APIs
shape it: :class:`Reply` (one answer, or an HTTP error), :func:`scripted` (a list of them in turn), rough
token counts, and the chat-completions and Responses API bodies built from a reply. No HTTP here."""
from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Union

from cockpit.core.words import plural

#: Rough token cost charged for each image part in the default usage estimate.
IMAGE_TOKENS = 85

@dataclass
class Reply:
    """What the server answers to one chat request.

    text: the assistant message content (status 200).
    status: HTTP status; for >= 400 an OpenAI-style error body is sent,
        with ``error_message`` as its message (unless ``body`` overrides it).
    headers: extra response headers, e.g. ``{"Retry-After": "1"}``.
    delay: seconds to wait before answering. Other requests are served in the
        meantime, and the wait ends at once (dropping the connection without
        an answer) when the server is stopped.
    body: raw response body override (str or bytes), sent verbatim with
        ``content_type`` and ``status``: for truncated or invalid JSON.
    prompt_tokens / completion_tokens: usage to report; ``None`` means a
        rough estimate (``len(text) // 4``, ``IMAGE_TOKENS`` per image).
    finish_reason: the choice's finish reason ("stop", "length", ...).
    token_delay: when the request streams, seconds between its pieces (the reply's pace; 0 = at once).
    cut_after: when the request streams, hang up after this many pieces (a stream that breaks off).
    """

    text: str | None = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    body: str | bytes | None = None
    content_type: str = "application/json"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str = "stop"
    error_message: str | None = None
    tool_calls: list[dict] | None = None  # chat: the message's tool_calls (finish_reason becomes "tool_calls")
    output: list[dict] | None = None  # /v1/responses: the response's output items (default: one message)
    token_delay: float = 0.0
    cut_after: int | None = None

    @classmethod
    def error(cls, status: int, message: str | None = None, *,
              headers: Mapping[str, str] | None = None, delay: float = 0.0) -> "Reply":
        """An HTTP error reply, e.g. ``Reply.error(429, headers={"Retry-After": "1"})``."""
        return cls(text=None, status=status, error_message=message,
                   headers=dict(headers or {}), delay=delay)


Responder = Callable[[dict], Union[Reply, str]]


class ScriptExhausted(RuntimeError):
    """A :func:`scripted` responder was asked for more replies than it holds."""


def scripted(replies: Iterable[Reply | str], *, repeat_last: bool = False) -> Callable[[dict], Reply]:
    """A responder answering with ``replies`` in order (strings or Replies).

    When the script runs out it raises :class:`ScriptExhausted` (the client sees
    a non-retryable 500 and the error is in ``ModelServer.errors``), because an
    unexpected extra model call is usually a bug the test should catch. Pass
    ``repeat_last=True`` to keep answering with the last reply instead.
    Thread-safe.
    """
    items = [r if isinstance(r, Reply) else Reply(text=str(r)) for r in replies]
    if not items:
        raise ValueError("scripted() needs at least one reply")
    lock = threading.Lock()
    state = {"next": 0}

    def responder(body: dict) -> Reply:
        with lock:
            i = state["next"]
            state["next"] += 1
        if i < len(items):
            return items[i]
        if repeat_last:
            return items[-1]
        raise ScriptExhausted(
            f"scripted responder exhausted: request #{i + 1} but only {plural(len(items), 'reply', 'replies')} scripted")

    return responder


def estimate_tokens(text: str | None) -> int:
    """The rough token count used for default usage figures: ``len(text) // 4``."""
    return len(text or "") // 4


def estimate_prompt_tokens(body: Mapping[str, Any]) -> int:
    """Rough prompt tokens of a request: text length // 4, images IMAGE_TOKENS each."""
    chars = 0
    images = 0
    given = body.get("messages") or body.get("input") or []
    for msg in given if isinstance(given, list) else []:
        if not isinstance(msg, Mapping):
            continue
        content = msg.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            for part in content:
                if not isinstance(part, Mapping):
                    continue
                if part.get("type") in ("image_url", "input_image"):
                    images += 1
                elif isinstance(part.get("text"), str):
                    chars += len(part["text"])
    return chars // 4 + images * IMAGE_TOKENS


def _usage(reply: Reply, body: dict) -> tuple[int, int]:
    """(prompt, completion) tokens to report: the reply's own, else rough estimates."""
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else estimate_prompt_tokens(body)
    completion = reply.completion_tokens if reply.completion_tokens is not None else estimate_tokens(
        reply.text or json.dumps(reply.tool_calls or reply.output or ""))
    return prompt, completion


def chat_payload(reply: Reply, model: str, body: dict) -> dict:
    """A chat completion holding the reply's text and tool calls."""
    prompt, completion = _usage(reply, body)
    message = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    finish = "tool_calls" if reply.tool_calls and reply.finish_reason == "stop" else reply.finish_reason
    return {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}


def response_payload(reply: Reply, model: str, body: dict) -> dict:
    """A Responses API response: the reply's output items, or one assistant message holding its text."""
    prompt, completion = _usage(reply, body)
    output = reply.output
    if output is None:
        output = [{"type": "message", "id": f"msg_{uuid.uuid4().hex[:12]}", "role": "assistant",
                   "status": "completed",
                   "content": [{"type": "output_text", "text": reply.text or "", "annotations": []}]}]
    return {"id": f"resp_{uuid.uuid4().hex}", "object": "response", "created_at": int(time.time()),
            "model": model, "status": "completed", "output": output,
            "usage": {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion}}
