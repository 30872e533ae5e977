"""Every request the page makes and what answered it, seen on the DevTools ``Network`` domain.

:class:`NetworkRecorder` listens on a connection of its own (:class:`~cockpit.core.browser.cdpstream.CDPStream`,
purpose "record" of :meth:`BrowserSession.direct_cdp`: local Chrome, or a Grid's ``se:cdp``). For each
request it gathers what Chrome reports (``requestWillBeSent`` and its ``ExtraInfo`` with the headers as
sent, cookies included; ``responseReceived`` and its ``ExtraInfo`` with ``Set-Cookie``; ``loadingFinished``
or ``loadingFailed``), then fetches the body (``Network.getResponseBody``; a request's own body with
``Network.getRequestPostData`` when Chrome did not inline it) and hands one finished exchange to its
`sink`, on the stream's worker thread, in the order the requests finished. A redirect is an exchange of
its own (its response has no body). ``data:`` URLs are not requests and are left out.

Chrome keeps bodies for a while in a buffer (``Network.enable``'s sizes below); a body it has dropped, or
one of a request cut off by a navigation, is recorded without a body (``body_error`` says why).
Service workers are bypassed (``Network.setBypassServiceWorker``): every request a page makes then goes
through the network stack where it is seen here and, on replay, answered (browser/netreplay.py).

Fetching a body makes the browser serialise it while the page may still be loading. So bodies wait until
:meth:`NetworkRecorder.release` (the step hook calls it once the page is observed, so they are fetched
while the model thinks) or until the tab starts loading another document (Chrome drops the old one's
bodies when the new one commits); a request's own body (``getRequestPostData``) too.
"""
from __future__ import annotations

import base64
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from cockpit.core.browser.cdp import DirectCDPError
from cockpit.core.browser.cdpstream import CDPStream

log = logging.getLogger(__name__)

#: Chrome's buffers for response bodies on this connection (bytes): all of them, and one.
BUFFERS = {"maxTotalBufferSize": 200_000_000, "maxResourceBufferSize": 50_000_000, "maxPostDataSize": 1_000_000}
#: The longest a request is kept open without an end (a long poll, an event stream): then kept as it is.
STALE = 120.0


@dataclass
class Exchange:
    """One request and its response, as recorded (headers as lists of [name, value])."""
    request_id: str
    method: str
    url: str
    started: float  # wall-clock seconds
    resource: str = ""  # Document, Script, XHR, Fetch, Image, ...
    frame: str = ""
    main_document: bool = False  # the tab's own document (not a frame's)
    req_headers: list = field(default_factory=list)
    post_data: bytes | None = None
    status: int = 0
    status_text: str = ""
    resp_headers: list = field(default_factory=list)
    mime: str = ""
    protocol: str = ""
    remote: str = ""
    from_cache: bool = False
    encoded_size: int = 0
    body: bytes | None = None
    body_error: str = ""
    error: str = ""  # loadingFailed's errorText (net::ERR_...)
    ended: float = 0.0
    timing: dict = field(default_factory=dict)
    redirected_to: str = ""
    finished: bool = False


class NetworkRecorder:
    def __init__(self, stream_of: Callable[[Callable], CDPStream | None], sink: Callable[[Exchange], None],
                 target_id: str = "", on_other: Callable[[str, dict], None] | None = None):
        self.sink = sink
        self.on_other = on_other  # any other event of the connection (a binding called, ...)
        self.target_id = target_id
        self._open: dict[str, Exchange] = {}
        self._extra_req: dict[str, list] = {}  # requestWillBeSentExtraInfo that came first
        self._extra_resp: dict[str, list] = {}
        self._lock = threading.Lock()
        self._later: list[Exchange] = []  # finished, bodies not fetched yet
        self.stream = stream_of(self._event)

    @classmethod
    def start(cls, stream_of: Callable[[Callable], CDPStream | None], sink: Callable[[Exchange], None],
              target_id: str = "", on_other: Callable[[str, dict], None] | None = None) -> "NetworkRecorder | None":
        """Recording on a new stream (`stream_of(on_event)` makes it); None when there is no such connection
        or its Network domain cannot be enabled."""
        rec = cls(stream_of, sink, target_id, on_other)
        if rec.stream is None:
            return None
        calls = [("Network.enable", BUFFERS), ("Network.setBypassServiceWorker", {"bypass": True})]
        return rec if rec.stream.set_up(calls, "record the network") else None

    @property
    def alive(self) -> bool:
        return self.stream is not None and self.stream.alive

    def release(self) -> None:
        """Fetch the bodies held back so far, on the stream's worker thread."""
        with self._lock:
            held, self._later = self._later, []
        for ex in held:
            self.stream.worker(lambda ex=ex: self._with_body(ex))

    def flush(self, timeout: float = 5.0) -> None:
        """Wait until the exchanges finished so far are in the sink (bodies fetched)."""
        if self.alive:
            self.release()
            self.stream.drain(timeout)

    def close(self, timeout: float = 5.0) -> list[Exchange]:
        """Stop recording once what finished is in the sink; the requests still open are handed to it too
        (no response, or no body yet), and returned."""
        self.flush(timeout)
        with self._lock:
            left, self._open = list(self._open.values()), {}
        for ex in left:
            ex.error = ex.error or "still open when the recording ended"
            self._emit(ex)
        if self.stream is not None:
            self.stream.close()
        return left

    # ---------- events (on the stream's reader thread) ----------
    def _event(self, method: str, p: dict) -> None:
        handler = _HANDLERS.get(method)
        if handler is not None:
            handler(self, p)
        elif self.on_other is not None:
            self.on_other(method, p)

    def _will_be_sent(self, p: dict) -> None:
        rid, req = p.get("requestId", ""), p.get("request") or {}
        url = req.get("url", "")
        if url.startswith("data:"):
            return
        if p.get("type") == "Document" and p.get("frameId") == self.target_id:
            self.release()  # the tab's next document: the old one's bodies go when it commits
        with self._lock:
            prev = self._open.pop(rid, None)
        if prev is not None and p.get("redirectResponse"):  # the same id goes on: its last hop ends here
            self._respond(prev, p["redirectResponse"])
            prev.redirected_to, prev.ended, prev.finished = url, p.get("wallTime") or time.time(), True
            self._emit(prev)
        ex = Exchange(rid, req.get("method", "GET"), url + (req.get("urlFragment") or ""),
                      p.get("wallTime") or time.time(), resource=p.get("type") or "", frame=p.get("frameId") or "",
                      main_document=p.get("type") == "Document" and (p.get("frameId") == self.target_id
                                                                        or p.get("loaderId") == rid))
        ex.req_headers = _pairs(req.get("headers"))
        if "postData" in req:
            ex.post_data = req["postData"].encode("utf-8", "surrogatepass")
        elif req.get("hasPostData"):
            ex.post_data = b""  # fetched when it ends
        with self._lock:
            self._open[rid] = ex
            extra = self._extra_req.pop(rid, None)
        if extra is not None:
            ex.req_headers = extra
        self._expire()

    def _req_extra(self, p: dict) -> None:
        rid, headers = p.get("requestId", ""), _pairs(p.get("headers"))
        with self._lock:
            ex = self._open.get(rid)
            if ex is None:
                self._extra_req[rid] = headers
        if ex is not None:
            ex.req_headers = headers  # what went on the wire: cookies included

    def _received(self, p: dict) -> None:
        with self._lock:
            ex = self._open.get(p.get("requestId", ""))
        if ex is not None:
            self._respond(ex, p.get("response") or {})
            ex.resource = p.get("type") or ex.resource

    def _resp_extra(self, p: dict) -> None:
        with self._lock:  # before or after responseReceived: taken by it, or when the request ends
            self._extra_resp[p.get("requestId", "")] = _pairs(p.get("headers"))

    def _respond(self, ex: Exchange, resp: dict) -> None:
        ex.status = int(resp.get("status") or 0)
        ex.status_text = resp.get("statusText") or ""
        ex.resp_headers = _pairs(resp.get("headers"))
        with self._lock:
            raw = self._extra_resp.pop(ex.request_id, None)
        if raw:  # the headers as they came, Set-Cookie included
            ex.resp_headers = raw
        ex.mime = resp.get("mimeType") or ""
        ex.protocol = resp.get("protocol") or ""
        ex.remote = f"{resp.get('remoteIPAddress', '')}:{resp.get('remotePort', '')}".strip(":")
        ex.from_cache = bool(resp.get("fromDiskCache") or resp.get("fromPrefetchCache"))
        ex.timing = resp.get("timing") or {}

    def _finished(self, p: dict) -> None:
        rid = p.get("requestId", "")
        with self._lock:
            ex = self._open.pop(rid, None)
            raw = self._extra_resp.pop(rid, None)
        if ex is None:
            return
        if raw:
            ex.resp_headers = raw
        ex.encoded_size = int(p.get("encodedDataLength") or 0)
        ex.finished, ex.ended = True, time.time()
        with self._lock:
            self._later.append(ex)

    def _failed(self, p: dict) -> None:
        with self._lock:
            ex = self._open.pop(p.get("requestId", ""), None)
        if ex is None:
            return
        ex.error = p.get("errorText") or ("canceled" if p.get("canceled") else "failed")
        if p.get("blockedReason"):
            ex.error += f" ({p['blockedReason']})"
        ex.ended = time.time()
        with self._lock:  # its request body, if any, with the others
            self._later.append(ex)

    def _from_cache(self, p: dict) -> None:
        with self._lock:
            ex = self._open.get(p.get("requestId", ""))
        if ex is not None:
            ex.from_cache = True

    # ---------- bodies (on the stream's worker thread) ----------
    def _with_body(self, ex: Exchange, response: bool = True) -> None:
        if ex.post_data == b"":
            try:
                ex.post_data = self.stream.call("Network.getRequestPostData", {"requestId": ex.request_id},
                                                timeout=5.0).get("postData", "").encode("utf-8", "surrogatepass")
            except DirectCDPError as e:
                log.debug("no request body for %s: %s", ex.url, e)
                ex.post_data = None
        if response and not ex.error and ex.status and not (300 <= ex.status < 400 and ex.status != 304) \
                and ex.status != 204:
            try:
                res = self.stream.call("Network.getResponseBody", {"requestId": ex.request_id}, timeout=10.0)
                data = res.get("body") or ""
                ex.body = base64.b64decode(data) if res.get("base64Encoded") else data.encode("utf-8",
                                                                                              "surrogatepass")
            except DirectCDPError as e:
                ex.body_error = str(e)
            except ValueError as e:
                ex.body_error = f"unreadable body: {e}"
        self._emit(ex)

    def _emit(self, ex: Exchange) -> None:
        try:
            self.sink(ex)
        except Exception:  # the archive failing must not take the browser's events down with it
            log.exception("could not record %s %s", ex.method, ex.url)

    def _expire(self) -> None:
        now = time.time()
        with self._lock:
            old = [rid for rid, ex in self._open.items() if now - ex.started > STALE]
            stale = [self._open.pop(rid) for rid in old]
        for ex in stale:
            ex.error = ex.error or f"no end within {STALE:.0f} s (kept as it was)"
            self._emit(ex)


def _pairs(headers) -> list:
    """Header dicts as Chrome gives them (several values of one name joined by newlines) as [name, value]s."""
    out = []
    for k, v in (headers or {}).items():
        for part in str(v).split("\n"):
            out.append([k, part])
    return out


_HANDLERS = {
    "Network.requestWillBeSent": NetworkRecorder._will_be_sent,
    "Network.requestWillBeSentExtraInfo": NetworkRecorder._req_extra,
    "Network.responseReceived": NetworkRecorder._received,
    "Network.responseReceivedExtraInfo": NetworkRecorder._resp_extra,
    "Network.loadingFinished": NetworkRecorder._finished,
    "Network.loadingFailed": NetworkRecorder._failed,
    "Network.requestServedFromCache": NetworkRecorder._from_cache,
}
