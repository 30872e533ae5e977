"""A second DevTools connection straight to the page, for screenshots alongside WebDriver.

ChromeDriver runs one command at a time per session, so a screenshot and the
marking script sent through it queue behind each other. Chrome itself takes
several DevTools clients per page; this opens one more (a plain WebSocket to
the page target, found through the ``debuggerAddress`` that local ChromeDriver
reports) and sends ``Page.captureScreenshot`` on it, so the capture runs while
the marking script runs in the page. See :func:`cockpit.core.observation.observe`.

Only local Chrome has the address; remote WebDriver endpoints (Grid) and any
failure fall back to the WebDriver path: :meth:`DirectCDP.connect` returns None
and the caller uses :meth:`BrowserSession.screenshot_png`. The connection
enables no DevTools domain, so no events arrive on it; replies are matched by
id. It is used from one thread at a time (a lock guards it).
"""
from __future__ import annotations

import base64
import itertools
import json
import logging
import socket
import threading
import urllib.parse
import urllib.request

import websocket

log = logging.getLogger(__name__)

SCREENSHOT = {"format": "png", "optimizeForSpeed": True}


class DirectCDPError(Exception):
    pass


class DirectCDP:
    def __init__(self, ws: websocket.WebSocket, target_id: str):
        self._ws = ws
        self.target_id = target_id
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    @classmethod
    def connect(cls, debugger_address: str, target_id: str, timeout: float = 10.0) -> "DirectCDP | None":
        """A connection to page `target_id` of the Chrome at `debugger_address` ("host:port"), or None."""
        try:
            # Chrome is on this computer: never ask an http_proxy of the environment for it.
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(f"http://{debugger_address}/json/list", timeout=timeout) as r:
                targets = json.load(r)
            url = next(t["webSocketDebuggerUrl"] for t in targets
                       if t.get("id") == target_id and t.get("webSocketDebuggerUrl"))
            # No Origin header (Chrome refuses unknown origins); the PNG arrives as one big base64 text
            # frame, and checking it as UTF-8 in Python costs more than the capture itself.
            # Our own socket: websocket-client would send it to an http_proxy of the environment.
            where = urllib.parse.urlsplit(url)
            sock = socket.create_connection((where.hostname, where.port or 80), timeout=timeout)
            try:
                ws = websocket.create_connection(url, timeout=timeout, suppress_origin=True,
                                                 skip_utf8_validation=True, socket=sock)
            except BaseException:
                sock.close()
                raise
        except StopIteration:
            log.debug("no DevTools target %s at %s", target_id, debugger_address)
            return None
        except Exception as e:  # no such endpoint, refused, a proxy in the way: WebDriver alone will do
            log.debug("no direct DevTools connection to %s: %s", debugger_address, e)
            return None
        return cls(ws, target_id)

    def call(self, method: str, params: dict | None = None) -> dict:
        with self._lock:
            n = next(self._ids)
            try:
                self._ws.send(json.dumps({"id": n, "method": method, "params": params or {}}))
                while True:
                    msg = json.loads(self._ws.recv())
                    if msg.get("id") == n:
                        break
            except Exception as e:
                raise DirectCDPError(f"{method}: {e}") from e
        if "error" in msg:
            raise DirectCDPError(f"{method}: {msg['error'].get('message', msg['error'])}")
        return msg.get("result", {})

    def screenshot_png(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", SCREENSHOT)["data"])

    def close(self) -> None:
        try:
            self._ws.close()
        except Exception:
            pass
