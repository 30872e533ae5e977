"""A scripted reply as a stream, the way OpenAI-compatible servers send one (server-sent events).

Used by the scripted model server (:mod:`cockpit.core.llm.modelserver`) when a request asks for
``stream: true``. No HTTP here: these functions turn a finished payload (what the server would
have answered in one piece, :func:`cockpit.core.llm.replies.chat_payload` /
:func:`~cockpit.core.llm.replies.response_payload`) into the pieces a streaming server sends,
so that what the client puts back together is the same reply, to the byte.

Chat completions (OpenAI's "chat.completion.chunk" objects, ended by ``data: [DONE]``): a first
chunk with the role, the text in token-sized pieces, each tool call opened with its index, id,
type and name and then its arguments in pieces (``{"index": 0, "function": {"arguments": ...}}``),
a last chunk with the finish reason and an empty delta, and, when the request's
``stream_options.include_usage`` is true, a chunk with no choices holding the usage (every other
chunk then has ``"usage": null``).

The Responses API (``event: <type>`` lines with a JSON ``data`` carrying ``type`` and
``sequence_number``): ``response.created``, then per output item ``response.output_item.added``,
its text (``response.output_text.delta``), reasoning summary
(``response.reasoning_summary_text.delta``) or function arguments
(``response.function_call_arguments.delta``) in pieces, ``response.output_item.done``, and
``response.completed`` holding the whole response.
"""
from __future__ import annotations

import copy
import json
import re
from typing import Iterator

_PIECE = re.compile(r"\s*\S{1,4}|\s+")


def pieces(text: str) -> list[str]:
    """`text` cut into token-sized pieces (a few characters each, leading spaces kept), which join back to it."""
    return _PIECE.findall(text or "")


def encode(data, event: str | None = None) -> bytes:
    """One server-sent event: ``data: <json>`` (or ``data: [DONE]`` for the string "[DONE]")."""
    body = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {body}\n\n".encode()


def chat_chunks(payload: dict, body: dict) -> Iterator[dict]:
    """The chunks of a chat completion `payload`, for the request `body` (its ``stream_options``)."""
    with_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    choice = payload["choices"][0]
    message = choice["message"]

    def chunk(delta: dict, finish=None) -> dict:
        out = {"id": payload["id"], "object": "chat.completion.chunk", "created": payload["created"],
               "model": payload["model"], "system_fingerprint": None,
               "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        if with_usage:
            out["usage"] = None
        return out

    yield chunk({"role": "assistant", "content": "", "refusal": None})
    for piece in pieces(message.get("content") or ""):
        yield chunk({"content": piece})
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call.get("function") or {}
        yield chunk({"tool_calls": [{"index": i, "id": call.get("id"), "type": call.get("type", "function"),
                                     "function": {"name": fn.get("name"), "arguments": ""}}]})
        for piece in pieces(fn.get("arguments") or ""):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    yield chunk({}, choice["finish_reason"])
    if with_usage:
        yield {"id": payload["id"], "object": "chat.completion.chunk", "created": payload["created"],
               "model": payload["model"], "system_fingerprint": None, "choices": [], "usage": payload["usage"]}


def response_events(payload: dict) -> Iterator[tuple[str, dict]]:
    """(event type, data) of a Responses API `payload`, streamed."""
    seq = iter(range(1_000_000))

    def event(kind: str, **fields) -> tuple[str, dict]:
        return kind, {"type": kind, "sequence_number": next(seq), **fields}

    started = dict(copy.deepcopy(payload), status="in_progress", output=[])
    started.pop("usage", None)
    yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    for index, item in enumerate(payload.get("output") or []):
        yield from _item_events(event, index, item)
    yield event("response.completed", response=payload)


def _item_events(event, index: int, item: dict) -> Iterator[tuple[str, dict]]:
    """One output item: added (empty), its text in pieces, done (whole)."""
    kind, item_id = item.get("type"), item.get("id", f"item_{index}")
    opened = dict(item, status="in_progress")
    if kind == "message":
        opened["content"] = []
    elif kind == "reasoning":
        opened["summary"] = []
    elif kind == "function_call":
        opened["arguments"] = ""
    yield event("response.output_item.added", output_index=index, item=opened)
    where = {"item_id": item_id, "output_index": index}
    if kind == "message":
        for c, part in enumerate(item.get("content") or []):
            text = part.get("text") or ""
            yield event("response.content_part.added", **where, content_index=c, part=dict(part, text=""))
            for piece in pieces(text):
                yield event("response.output_text.delta", **where, content_index=c, delta=piece, logprobs=[])
            yield event("response.output_text.done", **where, content_index=c, text=text, logprobs=[])
            yield event("response.content_part.done", **where, content_index=c, part=part)
    elif kind == "reasoning":
        for s, part in enumerate(item.get("summary") or []):
            text = part.get("text") or ""
            yield event("response.reasoning_summary_part.added", **where, summary_index=s,
                        part={"type": "summary_text", "text": ""})
            for piece in pieces(text):
                yield event("response.reasoning_summary_text.delta", **where, summary_index=s, delta=piece)
            yield event("response.reasoning_summary_text.done", **where, summary_index=s, text=text)
            yield event("response.reasoning_summary_part.done", **where, summary_index=s, part=part)
    elif kind == "function_call":
        for piece in pieces(item.get("arguments") or ""):
            yield event("response.function_call_arguments.delta", **where, delta=piece)
        yield event("response.function_call_arguments.done", **where, arguments=item.get("arguments") or "")
    yield event("response.output_item.done", output_index=index, item=item)
