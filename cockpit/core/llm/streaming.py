"""A model's reply as it is written: streamed requests, the reply so far, and its thought and action.

What it is for: :class:`~cockpit.core.llm.client.ModelClient` asks with ``stream=True`` when its
caller wants to watch (``on_delta``). :func:`chat` and :func:`respond` read the stream on the
request's thread, keep the reply so far in a :class:`Live`, and return what a call without
streaming returns: a chat completion (put back together by the ``openai`` package's own
``ChatCompletionStreamState``, the tool calls without the ``index`` the deltas carry) or the
Responses API's response (its ``response.completed`` event). So the stored reply is the same,
streamed or not. The caller's thread hands :class:`Partial` snapshots to ``on_delta`` (``Live.tick``,
from :func:`cockpit.core.llm.retry.run_cancellable`'s poll), never the request's thread.

A server that does not stream is used as it is: a plain JSON body answered to ``stream: true`` is
read as the whole reply, and a refusal (:func:`refused`) makes the client ask again without
streaming. A stream that ends before its finish (no finish reason, no ``response.completed``) is
a retryable error, like a truncated JSON body.
"""
from __future__ import annotations

import importlib
import json
import re
import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable

import openai
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion

from cockpit.core.actions import replytext
from cockpit.core.llm.modelconfig import ModelConfig
from cockpit.core.llm.modelerrors import ModelCancelled, ModelError, html_page, not_json

#: statuses with which a server may say "I do not stream" (it is then asked again without streaming)
REFUSAL_STATUSES = (400, 404, 405, 415, 422, 501)
QUIET_TICK = 0.5  # seconds between reports of a reply that has not grown (the time it has taken goes on)
ACTION_PREVIEW = 300  # characters of an action shown while it is written


@dataclass(frozen=True)
class Partial:
    """A reply as far as it has come (one attempt's: a retry starts again from nothing)."""

    text: str = ""
    tool_calls: tuple = ()  # ((name, arguments so far), ...)
    reasoning: str = ""  # Responses API: the reasoning summary so far
    items: tuple = ()  # Responses API: output items finished so far (computer_call, function_call)
    pieces: int = 0  # deltas with text in them: about one token each
    seconds: float = 0.0  # since the attempt was sent
    first: float | None = None  # seconds to the first piece, None before it
    attempt: int = 1

    @property
    def tokens_per_second(self) -> float | None:
        """Pieces per second since the first one; None until there is a rate to tell."""
        if self.first is None or self.pieces < 2 or self.seconds - self.first < 0.2:
            return None
        return (self.pieces - 1) / (self.seconds - self.first)

    def preview(self) -> tuple[str, str]:
        """(the thought so far, the action so far), read loosely from whatever the model writes."""
        thought, action = split(self.text)
        if self.reasoning:
            thought = "\n".join(t for t in (self.reasoning.strip(), thought) if t)
        calls = [f"{name}({args})" for name, args in self.tool_calls if name or args]
        calls += [item_text(i) for i in self.items if i.get("type") in ("computer_call", "function_call")]
        if calls:
            action = "; ".join(calls)
        return thought, action[:ACTION_PREVIEW]


def split(text: str) -> tuple[str, str]:
    """The thought and the action of a partial text reply: ``Thought: ... Action: ...`` (any case, markdown),
    a Qwen ``<tool_call>``, or all thought while no action label has come."""
    if "<tool_call>" in text:
        before, _, after = text.partition("<tool_call>")
        return split(before)[0], " ".join(after.replace("</tool_call>", "").split())
    label = replytext.action_label(text)
    if label is None:
        head = text.lstrip(" *_#>`")
        if head and len(head) <= 8 and "thought:".startswith(head.lower()):
            return "", ""  # the label itself, still being written
        head, _, last = text.rpartition("\n")
        if head and last.strip(" *_#>`") and "action:".startswith(last.strip(" *_#>`").lower()):
            text = head  # the action's label, still being written: not part of the thought
        return replytext.thought_before(text, len(text), whole=True), ""
    return (replytext.thought_before(text, label.start(), whole=True),
            replytext.action_line(text[label.end():]))


def item_text(item: dict) -> str:
    """A Responses API item as one line: ``click {"x": 600, "y": 475}``."""
    if item.get("type") == "function_call":
        return f"{item.get('name')}({item.get('arguments', '')})"
    action = dict(item.get("action") or {})
    kind = action.pop("type", "computer_call")
    return f"{kind} {json.dumps(action, ensure_ascii=False)}" if action else str(kind)


def name_only(action: str) -> str:
    """An action shown by its name alone (``type(…)``), for text that may go into a secret field."""
    m = re.match(r"\s*([\w.]+)", action)
    return f"{m.group(1)}(…)" if m else "…"


class Live:
    """The reply so far of a call being streamed, written by the request's thread and read by the caller's."""

    def __init__(self, on_delta: Callable[[Partial], Any]):
        self.on_delta = on_delta
        self.streamed = False  # the server sent events (not a plain body)
        self._lock = threading.Lock()
        self._partial = Partial()
        self._sent: Partial | None = None
        self._t0 = time.monotonic()
        self._attempts = 0  # streamed attempts begun (a retry's preview starts again)

    def begin(self) -> None:
        """A new attempt: the preview starts again."""
        with self._lock:
            self._t0 = time.monotonic()
            self._attempts += 1
            self._partial = Partial(attempt=self._attempts)

    def update(self, **changes) -> None:
        with self._lock:
            p = self._partial
            now = time.monotonic() - self._t0
            if changes.pop("piece", False):
                changes.update(pieces=p.pieces + 1, first=p.first if p.first is not None else now)
            self._partial = replace(p, seconds=now, **changes)

    def tick(self) -> None:
        """Hand the reply so far to ``on_delta`` (on the caller's thread), with the time it has taken: when it
        has grown, and while it has not (the wait for the first piece) every QUIET_TICK seconds."""
        with self._lock:
            p = replace(self._partial, seconds=time.monotonic() - self._t0)
            last = self._sent
            if last is not None and p.attempt == last.attempt and p.pieces == last.pieces \
                    and p.items == last.items and p.seconds - last.seconds < QUIET_TICK:
                return
            self._sent = p
        self.on_delta(p)


def refused(exc: BaseException) -> bool:
    """True when `exc` may be a server's way of saying it does not stream (it is asked again without)."""
    return isinstance(exc, openai.APIStatusError) and exc.status_code in REFUSAL_STATUSES


def _plain(stream, config: ModelConfig) -> Any:
    """The body of a server that answered ``stream: true`` in one piece: JSON, else a not-json ModelError."""
    response = stream.response
    ctype = response.headers.get("content-type", "no content type")
    if "json" not in ctype:
        err = not_json(response.read(), config.display_url, ctype, response.status_code)
        stream.close()
        raise err
    return json.loads(response.read())


def _streams(stream) -> bool:
    return "text/event-stream" in stream.response.headers.get("content-type", "")


class _Head:
    """A response body read through, its first bytes kept: a "stream" that held no events can say what it held."""

    KEEP = 4096

    def __init__(self, inner):
        self.inner = inner
        self.head = b""

    def __iter__(self):
        for chunk in self.inner:
            if len(self.head) < self.KEEP:
                self.head += chunk[:self.KEEP - len(self.head)]
            yield chunk

    def close(self) -> None:
        self.inner.close()


def _watch_head(stream) -> _Head | None:
    """Keep the start of a stream's body (before it is read). The wrapper is of the HTTP package's own byte
    stream class (the ``openai`` client's, whatever it is named), which the response insists on."""
    response = stream.response
    base = getattr(importlib.import_module(type(response).__module__.split(".")[0]), "SyncByteStream", None)
    if base is None or not isinstance(response.stream, base):
        return None
    head = type("_HeadStream", (_Head, base), {})(response.stream)
    response.stream = head
    return head


def _ended_early(config: ModelConfig, head: _Head | None, events: int) -> ModelError:
    """The error of a stream that ended before its finish: an HTML page sent as the stream (a proxy's error
    page, #38), else a truncated stream."""
    page = html_page(head.head, config.display_url) if head is not None and not events else None
    return page or _truncated(config)


def _check_cancel(stream, cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        stream.close()  # the server sees the connection close: it stops writing
        raise ModelCancelled("model call cancelled")


def _truncated(config: ModelConfig) -> ModelError:
    return ModelError(f"the reply from {config.display_url} broke off before its end (the stream closed early)",
                      retryable=True, reason="truncated-stream")


def chat(client: openai.OpenAI, params: dict, live: Live, cancel, config: ModelConfig) -> ChatCompletion:
    """One streamed chat-completions request (`params` as a plain request has them); the whole completion."""
    live.begin()
    stream = client.chat.completions.create(**params, stream=True, stream_options={"include_usage": True})
    if not _streams(stream):
        return ChatCompletion.construct(**_plain(stream, config))
    live.streamed = True
    head, events = _watch_head(stream), 0
    state, finished, calls, text = ChatCompletionStreamState(), False, {}, ""
    with stream:
        for chunk in stream:
            events += 1
            _check_cancel(stream, cancel)
            state.handle_chunk(chunk)
            for choice in chunk.choices[:1]:
                delta = choice.delta
                for tc in delta.tool_calls or []:
                    name, args = calls.get(tc.index, ("", ""))
                    fn = tc.function
                    if fn is not None:
                        calls[tc.index] = (name or fn.name or "", args + (fn.arguments or ""))
                text += delta.content or ""
                if delta.content or delta.tool_calls:
                    live.update(piece=True, text=text, tool_calls=tuple(calls[i] for i in sorted(calls)))
                finished = finished or choice.finish_reason is not None
    if not finished:
        raise _ended_early(config, head, events)
    data = state.current_completion_snapshot.to_dict()
    for choice in data.get("choices") or []:
        for call in (choice.get("message") or {}).get("tool_calls") or []:
            call.pop("index", None)  # the deltas' bookkeeping, not part of the call
            (call.get("function") or {}).pop("parsed_arguments", None)
    return ChatCompletion.construct(**data)


def respond(client: openai.OpenAI, body: dict, live: Live, cancel, config: ModelConfig):
    """One streamed Responses API request; the response of its ``response.completed`` event."""
    live.begin()
    stream = client.responses.create(**body, stream=True)
    if not _streams(stream):
        return openai.types.responses.Response.construct(**_plain(stream, config))
    live.streamed = True
    head, events = _watch_head(stream), 0
    text, reasoning, items, final = "", "", [], None
    with stream:
        for event in stream:
            events += 1
            _check_cancel(stream, cancel)
            kind = getattr(event, "type", "")
            if kind == "response.output_text.delta":
                text += event.delta
            elif kind == "response.reasoning_summary_text.delta":
                reasoning += event.delta
            elif kind == "response.output_item.done":
                item = event.item.model_dump(exclude_none=True)
                if item.get("type") in ("computer_call", "function_call"):
                    items.append(item)
            elif kind in ("response.completed", "response.incomplete"):
                final = event.response
                continue
            elif kind in ("response.failed", "error"):
                err = getattr(getattr(event, "response", None), "error", None) or getattr(event, "message", "")
                raise ModelError(f"the server at {config.display_url} failed the response: {err}",
                                 retryable=True, reason="stream-error")
            else:
                continue
            live.update(piece=kind.endswith(".delta"), text=text, reasoning=reasoning, items=tuple(items))
    if final is None:
        raise _ended_early(config, head, events)
    return final
