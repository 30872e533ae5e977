"""Script loads in flight on the page, seen from the browser: what a page script cannot see of itself.

``instrument.js`` counts the work a page starts (fetch, timers, ``<script>``
elements...), but a dynamic ``import()`` is syntax, not a function it could
wrap: a framework that imports a view's module after a click had its request
in flight while the page looked quiet, and the view rendered after the
observation (issue #16). Chrome reports every request on the DevTools
``Network`` domain; :class:`ScriptLoads` listens on a connection of its own
(:meth:`BrowserSession.direct_cdp`, purpose "network") in a background thread
and keeps the script requests that have not finished: dynamic imports, module
graphs, lazily loaded bundles. A web worker's own script is left out: Chrome
reports its end to the worker, not to the page.

Only script requests count, and only for :data:`CAP` seconds each (a script that
never finishes must not hold every step). Nothing is buffered in Chrome
(response bodies are not kept). Without a direct connection (a remote WebDriver
without ``se:cdp``), nothing is seen and settling works as before.
"""
from __future__ import annotations

import logging
import threading
import time

from cockpit.core.browser.cdp import DirectCDP, DirectCDPError

log = logging.getLogger(__name__)

CAP = 3.0  # seconds a script request counts as pending work (as instrument.js's REPLY_CAP)
_NO_BUFFER = {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0, "maxPostDataSize": 0}


class ScriptLoads:
    def __init__(self, direct: DirectCDP):
        self.direct = direct
        self.target_id = direct.target_id
        self._inflight: dict[str, tuple[str, float]] = {}  # requestId -> (url, when it started, monotonic)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.alive = False

    @classmethod
    def start(cls, direct: DirectCDP) -> "ScriptLoads | None":
        """Watch `direct`'s page; None when its Network domain cannot be enabled."""
        watch = cls(direct)
        try:
            direct.call("Network.enable", _NO_BUFFER, timeout=2.0)
        except DirectCDPError as e:
            log.debug("no script-load watch: %s", e)
            return None
        watch.alive = True
        watch._thread = threading.Thread(target=watch._read, name="script-loads", daemon=True)
        watch._thread.start()
        return watch

    def pending(self) -> list[str]:
        """The URLs of script requests in flight, started less than CAP seconds ago."""
        now = time.monotonic()
        with self._lock:
            for rid in [r for r, (_, since) in self._inflight.items() if now - since >= CAP]:
                del self._inflight[rid]
            return [url for url, _ in self._inflight.values()]

    def wait(self, deadline: float, step: float = 0.01) -> list[str]:
        """Wait until no script request is pending, or until `deadline` (monotonic); what was still pending."""
        while (left := self.pending()) and time.monotonic() < deadline:
            time.sleep(step)
        return left

    def _read(self) -> None:
        session = self.direct.session_id
        try:
            for msg in self.direct.messages():
                if session and msg.get("sessionId") != session:
                    continue
                self._event(msg.get("method"), msg.get("params") or {})
        except Exception as e:  # the connection closed (the tab went, the session ended)
            log.debug("script-load watch ended: %s", e)
        finally:
            self.alive = False
            with self._lock:
                self._inflight.clear()

    def _event(self, method: str | None, p: dict) -> None:
        if method == "Network.requestWillBeSent" and p.get("type") == "Document" \
                and p.get("frameId") == self.target_id:  # a new document in the tab: the old one's loads end
            with self._lock:
                self._inflight.clear()
        elif method == "Network.requestWillBeSent":
            # Loaded by a script (import(), a module graph) or the parser. A worker's own script ("other") is
            # finished on the worker's target, never here; instrument.js waits for the worker's replies.
            if p.get("type") == "Script" and (p.get("initiator") or {}).get("type") in ("script", "parser") \
                    and not str(p.get("request", {}).get("url", "")).startswith("data:"):
                with self._lock:
                    self._inflight[p.get("requestId", "")] = (p["request"]["url"], time.monotonic())
        elif method in ("Network.loadingFinished", "Network.loadingFailed"):
            with self._lock:
                self._inflight.pop(p.get("requestId", ""), None)
