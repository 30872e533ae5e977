"""A DevTools connection read by a thread of its own: events go to a handler, replies to whoever waits.

:class:`~cockpit.core.browser.cdp.DirectCDP` reads its replies itself, which suits a caller that sends one
command and waits. Recording the network (``Network.*`` events, then ``Network.getResponseBody`` for each
finished request) and answering intercepted requests (``Fetch.requestPaused``, then
``Fetch.fulfillRequest``) need both at once: a steady stream of events and commands sent while they come.
:class:`CDPStream` owns one such connection (purpose "record" or "replay" of
:meth:`BrowserSession.direct_cdp`, so local Chrome and a Selenium Grid's ``se:cdp`` alike). Its reader
thread takes every message: a reply resolves the :class:`~concurrent.futures.Future` of its command, an
event is passed to ``on_event(method, params)`` on the reader thread (a handler must not wait for a reply
there: it hands such work to a thread of its own, see :meth:`CDPStream.worker`).
"""
from __future__ import annotations

import itertools
import logging
import queue
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Callable

from cockpit.core.browser.cdp import DirectCDP, DirectCDPError

log = logging.getLogger(__name__)


class CDPStream:
    def __init__(self, direct: DirectCDP, on_event: Callable[[str, dict], None], name: str = "cdp-stream",
                 on_close: Callable[[], None] | None = None):
        self.direct = direct
        self.on_close = on_close
        self.on_event = on_event
        self._waiting: dict[int, Future] = {}
        self._lock = threading.Lock()
        self._jobs: queue.Queue = queue.Queue()
        self.alive = True
        self._reader = threading.Thread(target=self._read, name=name, daemon=True)
        self._reader.start()
        self._worker = threading.Thread(target=self._work, name=f"{name}-work", daemon=True)
        self._worker.start()

    def call(self, method: str, params: dict | None = None, timeout: float = 10.0) -> dict:
        """Send a command and wait for its result; DirectCDPError when it fails or no reply comes."""
        fut = self.call_async(method, params)
        try:
            msg = fut.result(timeout)
        except FutureTimeout:
            raise DirectCDPError(f"{method}: no reply in {timeout:g} s") from None
        if "error" in msg:
            raise DirectCDPError(f"{method}: {msg['error'].get('message', msg['error'])}")
        return msg.get("result") or {}

    def set_up(self, calls: list[tuple[str, dict]], what: str) -> bool:
        """Send the commands that start a listener, in order; on the first that fails, log why `what` cannot
        be done, close the connection and return False."""
        try:
            for method, params in calls:
                self.call(method, params, timeout=5.0)
        except DirectCDPError as e:
            log.warning("cannot %s: %s", what, e)
            self.close()
            return False
        return True

    def call_async(self, method: str, params: dict | None = None) -> Future:
        """Send a command; the Future gets its whole reply message (``result`` or ``error``)."""
        fut: Future = Future()
        if not self.alive:
            fut.set_result({"error": {"message": "the connection is closed"}})
            return fut
        with self._lock:  # the id is known only once sent: hold the table until it is in
            try:
                n = self.direct.send(method, params)
            except DirectCDPError as e:
                fut.set_result({"error": {"message": str(e)}})
                return fut
            self._waiting[n] = fut
        return fut

    def worker(self, job: Callable[[], None]) -> None:
        """Run `job` on the stream's worker thread, in order (work that waits for replies)."""
        self._jobs.put(job)

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until the jobs queued so far have run; False when they did not in time."""
        done = threading.Event()
        self._jobs.put(done.set)
        return done.wait(timeout)

    def close(self) -> None:
        if not self.alive:
            return
        self.alive = False
        self._jobs.put(None)
        self.direct.close()
        if self.on_close is not None:
            self.on_close()
        with self._lock:
            waiting, self._waiting = self._waiting, {}
        for fut in waiting.values():
            if not fut.done():
                fut.set_result({"error": {"message": "the connection closed"}})

    def _read(self) -> None:
        session = self.direct.session_id
        try:
            for msg in self.direct.messages(poll=0.5):
                if "id" in msg:
                    with self._lock:
                        fut = self._waiting.pop(msg["id"], None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                    continue
                if session and msg.get("sessionId") not in (None, session):
                    continue
                try:
                    self.on_event(msg.get("method") or "", msg.get("params") or {})
                except Exception:  # one bad event must not end the stream
                    log.exception("DevTools event handler failed on %s", msg.get("method"))
        except Exception as e:  # the connection closed (the tab went, the session ended)
            log.debug("DevTools stream ended: %s", e)
        finally:
            self.close()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except Exception:
                log.exception("DevTools stream job failed")


_opened = itertools.count(1)


def open_stream(session, purpose: str, on_event: Callable[[str, dict], None]) -> CDPStream | None:
    """A stream on a new DevTools connection of `session`'s main tab (local Chrome, or a Grid's ``se:cdp``),
    or None where there is none (a remote WebDriver without ``se:cdp``, no DevTools at all)."""
    name = f"{purpose}-{next(_opened)}"  # a connection of its own each time (the session keeps one per name)
    direct = session.direct_cdp(name)
    if direct is None:
        return None
    return CDPStream(direct, on_event, name, on_close=lambda: session.drop_direct(name))
