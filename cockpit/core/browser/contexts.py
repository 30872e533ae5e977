"""A clean browser for each task without starting a new Chrome: browser contexts (issue #32).

A browser context is Chrome's incognito-like partition: its own cookies, storage, cache and service
workers, gone when it is disposed. For each task the session moves its one tab into a new context
(``Target.createBrowserContext`` and ``Target.createTarget`` in it, on the browser's own DevTools socket)
and disposes the last one; the Chrome, its chromedriver and WebDriver session stay. The next context is
made ready while the current task runs, so the switch costs one WebDriver command.

Each context's tab gets what :meth:`BrowserSession.page_setup` gives the first one (the exact viewport,
instrument.js and the marking script before any page script, downloads into the session's folder) through
a DevTools session of its own, attached to the tab for as long as the context lives: those settings last
as long as the DevTools session that made them.

The browser's socket: local Chrome's ``debuggerAddress`` (``/json/version``), or Grid 4's ``se:cdp``.
Without either (a remote WebDriver endpoint that gives no DevTools access), :meth:`Contexts.open`
returns None and the caller starts a new browser per task as before.
"""
from __future__ import annotations

import json
import logging
import threading
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from cockpit.core.browser import remote
from cockpit.core.browser.cdp import DirectCDP, DirectCDPError
from cockpit.core.browser.scriptloads import ScriptLoads

log = logging.getLogger(__name__)


@dataclass
class Context:
    context_id: str
    target_id: str
    conn: DirectCDP  # the browser socket attached to the tab: its viewport and scripts live with it
    loads: ScriptLoads | None = None  # the tab's script requests, watched on `conn`
    direct: dict = field(default_factory=dict)  # purpose -> the session's direct connection to the tab


def browser_socket_url(session) -> str | None:
    """The browser-wide DevTools WebSocket of the session's Chrome, or None."""
    caps = session.driver.capabilities if session.driver is not None else {}
    if session.config.webdriver_url:
        se_cdp = caps.get("se:cdp") or ""
        return remote.relay_url(se_cdp, session.config.webdriver_url) if se_cdp else None
    address = (caps.get("goog:chromeOptions") or {}).get("debuggerAddress")
    if not address:
        return None
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # Chrome is on this computer
        with opener.open(f"http://{address}/json/version", timeout=5) as r:
            return json.load(r).get("webSocketDebuggerUrl")
    except Exception as e:  # noqa: BLE001 - no socket: a new browser per task will do
        log.debug("no browser DevTools socket at %s: %s", address, e)
        return None


def _close(ctx: Context) -> None:
    for conn in (ctx.conn, *ctx.direct.values()):
        conn.close()


def _drain(conn: DirectCDP) -> None:
    try:
        for _ in conn.messages():
            pass
    except Exception:  # noqa: BLE001 - the tab closed, the socket with it
        pass


class Contexts:
    """The session's tab moved into a new browser context per task; see the module docstring."""

    def __init__(self, session, url: str, root: DirectCDP):
        self.session = session
        self.url = url
        self._root = root  # browser-wide, not attached: creates and disposes contexts
        self.current: Context | None = None  # None: the tab is still in the browser's default context
        self._spare: Future | None = None
        self._spare_target: str | None = None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="browser-context")
        self._lock = threading.Lock()  # held while a spare tab is created and not yet known by its id

    @classmethod
    def open(cls, session) -> "Contexts | None":
        url = browser_socket_url(session)
        root = DirectCDP.connect_browser(url) if url else None
        if root is None:
            return None
        try:
            root.call("Target.getBrowserContexts", timeout=5)
        except DirectCDPError as e:
            log.info("browser contexts unavailable (%s): a new browser per task", e)
            root.close()
            return None
        return cls(session, url, root)

    def is_spare(self, handle: str) -> bool:
        """Whether a window handle is the tab made ready for the next task (not a popup to fold back)."""
        with self._lock:
            return handle == self._spare_target

    def prepare(self) -> None:
        """Start making the next task's context ready, in the background."""
        if self._spare is None:
            self._spare = self._pool.submit(self._make)

    def switch(self) -> None:
        """Move the session's tab into a new context (the one made ready, or one made now), and dispose
        of the last. Raises DirectCDPError when no context could be made: the caller starts a new browser."""
        spare, self._spare = self._spare, None
        ctx = spare.result() if spare is not None else self._make()
        s = self.session
        old_target, old = s.main_handle, self.current
        try:
            s.guarded(s.driver.switch_to.window, ctx.target_id)
        except Exception:
            self._pool.submit(self._dispose, ctx, ctx.target_id)
            raise
        with self._lock:
            self._spare_target = None
        s.move_to_tab(ctx.target_id, ctx.direct, ctx.loads)  # the old tab's connections dropped
        self.current = ctx
        # The old tab goes now, before the next page load could take it for a popup to fold back;
        # its context (a few ms more) in the background.
        self._close_tab(old_target)
        self._pool.submit(self._dispose, old, None)

    def close(self) -> None:
        """Close the sockets (the browser, quitting next, takes its contexts with it), without waiting for
        a context being made ready: its sockets are closed when it is done."""
        spare, self._spare = self._spare, None
        self._pool.shutdown(wait=False, cancel_futures=True)
        if spare is not None:
            spare.add_done_callback(lambda f: None if f.cancelled() or f.exception() else _close(f.result()))
        if self.current is not None:
            _close(self.current)
        self._root.close()

    def _make(self) -> Context:
        s = self.session
        ctx_id = self._root.call("Target.createBrowserContext", {"disposeOnDetach": False})["browserContextId"]
        try:
            if s.download_dir:
                self._root.call("Browser.setDownloadBehavior", {
                    "behavior": "allow", "downloadPath": str(s.download_dir), "browserContextId": ctx_id})
            w, h = s.config.viewport
            with self._lock:
                target = self._root.call("Target.createTarget", {
                    "url": "about:blank", "browserContextId": ctx_id, "width": w, "height": h})["targetId"]
                self._spare_target = target
            ctx = Context(ctx_id, target, self._attached(target))
            try:
                ctx.conn.call("Page.enable")  # without it, scripts for new documents are not run
                for method, params in s.page_setup():
                    ctx.conn.call(method, params)
                # Page stays enabled (disabling it drops the scripts): its events are read by the script-load
                # watch, which listens on this socket; the session's other direct connections are made now too.
                ctx.loads = ScriptLoads.start(ctx.conn)
                if ctx.loads is None:
                    threading.Thread(target=_drain, args=(ctx.conn,), name="browser-context-events",
                                     daemon=True).start()
                for purpose in ("script", "screenshot"):
                    ctx.direct[purpose] = self._attached(target)
                    s.equip_direct(ctx.direct[purpose], purpose)
            except BaseException:
                _close(ctx)
                raise
        except BaseException:
            try:
                self._root.call("Target.disposeBrowserContext", {"browserContextId": ctx_id})
            except DirectCDPError as e:
                log.debug("disposing of a context that could not be made ready: %s", e)
            raise
        return ctx

    def _attached(self, target: str) -> DirectCDP:
        conn = DirectCDP.connect_browser(self.url)
        if conn is None:
            raise DirectCDPError("could not open a DevTools socket for the new tab")
        try:
            conn.attach(target)
        except BaseException:
            conn.close()
            raise
        return conn

    def _close_tab(self, target: str | None) -> None:
        try:
            if target:
                self._root.call("Target.closeTarget", {"targetId": target})
        except DirectCDPError as e:
            log.debug("closing the last task's tab: %s", e)

    def _dispose(self, ctx: Context | None, target: str | None) -> None:
        """Close the tab and dispose of its context (the default context's tab: only closed)."""
        try:
            if target:
                self._root.call("Target.closeTarget", {"targetId": target})
            if ctx is not None:
                _close(ctx)
                self._root.call("Target.disposeBrowserContext", {"browserContextId": ctx.context_id})
        except DirectCDPError as e:
            log.debug("disposing of a used browser context: %s", e)
