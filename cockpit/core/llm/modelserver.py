"""A tiny OpenAI-compatible chat-completions server on 127.0.0.1.

What it is for:

* Tests. It is the only stand-in for a model that the project's tests use: the
  real ``openai`` client talks real HTTP to it, so everything the client does
  (serialising messages and images, timeouts, retries, error mapping, parsing
  the reply) is exercised for real. ``ModelServer.requests`` records every
  request body so a test can assert exactly what was sent.
* The product's offline demo policy: a rule-based "model" (a plain Python
  function) served behind the same API, so the agent loop runs unchanged
  without an account or a network.

What it must not do: it never calls out to any network and never forwards a
request anywhere. It binds to the loopback address only, answers from the
``responder`` it was given, and knows nothing about real models. Any API key is
accepted, unless ``require_key=`` is given: then every request must carry
``Authorization: Bearer <that key>`` or is answered 401 (without echoing what
was sent) and counted in ``ModelServer.rejected``, so a test knows the key
really reached the server.

Endpoints: ``POST /v1/chat/completions``, ``POST /v1/responses`` (the Responses
API, for computer-use models: the responder gets the request body, with
``input`` instead of ``messages``, and answers ``Reply(output=[...items])``),
``GET /v1/models`` and ``GET /v1/models/<id>``. Anything else is a 404 with an
OpenAI-style error body.

Streaming: a request with ``stream: true`` is answered with server-sent events
as OpenAI-compatible servers send them (:mod:`cockpit.core.llm.sse`; a reply's
``token_delay`` paces the pieces, ``cut_after`` breaks the stream off), unless
the server was made with ``streaming="refuse"`` (a 400 naming the ``stream``
parameter, as servers that cannot stream answer) or ``streaming="plain"`` (the
whole reply as one JSON body, as servers that ignore the parameter do).
``ModelServer.abandoned`` counts streams the client hung up on before their end
(a cancelled request).

A responder is ``responder(body: dict) -> Reply | str``, called once per chat
request (from the request's own thread, so it must be thread-safe if it keeps
state; :func:`scripted` is). Returning a ``str`` is short for ``Reply(text=...)``,
so a plain ``body -> str`` function is a valid responder as is. If the responder
raises, the client gets a 500 with ``x-should-retry: false`` (the failure is
deterministic, so retrying is pointless) and the exception is kept in
``ModelServer.errors``.

Example::

    with ModelServer(scripted(["Thought: go\\nAction: Click [3]"])) as srv:
        client = OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        client.chat.completions.create(model="m", messages=[...])
        assert srv.requests[0]["messages"][0]["role"] == "system"
"""
from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from typing import Iterable, Mapping

from cockpit.core.llm import sse
from cockpit.core.llm.replies import (
    IMAGE_TOKENS,
    Reply,
    Responder,
    ScriptExhausted,
    chat_payload,
    estimate_prompt_tokens,
    estimate_tokens,
    response_payload,
    scripted,
)

__all__ = [
    "ModelServer",
    "Reply",
    "Responder",
    "ScriptExhausted",
    "IMAGE_TOKENS",
    "estimate_prompt_tokens",
    "estimate_tokens",
    "scripted",
]

_REASONS = {
    400: ("invalid_request_error", "invalid_request"),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "permission_denied"),
    404: ("invalid_request_error", "not_found"),
    408: ("timeout_error", "timeout"),
    409: ("invalid_request_error", "conflict"),
    422: ("invalid_request_error", "unprocessable_entity"),
    429: ("requests", "rate_limit_exceeded"),
}


def _error_body(status: int, message: str, type_: str | None = None, code: str | None = None,
                param: str | None = None) -> bytes:
    dflt_type, dflt_code = _REASONS.get(status, ("server_error" if status >= 500 else "invalid_request_error",
                                                 "server_error" if status >= 500 else None))
    return json.dumps({"error": {
        "message": message,
        "type": type_ or dflt_type,
        "param": param,
        "code": code or dflt_code,
    }}).encode()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    owner: "ModelServer"

    def handle_error(self, request, client_address):
        # A client that timed out and hung up is normal here; stay quiet.
        pass


class _Handler(http.server.BaseHTTPRequestHandler):
    # HTTP/1.0: one request per connection, so no kept-alive connection (and
    # handler thread) outlives stop() and answers a later request.
    protocol_version = "HTTP/1.0"
    server: _Server

    def log_message(self, fmt, *args):  # keep test and CLI output clean
        pass

    # -- plumbing --------------------------------------------------------
    def _send(self, status: int, body: bytes, *, content_type: str = "application/json",
              headers: Mapping[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, str(v))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass  # the client gave up (e.g. its timeout fired)

    def _error(self, status: int, message: str, *, code: str | None = None, param: str | None = None,
               headers: Mapping[str, str] | None = None) -> None:
        self._send(status, _error_body(status, message, code=code, param=param), headers=headers)

    def _path(self) -> str:
        path = self.path.split("?", 1)[0]
        return path.rstrip("/") or "/"

    def _authorized(self) -> bool:
        """True when no key is required or the request carries it; else answers 401."""
        owner = self.server.owner
        if owner.require_key is None:
            return True
        if self.headers.get("Authorization", "") == f"Bearer {owner.require_key}":
            return True
        length = int(self.headers.get("Content-Length") or 0)
        if length and self.command == "POST":
            self.rfile.read(length)
        owner._record_rejected()
        self._error(401, "Incorrect API key provided.", code="invalid_api_key")
        return False

    # -- routes ----------------------------------------------------------
    def do_GET(self):
        if not self._authorized():
            return
        path = self._path()
        owner = self.server.owner
        models = {name: {"id": name, "object": "model", "created": owner.created, "owned_by": "cockpit"}
                  for name in (owner.model_name, *owner.also_listed)}
        if path == "/v1/models":
            self._send(200, json.dumps({"object": "list", "data": list(models.values())}).encode())
        elif path.startswith("/v1/models/") and path[len("/v1/models/"):] in models:
            self._send(200, json.dumps(models[path[len("/v1/models/"):]]).encode())
        elif path.startswith("/v1/models/"):
            self._error(404, f"The model '{path[len('/v1/models/'):]}' does not exist", code="model_not_found")
        else:
            self._not_found()

    def do_POST(self):
        if not self._authorized():
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self._path() not in ("/v1/chat/completions", "/v1/responses"):
            self._not_found()
            return
        try:
            body = json.loads(raw or b"null")
        except ValueError as e:
            self._error(400, f"We could not parse the JSON body of your request: {e}")
            return
        if not isinstance(body, dict):
            self._error(400, "The request body must be a JSON object.")
            return
        self.server.owner._record(body)
        if body.get("stream") and self.server.owner.streaming == "refuse":
            self._error(400, "Streaming is not supported by this server; set stream to false.",
                        code="unsupported_value", param="stream")
            return
        self._chat(body)

    def do_PUT(self):
        self._not_found()

    do_DELETE = do_PATCH = do_PUT

    def _not_found(self):
        self._error(404, f"Unknown request URL: {self.command} {self.path}", code="unknown_url")

    def _chat(self, body: dict) -> None:
        owner = self.server.owner
        try:
            reply = owner.responder(body)
            if isinstance(reply, str):
                reply = Reply(text=reply)
            elif not isinstance(reply, Reply):
                raise TypeError(f"responder returned {type(reply).__name__}, expected Reply or str")
        except Exception as e:  # report to the client and keep for the test
            owner._record_error(e)
            self._error(500, f"responder failed: {type(e).__name__}: {e}", code="responder_error",
                        headers={"x-should-retry": "false"})
            return

        if reply.delay > 0 and owner._stopping.wait(reply.delay):
            return  # server stopping: drop the connection unanswered

        if reply.body is not None:
            raw = reply.body.encode() if isinstance(reply.body, str) else bytes(reply.body)
            self._send(reply.status, raw, content_type=reply.content_type, headers=reply.headers)
            return
        if reply.status >= 400:
            msg = reply.error_message or f"Simulated error {reply.status}"
            self._error(reply.status, msg, headers=reply.headers)
            return

        model = body.get("model") if isinstance(body.get("model"), str) and body.get("model") else owner.model_name
        shape = response_payload if self._path() == "/v1/responses" else chat_payload
        payload = shape(reply, model, body)
        if body.get("stream") and owner.streaming == "sse":
            self._stream(reply, payload, body)
            return
        self._send(reply.status, json.dumps(payload).encode(), headers=reply.headers)

    def _stream(self, reply: Reply, payload: dict, body: dict) -> None:
        """The payload as server-sent events, paced by the reply's token_delay; the connection closes at the end."""
        owner = self.server.owner
        if self._path() == "/v1/responses":
            events = (sse.encode(data, kind) for kind, data in sse.response_events(payload))
        else:
            events = (sse.encode(chunk) for chunk in sse.chat_chunks(payload, body))
        try:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # each piece goes out at once
            self.send_response(reply.status)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            for k, v in reply.headers.items():
                self.send_header(k, str(v))
            self.end_headers()
            for i, data in enumerate(events):
                if reply.cut_after is not None and i >= reply.cut_after:
                    return  # broken off: the connection closes with no [DONE]
                if i and reply.token_delay > 0 and owner._stopping.wait(reply.token_delay):
                    return
                self.wfile.write(data)
                self.wfile.flush()
            if self._path() != "/v1/responses":
                self.wfile.write(sse.encode("[DONE]"))
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            owner._record_abandoned()  # the client hung up before the end: a cancelled request


class ModelServer:
    """An OpenAI-compatible chat server on 127.0.0.1:<port> (0 = a free port).

    ``responder`` may also be a list of replies, short for ``scripted(list)``.
    The model in each completion echoes the request's ``model`` (or
    ``model_name`` if the request has none); ``/v1/models`` lists ``model_name``, then ``also_listed`` (in
    that order, as a server lists what it serves first).
    ``require_key``: answer 401 to any request without ``Authorization: Bearer
    <require_key>`` (counted in ``rejected``; such requests never reach the
    responder nor ``requests``).
    ``streaming``: "sse" (stream when asked), "refuse" (answer ``stream: true``
    with a 400) or "plain" (answer it with the whole reply as JSON).
    Use as a context manager, or ``start()`` / ``stop()``.
    """

    def __init__(self, responder: Responder | Iterable[Reply | str], *,
                 model_name: str = "cockpit-test-model", port: int = 0, require_key: str | None = None,
                 streaming: str = "sse", also_listed: Iterable[str] = ()):
        if streaming not in ("sse", "refuse", "plain"):
            raise ValueError(f"streaming must be 'sse', 'refuse' or 'plain', not {streaming!r}")
        self.streaming = streaming
        self._abandoned = 0
        if not callable(responder):
            responder = scripted(responder)
        self.responder: Responder = responder
        self.model_name = model_name
        self.also_listed = tuple(also_listed)
        self.require_key = require_key
        self._rejected = 0
        self.created = int(time.time())
        self._lock = threading.Lock()
        self._requests: list[dict] = []
        self._errors: list[BaseException] = []
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- addresses -------------------------------------------------------
    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- what was received -----------------------------------------------
    @property
    def requests(self) -> list[dict]:
        """Bodies received on /v1/chat/completions, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def errors(self) -> list[BaseException]:
        """Exceptions the responder raised (each also answered as a 500)."""
        with self._lock:
            return list(self._errors)

    @property
    def rejected(self) -> int:
        """Requests answered 401 because they lacked the ``require_key`` key."""
        with self._lock:
            return self._rejected

    @property
    def abandoned(self) -> int:
        """Streamed replies the client hung up on before their end."""
        with self._lock:
            return self._abandoned

    def _record_abandoned(self) -> None:
        with self._lock:
            self._abandoned += 1

    def _record_rejected(self) -> None:
        with self._lock:
            self._rejected += 1

    def _record(self, body: dict) -> None:
        with self._lock:
            self._requests.append(body)

    def _record_error(self, exc: BaseException) -> None:
        with self._lock:
            self._errors.append(exc)

    # -- lifecycle -------------------------------------------------------
    def start(self) -> "ModelServer":
        if self._closed:
            raise RuntimeError("ModelServer cannot be restarted after stop()")
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                            name="model-server", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; pending delayed replies end at once, unanswered."""
        if self._closed:
            return
        self._closed = True
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self) -> "ModelServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"ModelServer({self.base_url!r}, model_name={self.model_name!r})"
