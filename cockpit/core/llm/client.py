"""Talking to an OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, LM Studio).

What it is for: one blocking ``ModelClient.chat(messages)`` call that the agent
loop and the judge can run from a worker thread. It sends the messages (with
screenshots prepared by :func:`prepare_images`) through the real ``openai``
client, retries what is worth retrying with our own backoff, can be cancelled
at any moment through a ``threading.Event``, and returns the text with token
counts, cost and timing as a :class:`ChatResult`. Every failure becomes a
:class:`ModelError` with a message a human can act on. The configuration and
prices (:class:`ModelConfig`) live in :mod:`cockpit.core.llm.modelconfig`.

What it must not do: import Qt, log or raise anything containing the API key
(messages are scrubbed), write keys anywhere (see :mod:`cockpit.core.llm.apikeys`),
or let the ``openai`` client retry on its own (``max_retries=0``: backoff,
``Retry-After`` and cancellation stay under our control).

Retry policy (``max_retries`` retries after the first attempt; the waits and when to give up are
:class:`cockpit.core.llm.retry.RetryPolicy`, shared with the judge):

* retried: 429 (waits ``retry-after-ms`` / ``Retry-After``, capped at
  ``RETRY_AFTER_CAP``; except ``insufficient_quota``, which is final), 408,
  409, 5xx, timeouts, connection errors, and a 200 whose JSON body is
  truncated or malformed. A server's ``x-should-retry: true|false`` header
  overrides the status rule (the loopback test server marks deterministic
  failures ``false``).
* not retried: 400, 401, 403, 404, 422 and other 4xx; a reply that is not JSON
  at all (usually a wrong base URL); a reply without choices; and an empty
  reply (no text): that is ``ModelError(retryable=False, reason="empty-reply")``
  so the caller decides whether to ask again; its ``result`` holds the call's
  ChatResult (empty text, the usage) so the tokens it cost are still counted.
* other waits: ``backoff`` doubling per retry, capped at ``backoff_cap``,
  with +-20 % jitter (never above the cap).

Streaming: given ``on_delta``, :meth:`ModelClient.chat` and :meth:`ModelClient.respond` ask with
``stream=True`` (and ``stream_options.include_usage``, so the usage is still counted) and hand the reply
so far (:class:`cockpit.core.llm.streaming.Partial`) to ``on_delta`` on the caller's thread, about 20 times
a second; the request is otherwise the same, and so is the result (:mod:`cockpit.core.llm.streaming`).
A server that refuses to stream is asked again at once without streaming, and not asked to stream again
(``ModelClient.streams`` is then False); one that answers with a plain body is read as it is.

For asyncio callers (the judge's batch) :meth:`ModelClient.open_async` gives an ``openai.AsyncOpenAI`` with
the same server and key, :meth:`ModelClient.classify` the same error messages and :func:`check_json` and
:func:`usage_of` the same reading of a reply.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import openai

from cockpit.core.llm import apikeys, modelerrors, streaming
from cockpit.core.llm.modelconfig import PRICES, ModelConfig, estimate_cost, price_for
from cockpit.core.llm.modelerrors import ModelCancelled, ModelError
from cockpit.core.llm.outimages import prepare_images
from cockpit.core.llm.retry import RetryPolicy, with_retries
from cockpit.core.llm.streaming import Partial

__all__ = [
    "PRICES",
    "ChatResult",
    "ModelCancelled",
    "ModelClient",
    "ModelConfig",
    "ModelError",
    "Partial",
    "check_json",
    "estimate_cost",
    "prepare_images",
    "price_for",
    "usage_of",
]

log = logging.getLogger(__name__)

IMAGE_TOKEN_GUESS = 85      # per image, for the usage estimate when the server gives none
NO_KEY = "not-needed"       # what local servers get when no key is configured
OPENAI_HOSTS = ("api.openai.com",)


# --------------------------------------------------------------------------- results and errors


@dataclass
class ChatResult:
    """One successful chat call.

    seconds: wall-clock time of the whole call, retries and waits included.
    attempts: requests made (1 = no retry).
    tokens_estimated: True when the server sent no usage and the counts are
        rough guesses (text length // 4, plus a flat amount per image).
    """

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    seconds: float
    attempts: int
    finish_reason: str | None
    tokens_estimated: bool = False
    tool_calls: list[dict] = field(default_factory=list)  # chat: the reply's tool calls, as sent
    output: list[dict] = field(default_factory=list)  # Responses API: the response's output items
    response_id: str = ""  # Responses API: the response's id (the next turn's previous_response_id)


# --------------------------------------------------------------------------- helpers


def _no_key_message() -> str:
    """Why there is no key for OpenAI, in one sentence, and what to do about it."""
    usable, _ = apikeys.keyring_usable()
    where = (f"none is stored in the system keyring and {apikeys.ENV_VAR} is not set" if usable else
             f"{apikeys.ENV_VAR} is not set and there is no system keyring to store one in")
    fixes = f"set {apikeys.ENV_VAR}" + (", store one with `cockpit key set`," if usable else "")
    return (f"no API key for OpenAI: {where}. To fix, {fixes} or give --base-url of a local "
            "OpenAI-compatible server (vLLM, Ollama, LM Studio), which needs no key.")


def is_openai(base_url: str | None) -> bool:
    """True for the real OpenAI API (no base URL, or its host)."""
    return base_url is None or apikeys.host_of(base_url) in OPENAI_HOSTS


def _estimate_prompt_tokens(messages: Iterable[dict]) -> int:
    chars = images = 0
    for msg in messages:
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, str):
            chars += len(content)
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                images += 1
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                chars += len(part["text"])
    return chars // 4 + images * IMAGE_TOKEN_GUESS


def check_json(raw, config: ModelConfig):
    """The parsed reply of a raw chat-completions response; ModelError ("not-json") when the server answered
    with something else (usually a wrong base URL)."""
    parsed = raw.parse()
    if isinstance(parsed, str):
        raise modelerrors.not_json(parsed, config.display_url, raw.headers.get("content-type", "no content type"),
                                   raw.status_code)
    return parsed


def usage_of(completion, payload: list[dict], text: str) -> tuple[int, int, bool]:
    """(prompt tokens, completion tokens, estimated): the server's usage, or a rough guess when it sent none."""
    usage = getattr(completion, "usage", None)
    if usage is not None and usage.prompt_tokens is not None and usage.completion_tokens is not None:
        return usage.prompt_tokens, usage.completion_tokens, False
    return _estimate_prompt_tokens(payload), len(text) // 4, True


# --------------------------------------------------------------------------- client


class ModelClient:
    """A chat client for one :class:`ModelConfig`. Thread-safe; ``close()`` when done."""

    def __init__(self, config: ModelConfig, api_key: str | None = None, *, connect_timeout: float | None = None):
        """`connect_timeout`: seconds to wait for the server to accept the connection (None: the config's
        timeout); a person waiting at a dialog (re-ask) gives a server that is gone only a few."""
        self.config = config
        self.key_source = "given"
        if api_key is None:
            api_key = self._find_key()
        self._key = api_key
        self.streams: bool | None = None  # whether the server streams replies: None until a call asked it to
        timeout = config.timeout if connect_timeout is None else openai.Timeout(config.timeout, connect=connect_timeout)
        self._client = openai.OpenAI(base_url=config.base_url, api_key=api_key, timeout=timeout, max_retries=0)

    @property
    def retry(self) -> RetryPolicy:
        """The retry policy of this client's calls (its config's retries and backoff)."""
        return RetryPolicy.of(self.config)

    def open_async(self) -> openai.AsyncOpenAI:
        """An asyncio client for the same server and key (the caller closes it); like ours, it never retries
        on its own: run its calls under :func:`cockpit.core.llm.retry.with_retries_async` with ``self.retry``
        and ``self.classify``."""
        cfg = self.config
        return openai.AsyncOpenAI(base_url=cfg.base_url, api_key=self._key, timeout=cfg.timeout, max_retries=0)

    def _find_key(self) -> str:
        lookup = apikeys.get_api_key(self.config.base_url)
        self.key_source = lookup.source
        if lookup.key:
            log.info("%s", lookup.note)
            return lookup.key
        if is_openai(self.config.base_url):
            raise ModelError(_no_key_message(), reason="no-key")
        self.key_source = "none (local server)"
        return NO_KEY

    # -- public ------------------------------------------------------------------
    def chat(self, messages: list[dict], *, cancel: threading.Event | None = None,
             on_retry: Callable[[int, float, str], Any] | None = None, tools: list[dict] | None = None,
             on_delta: Callable[[Partial], Any] | None = None) -> ChatResult:
        """Send ``messages`` (with function ``tools``, if given) and return the reply; raises ModelError or
        ModelCancelled.

        ``on_retry(attempt, wait_seconds, reason)`` is called before each wait:
        ``attempt`` is the number of the attempt that just failed. ``on_delta(partial)``: stream the reply
        and show it as it comes (see the module's docstring).
        """
        payload = prepare_images(messages, self.config)
        start = time.monotonic()
        live = self._live(on_delta)
        params = self._params(payload, tools)

        def plain():
            return check_json(self._client.chat.completions.with_raw_response.create(**params), self.config)

        def ask():
            if live is None or self.streams is False:
                return plain()
            return self._streamed(lambda: streaming.chat(self._client, params, live, cancel, self.config), plain, live)

        completion, attempt = self._with_retries(ask, cancel, on_retry, live)
        return self._result(completion, payload, start, attempt)

    def respond(self, request: dict, *, cancel: threading.Event | None = None,
                on_retry: Callable[[int, float, str], Any] | None = None,
                on_delta: Callable[[Partial], Any] | None = None) -> ChatResult:
        """One call of the Responses API (computer-use models): `request` holds ``input``, ``tools`` and
        optionally ``instructions`` and ``previous_response_id``; the model and limits come from the config.
        The result's ``output`` holds the response's items, ``text`` their output text joined. ``on_delta``:
        stream its events, as :meth:`chat` does."""
        start = time.monotonic()
        body = dict(request, model=self.config.model, max_output_tokens=self.config.max_tokens)
        body.setdefault("truncation", "auto")
        live = self._live(on_delta)

        def ask():
            if live is None or self.streams is False:
                return self._client.responses.create(**body)
            return self._streamed(lambda: streaming.respond(self._client, body, live, cancel, self.config),
                                  lambda: self._client.responses.create(**body), live)

        response, attempt = self._with_retries(ask, cancel, on_retry, live)
        output = [item.model_dump(exclude_none=True) if hasattr(item, "model_dump") else dict(item)
                  for item in (getattr(response, "output", None) or [])]
        text = "\n".join(c.get("text", "") for item in output if item.get("type") == "message"
                         for c in item.get("content") or [] if c.get("type") == "output_text")
        usage = getattr(response, "usage", None)
        prompt = getattr(usage, "input_tokens", None)
        done = getattr(usage, "output_tokens", None)
        estimated = prompt is None or done is None
        if estimated:
            prompt, done = _estimate_prompt_tokens(body.get("input") or []), len(json.dumps(output)) // 4
        if not output:
            raise ModelError(f"the server at {self.config.display_url} returned a response with no output",
                             reason="empty-reply", attempts=attempt)
        return ChatResult(text=text, model=getattr(response, "model", None) or self.config.model,
                          prompt_tokens=prompt, completion_tokens=done,
                          cost=estimate_cost(self.config, prompt, done), seconds=time.monotonic() - start,
                          attempts=attempt, finish_reason=getattr(response, "status", None),
                          tokens_estimated=estimated, output=output, response_id=getattr(response, "id", "") or "")

    def _with_retries(self, call: Callable[[], Any], cancel, on_retry, live=None) -> tuple[Any, int]:
        """`call()`'s result and the attempts it took, under this client's retry policy."""
        return with_retries(call, self.retry, self.classify, cancel=cancel, on_retry=on_retry, logger=log,
                            tick=live.tick if live is not None else None)

    def _live(self, on_delta) -> streaming.Live | None:
        """Where a streamed reply is kept while it comes, when the caller watches and the server may stream."""
        return streaming.Live(on_delta) if on_delta is not None and self.streams is not False else None

    def _streamed(self, stream: Callable[[], Any], plain: Callable[[], Any], live: streaming.Live) -> Any:
        """`stream()`; when the server refuses to stream, `plain()` at once, and no streaming from then on."""
        try:
            result = stream()
        except openai.APIStatusError as exc:
            if not streaming.refused(exc):
                raise
            log.info("%s did not stream (%s); asking without streaming", self.config.display_url, exc.status_code)
            result = plain()
            self.streams = False
            return result
        self.streams = live.streamed or self.streams
        return result

    def list_models(self) -> list[str]:
        """Model ids the server offers, in the server's order (one attempt; ModelError on failure). Not sorted: a
        server lists the model it serves first (vLLM, LM Studio's loaded model), which the Model… dialog picks."""
        try:
            page = self._client.models.list()
            return list(dict.fromkeys(m.id for m in page))
        except Exception as exc:
            raise self.classify(exc, what="listing models") from None

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "ModelClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ModelClient({self.config.model!r} at {self.config.display_url!r}, key from {self.key_source})"

    # -- one request -------------------------------------------------------------
    def _params(self, payload: list[dict], tools: list[dict] | None = None) -> dict:
        """A chat request's parameters, the same streamed or not."""
        cfg = self.config
        extra = {"tools": tools} if tools else {}
        return dict(model=cfg.model, messages=payload, temperature=cfg.temperature, max_tokens=cfg.max_tokens,
                    **extra)

    def _result(self, completion, payload: list[dict], start: float, attempts: int) -> ChatResult:
        choices = getattr(completion, "choices", None)
        if not choices:
            extra = getattr(completion, "error", None)
            raise ModelError(self._scrub(
                f"the server at {self.config.display_url} returned no choices"
                + (f": {str(extra)[:300]}" if extra else "")), reason="no-choices", attempts=attempts)
        choice = choices[0]
        text = choice.message.content or ""
        calls = [c.model_dump(exclude_none=True) if hasattr(c, "model_dump") else dict(c)
                 for c in (getattr(choice.message, "tool_calls", None) or [])]
        prompt, completion_tokens, estimated = usage_of(completion, payload, text or json.dumps(calls))
        result = ChatResult(
            text=text, model=completion.model or self.config.model,
            prompt_tokens=prompt, completion_tokens=completion_tokens,
            cost=estimate_cost(self.config, prompt, completion_tokens),
            seconds=time.monotonic() - start, attempts=attempts,
            finish_reason=choice.finish_reason, tokens_estimated=estimated, tool_calls=calls)
        if not text.strip() and not calls:
            err = self._empty_reply(choice, attempts)
            err.result = result  # the call was answered (and billed): its usage still counts
            raise err
        return result

    def _empty_reply(self, choice, attempts: int) -> ModelError:
        refusal = getattr(choice.message, "refusal", None)
        if refusal:
            return ModelError(self._scrub(f"the model refused: {refusal[:300]}"),
                              reason="refusal", attempts=attempts)
        hint = (f"; max_tokens={self.config.max_tokens} may be too small"
                if choice.finish_reason == "length" else "")
        return ModelError(f"the model returned an empty reply (finish_reason={choice.finish_reason}{hint})",
                          reason="empty-reply", attempts=attempts)

    # -- error mapping -----------------------------------------------------------
    def _scrub(self, text: str) -> str:
        if self._key and self._key != NO_KEY and len(self._key) >= 4:
            text = text.replace(self._key, "***")
        return text

    def classify(self, exc: BaseException, what: str = "model call") -> ModelError:
        """`exc` as a ModelError for the human, the key never in it (see :mod:`.modelerrors`)."""
        err = modelerrors.classify(exc, self.config, what)
        scrubbed = ModelError(self._scrub(str(err))[:1000], status=err.status, retryable=err.retryable,
                              reason=err.reason, retry_after=err.retry_after)
        scrubbed.why = self._scrub(err.why)
        return scrubbed
