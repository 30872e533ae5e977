"""Answering every request of a tab from a recording, never from the network (DevTools ``Fetch`` domain).

:class:`Interceptor` enables ``Fetch`` for every URL at the request stage on a connection of its own
(:func:`cockpit.core.browser.cdpstream.open_stream`). Each paused request is given to `answer`, which
returns a :class:`Served` response (status, headers, body) or None; the request is then fulfilled with it
(``Fetch.fulfillRequest``) or failed (``Fetch.failRequest``, ``InternetDisconnected``: the page sees a
network error, and the miss is counted). No request is ever continued to the network. WebSocket
connections, which ``Fetch`` does not see, are blocked (``Network.setBlockedURLs``), and service workers
are bypassed, so their requests come here too.

Closing the interceptor (its connection) ends the interception: the tab's requests go to the network again.
"""
from __future__ import annotations

import base64
import logging
from dataclasses import dataclass
from typing import Callable

from cockpit.core.browser.cdp import DirectCDPError
from cockpit.core.browser.cdpstream import CDPStream

log = logging.getLogger(__name__)

#: Headers not sent with a fulfilled body: it is stored decoded and whole.
_DROP = ("content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive")


@dataclass
class Paused:
    """A request the tab is waiting to have answered."""
    method: str
    url: str
    headers: dict
    post_data: bytes | None
    resource: str


@dataclass
class Served:
    status: int
    headers: list  # [name, value] pairs
    body: bytes = b""
    reason: str = ""


class Interceptor:
    def __init__(self, stream_of: Callable[[Callable], CDPStream | None], answer: Callable[[Paused], Served | None]):
        self.answer = answer
        self.served = 0
        self.failed = 0
        self.stream = stream_of(self._event)

    @classmethod
    def start(cls, stream_of, answer) -> "Interceptor | None":
        icp = cls(stream_of, answer)
        if icp.stream is None:
            return None
        calls = [("Network.enable", {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0}),
                 ("Network.setBypassServiceWorker", {"bypass": True}),
                 ("Network.setBlockedURLs", {"urls": ["ws://*", "wss://*"]}),
                 ("Fetch.enable", {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]})]
        return icp if icp.stream.set_up(calls, "serve the page from its recording") else None

    @property
    def alive(self) -> bool:
        return self.stream is not None and self.stream.alive

    def close(self) -> None:
        if self.stream is not None:
            if self.stream.alive:
                try:
                    self.stream.call("Fetch.disable", timeout=2.0)
                except DirectCDPError:
                    pass
            self.stream.close()

    def _event(self, method: str, p: dict) -> None:
        if method == "Fetch.requestPaused":
            self.stream.worker(lambda: self._answer(p))

    def _answer(self, p: dict) -> None:
        req = p.get("request") or {}
        post = req.get("postData")
        if post is None and req.get("postDataEntries"):
            try:
                post = "".join(base64.b64decode(e.get("bytes", "")).decode("utf-8", "surrogateescape")
                               for e in req["postDataEntries"])
            except ValueError:
                post = None
        paused = Paused(req.get("method", "GET"), req.get("url", "") + (req.get("urlFragment") or ""),
                        req.get("headers") or {}, None if post is None else post.encode("utf-8", "surrogateescape"),
                        p.get("resourceType") or "")
        try:
            served = self.answer(paused)
        except Exception:  # a bug in the lookup must not leave the tab waiting
            log.exception("could not answer %s from the recording", paused.url)
            served = None
        rid = p.get("requestId", "")
        if served is None:
            self.failed += 1
            self.stream.call_async("Fetch.failRequest", {"requestId": rid, "errorReason": "InternetDisconnected"})
            return
        self.served += 1
        headers = [{"name": k, "value": v} for k, v in served.headers if k.lower() not in _DROP]
        params = {"requestId": rid, "responseCode": served.status or 200, "responseHeaders": headers,
                  "body": base64.b64encode(served.body or b"").decode("ascii")}
        if served.reason:
            params["responsePhrase"] = served.reason
        self.stream.call_async("Fetch.fulfillRequest", params)
