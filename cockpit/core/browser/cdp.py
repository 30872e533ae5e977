"""DevTools connections straight to the page, for screenshots and the marking script beside WebDriver.

ChromeDriver runs one command at a time per session, so a screenshot and the
marking script sent through it queue behind each other. Chrome itself takes
several DevTools clients per page; this opens one more (a plain WebSocket to
the page target, found through the ``debuggerAddress`` that local ChromeDriver
reports) and sends ``Page.captureScreenshot`` on it, so the capture runs while
the marking script runs in the page. See :func:`cockpit.core.page.observation.observe`.

A second such connection runs the marking script (``Runtime.evaluate``): a
WebDriver script call costs about 5 ms of ChromeDriver on top of the script,
and about 10 ms with the marks' JSON. A page script can open an alert, and
while one is open Chrome answers nothing on any connection until it closes;
so this connection watches the page's dialogs (``Page.enable``): with one open
(or opening while the script runs) :meth:`DirectCDP.evaluate` raises
:class:`DirectCDPDialog` at once, and the caller goes through WebDriver, which
reports the dialog as it always has.

Only local Chrome has the address; remote WebDriver endpoints (Grid) and any
failure fall back to the WebDriver path: :meth:`DirectCDP.connect` returns None
and the caller uses :meth:`BrowserSession.screenshot_png` / ``js``. Replies are
matched by id; a reply that comes too late is skipped. A connection is used
from one thread at a time (a lock guards it).
"""
from __future__ import annotations

import base64
import itertools
import json
import logging
import socket
import threading
import time
import urllib.parse
import urllib.request

import websocket

from cockpit.core.browser import remote

log = logging.getLogger(__name__)

SCREENSHOT = {"format": "png", "optimizeForSpeed": True}
DIALOG_GRACE = 0.1  # seconds of silence with a dialog open before giving up on a call
#: Chrome's errors for a script whose document went away while it ran (a navigation).
_NAVIGATED = ("Inspected target navigated or closed", "Execution context was destroyed",
              "Cannot find context with specified id")


class DirectCDPError(Exception):
    pass


class DirectCDPDialog(DirectCDPError):
    """A JavaScript dialog is open on the page: nothing runs there until it is answered."""


class DirectCDPScriptError(DirectCDPError):
    """The script threw; the connection is fine."""


class DirectCDPNavigated(DirectCDPError):
    """The page went on to another document while the call ran; the connection is fine."""


class DirectCDP:
    def __init__(self, ws: websocket.WebSocket, target_id: str, timeout: float = 10.0):
        self._ws = ws
        self.target_id = target_id
        self.timeout = timeout
        self.dialog_open = False  # known only on a connection that watches dialogs
        self.session_id: str | None = None  # set on a browser-wide connection attached to the page
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._closed = False

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
        return cls(ws, target_id, timeout)

    @classmethod
    def connect_grid(cls, se_cdp: str, target_id: str, timeout: float = 10.0) -> "DirectCDP | None":
        """A connection to page `target_id` through a Selenium Grid 4's ``se:cdp`` endpoint (the browser's
        own DevTools socket, relayed by the hub): attached to the page in flat mode, or None."""
        direct = cls.connect_browser(se_cdp, timeout)
        if direct is None:
            return None
        try:
            direct.attach(target_id)
        except DirectCDPError as e:
            log.debug("could not attach to %s through %s: %s", target_id, se_cdp, e)
            direct.close()
            return None
        return direct

    @classmethod
    def connect_browser(cls, url: str, timeout: float = 10.0) -> "DirectCDP | None":
        """A connection to the browser's own DevTools socket (`url`: local Chrome's webSocketDebuggerUrl or
        Grid 4's se:cdp relay), not attached to any page; or None."""
        try:
            ws = websocket.create_connection(url, timeout=timeout, suppress_origin=True,
                                             skip_utf8_validation=True, http_no_proxy=["*"])
        except Exception as e:
            log.debug("no DevTools connection through %s: %s", url, e)
            return None
        return cls(ws, "browser", timeout)

    def attach(self, target_id: str) -> None:
        """Send this connection's calls to page `target_id` from now on (a flat-mode session on it)."""
        self.session_id = self.call("Target.attachToTarget", {"targetId": target_id, "flatten": True}).get(
            "sessionId")
        if not self.session_id:
            raise DirectCDPError(f"no session attached to {target_id}")
        self.target_id = target_id

    def watch_dialogs(self, timeout: float = 2.0) -> None:
        """Have the page's dialog events sent here (Page.enable); see the module docstring."""
        self.call("Page.enable", timeout=timeout)

    def call(self, method: str, params: dict | None = None, *, timeout: float | None = None) -> dict:
        with self._lock:
            n = next(self._ids)
            deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
            try:
                out = {"id": n, "method": method, "params": params or {}}
                if self.session_id and method != "Target.attachToTarget":
                    out["sessionId"] = self.session_id
                self._ws.send(json.dumps(out))
                msg = self._reply(n, deadline)
            except DirectCDPError:
                raise
            except Exception as e:
                raise DirectCDPError(f"{method}: {e}") from e
        if "error" in msg:
            text = f"{method}: {msg['error'].get('message', msg['error'])}"
            if any(hint in text for hint in _NAVIGATED):
                raise DirectCDPNavigated(f"the page navigated meanwhile ({text})")
            raise DirectCDPError(text)
        return msg.get("result", {})

    def _reply(self, n: int, deadline: float) -> dict:
        while True:
            left = deadline - time.monotonic()
            wait = min(left, DIALOG_GRACE) if self.dialog_open else left
            if wait <= 0:
                raise DirectCDPError("no reply in time")
            self._ws.settimeout(wait)
            try:
                msg = json.loads(self._ws.recv())
            except websocket.WebSocketTimeoutException:
                if self.dialog_open:  # the page is stopped at an alert: it answers nothing until then
                    raise DirectCDPDialog("a JavaScript dialog is open on the page") from None
                raise
            method = msg.get("method")
            if method == "Page.javascriptDialogOpening":
                self.dialog_open = True
            elif method == "Page.javascriptDialogClosed":
                self.dialog_open = False
            elif msg.get("id") == n:
                return msg

    def send(self, method: str, params: dict | None = None) -> int:
        """Send a command without waiting: its reply comes through :meth:`messages` with the returned id (for
        a connection whose reader thread takes every message, browser/netrec.py)."""
        with self._lock:
            n = next(self._ids)
            out = {"id": n, "method": method, "params": params or {}}
            if self.session_id:
                out["sessionId"] = self.session_id
            try:
                self._ws.send(json.dumps(out))
            except Exception as e:
                raise DirectCDPError(f"{method}: {e}") from e
        return n

    def evaluate(self, expression: str, *, timeout: float | None = None, await_promise: bool = False):
        """The value of a JavaScript expression in the page's main world (JSON-able values only).

        With `await_promise`, the value the expression's promise resolves to.
        """
        params = {"expression": expression, "returnByValue": True}
        if await_promise:
            params["awaitPromise"] = True
        res = self.call("Runtime.evaluate", params, timeout=timeout)
        if "exceptionDetails" in res:
            details = res["exceptionDetails"]
            text = (details.get("exception") or {}).get("description") or details.get("text") or "error"
            raise DirectCDPScriptError(f"the script failed: {text.splitlines()[0]}")
        return (res.get("result") or {}).get("value")

    def screenshot_png(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", SCREENSHOT)["data"])

    def messages(self, poll: float = 1.0):
        """Each message Chrome sends on this connection, as it comes, until the connection closes: for a
        connection that only listens to events once its domains are enabled (no :meth:`call` meanwhile)."""
        self._ws.settimeout(poll)
        while not self._closed:
            try:
                frame = self._ws.recv()
            except websocket.WebSocketTimeoutException:
                continue
            if frame:
                yield json.loads(frame)

    def close(self) -> None:
        self._closed = True
        try:
            self._ws.close(timeout=0.5)  # a listening connection's reader may take the closing reply
        except Exception:
            pass


def connect_tab(capabilities: dict, webdriver_url: str, tab: str | None, timeout: float = 10.0) -> DirectCDP | None:
    """A new DevTools connection to page `tab` of a session with these WebDriver `capabilities`: local Chrome's
    ``debuggerAddress``, or Grid 4's ``se:cdp`` relay when the session is remote (`webdriver_url`); None when
    there is neither. Any thread may ask (browser/stop_loading.py does while the loop's thread waits)."""
    caps = capabilities or {}
    if not tab:
        return None
    if webdriver_url:
        se_cdp = caps.get("se:cdp")
        return DirectCDP.connect_grid(remote.relay_url(se_cdp, webdriver_url), tab, timeout) if se_cdp else None
    address = (caps.get("goog:chromeOptions") or {}).get("debuggerAddress")
    return DirectCDP.connect(address, tab, timeout=timeout) if address else None
