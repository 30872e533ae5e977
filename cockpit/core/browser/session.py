"""A browser session the agent can see and act in: Chromium through WebDriver.

Owns one Chrome (local through Debian's chromedriver, or any remote WebDriver endpoint), pins its viewport
exactly, keeps it to one tab, waits for pages to settle, and turns a dead browser into :class:`BrowserDied`
instead of a hang (close() from another thread ends a start in progress). It knows nothing about marks' meaning
or the agent; see :mod:`cockpit.core.page.marks` and :mod:`cockpit.core.actions.grammar`.
"""
from __future__ import annotations

import base64
import logging
import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import urllib3.exceptions
from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service

from cockpit.core import paths, resources
from cockpit.core.browser import launch, profiles, remote, settling
from cockpit.core.browser.cdp import DirectCDP, DirectCDPError, connect_tab
from cockpit.core.browser.contexts import Contexts
from cockpit.core.browser.downloads import DownloadFolder
from cockpit.core.browser.processes import kill_orphans
from cockpit.core.browser.scriptloads import ScriptLoads
from cockpit.core.errors import BrowserDied, BrowserError, short_message

log = logging.getLogger(__name__)

# Never let Selenium Manager reach for the network to fetch a driver.
os.environ.setdefault("SE_OFFLINE", "true")
os.environ.setdefault("SE_AVOID_STATS", "true")


#: The window property holding the preinstalled marking function (js/som.js); see observation.collect_marks.
SOM_GLOBAL = "__cockpitSom"
#: The window property holding js/after_frame.js's function; see observation.collect_marks.
AFTER_FRAME_GLOBAL = "__cockpitAfterFrame"

_DEAD_HINTS = ("invalid session id", "chrome not reachable", "disconnected",
               "session deleted", "no such window", "target window already closed",
               "not connected to devtools", "unable to receive message from renderer")


@dataclass
class BrowserConfig:
    viewport: tuple[int, int] = (1024, 768)
    device_scale_factor: float = 1.0  # screenshot pixels per CSS pixel (2: a "retina" screen)
    headless: bool = True
    webdriver_url: str | None = None  # a remote WebDriver / Selenium Grid endpoint
    chrome_binary: str | None = None
    chromedriver: str | None = None
    profile_dir: Path | None = None  # default: a fresh dir under COCKPIT_HOME/profiles
    download_dir: Path | None = None  # default: <profile>/downloads
    page_load_timeout: float = 30.0
    command_timeout: float = 60.0  # HTTP timeout for every WebDriver command
    session_start_timeout: float = 300.0  # remote only: how long to keep asking for a session (Grid queues)
    settle_quiet_ms: int = 120
    settle_cap_ms: int = 5000
    settle_mutation_cap_ms: int = 800
    settle_look_ms: int = 60  # the second look for late mutations once the page's work is done
    settle_signal_cap_ms: int = 3000  # longest wait for a visible spinner or "Loading..." text
    search_url: str = "https://www.google.com/"
    user_agent: str | None = None
    extra_args: list[str] = field(default_factory=list)


class BrowserSession:
    """One browser, one tab. Use as a context manager or call close()."""

    def __init__(self, config: BrowserConfig | None = None):
        self.config = config or BrowserConfig()
        self.driver = None
        self._service: Service | None = None
        self._own_profile: Path | None = None
        self.profile_dir: Path | None = None
        self.download_dir: Path | None = None
        self.has_cdp = False
        self.downloads = DownloadFolder(None)  # what the browser saves; set up with the profile
        self._main_handle: str | None = None
        self.lock = threading.RLock()  # one WebDriver command at a time, whichever thread sends it
        self._direct: dict = {}  # purpose -> cdp.DirectCDP to the main tab, beside WebDriver
        self._direct_tried: dict[str, str] = {}  # purpose -> the tab it was tried for (not retried)
        self._loads: ScriptLoads | None = None  # script requests in flight on the main tab
        self.remote: remote.RemoteInfo | None = None  # where a remote session runs (webdriver_url only)
        self._contexts = None  # browser/contexts.Contexts once used; False: this browser has none to give
        self.closing = False

    # ---------- lifecycle ----------
    def start(self) -> "BrowserSession":
        """Start the browser; on any failure nothing is left behind (processes, profile)."""
        try:
            self._start()
            if self.closing:  # closed from another thread while it started (the window's Stop): none kept
                raise BrowserError("the browser's start was called off")
        except BaseException:
            self.close()
            raise
        return self

    def _start(self):
        cfg = self.config
        self._prepare_dirs()
        opts = launch.chrome_options(cfg, self.profile_dir, self.download_dir)
        try:
            if cfg.webdriver_url:
                self.driver = remote.start(cfg.webdriver_url, opts, start_timeout=cfg.session_start_timeout,
                                           command_timeout=cfg.command_timeout, stop=lambda: self.closing)
                sid = self.driver.session_id or ""
                self.remote = remote.RemoteInfo(cfg.webdriver_url, sid, remote.node_of(cfg.webdriver_url, sid))
            else:
                self._service = launch.start_chromedriver(cfg, self.profile_dir)
                conn = remote.connection(self._service.service_url, cfg.command_timeout)
                self.driver = webdriver.Remote(command_executor=conn, options=opts)
        except BrowserError:
            raise
        except (WebDriverException, urllib3.exceptions.HTTPError, OSError) as e:
            where = cfg.webdriver_url or "local chromedriver"
            raise BrowserError(f"could not start a browser session ({where}): {launch.why_not_started(e, cfg)}") from e
        self._main_handle = self.driver.current_window_handle
        self.driver.set_page_load_timeout(cfg.page_load_timeout)
        self.driver.set_script_timeout(cfg.settle_cap_ms / 1000 + 3)  # settle.js's cap, and a busy page's margin
        self._setup_cdp()

    def _prepare_dirs(self):
        cfg = self.config
        if cfg.profile_dir:
            self.profile_dir = Path(cfg.profile_dir).expanduser().absolute()  # as kill_orphans matches it
            self.profile_dir.mkdir(parents=True, exist_ok=True)
        elif not cfg.webdriver_url:
            self.profile_dir = Path(tempfile.mkdtemp(prefix="session-", dir=paths.browser_profiles()))
            self._own_profile = self.profile_dir
            profiles.claim(self.profile_dir)
            profiles.sweep(paths.browser_profiles(), keep=self.profile_dir)  # those a killed Cockpit left
        if self.profile_dir:
            self.download_dir = Path(cfg.download_dir or self.profile_dir / "downloads")
            self.download_dir.mkdir(parents=True, exist_ok=True)
            self.downloads = DownloadFolder(self.download_dir)

    @property
    def main_handle(self) -> str | None:
        """The window handle (target id) of the session's own tab."""
        return self._main_handle

    def move_to_tab(self, target_id: str, direct: dict, loads: ScriptLoads | None) -> None:
        """Make `target_id` (a fresh context's tab, browser/contexts.py) the session's own tab, with the DevTools
        connections and script-load watch already made to it; the old tab's connections are dropped first."""
        self.drop_direct()
        self._main_handle = target_id
        self._direct.update(direct)
        self._loads = loads

    def _metrics(self) -> dict:
        w, h = self.config.viewport
        return {"width": w, "height": h, "deviceScaleFactor": self.config.device_scale_factor, "mobile": False}

    def page_setup(self) -> list[tuple[str, dict]]:
        """The DevTools commands that make a tab Cockpit's: the exact viewport, instrument.js and the marking
        function before any page script (also sent to each new context's tab: browser/contexts.py)."""
        return [
            ("Emulation.setDeviceMetricsOverride", self._metrics()),
            ("Page.addScriptToEvaluateOnNewDocument", {"source": resources.script("instrument.js")}),
            # The marking function, compiled once per document instead of sent with every observation.
            # Read-only, so a page cannot replace it outright; it still runs in the page's world, where a
            # page could tamper with the built-ins it uses (the click-time checks in act.js are the guard).
            ("Page.addScriptToEvaluateOnNewDocument",
             {"source": f"Object.defineProperty(window, {SOM_GLOBAL!r}, {{value: ("
                        f"{resources.script('som.js')}), writable: false, configurable: false}});"
                        f"Object.defineProperty(window, {AFTER_FRAME_GLOBAL!r}, {{value: "
                        f"{resources.script('after_frame.js')}, writable: false, configurable: false}});"}),
        ]

    def _setup_cdp(self):
        w, h = self.config.viewport
        try:
            for method, params in self.page_setup():
                self.cdp(method, params)
            if self.download_dir:
                self.cdp("Browser.setDownloadBehavior",
                         {"behavior": "allow", "downloadPath": str(self.download_dir)})
            self.has_cdp = True
        except BrowserDied:
            raise
        except WebDriverException as e:
            # A remote endpoint without CDP still works, with a less exact viewport.
            log.warning("CDP unavailable (%s); viewport and settling are approximate", short_message(e))
            self.has_cdp = False
            self.driver.set_window_size(w, h)

    # ---------- a clean browser per task: browser contexts (browser/contexts.py) ----------
    def fresh_context(self) -> bool:
        """Move the tab into a new browser context (cookies, storage and cache of its own) and dispose of
        the last one. False when this browser cannot: the caller starts a new browser instead."""
        contexts = self._open_contexts()
        if contexts is None:
            return False
        try:
            contexts.switch()
        except Exception as e:  # noqa: BLE001 - whatever went wrong, a new browser is the way out
            log.warning("could not move to a new browser context (%s): a new browser instead", short_message(e))
            return False
        return True

    def prepare_context(self) -> None:
        """Make the next fresh_context() quick: its context is made ready now, in the background."""
        if (contexts := self._open_contexts()) is not None:
            contexts.prepare()

    def can_give_context(self) -> bool:
        """Whether fresh_context() can give this browser a clean context (browser/contexts.py)."""
        return self._open_contexts() is not None

    def _open_contexts(self):
        if self._contexts is None and self.has_cdp and self.driver is not None and not self.closing:
            self._contexts = Contexts.open(self) or False  # False: tried, not available
        return self._contexts or None

    def close(self):
        self.closing = True
        self.drop_direct()
        contexts, self._contexts = self._contexts, None
        if contexts:
            contexts.close()
        drv, self.driver = self.driver, None
        if drv is not None:
            # After the command in flight, if any; a hung one is not waited for long (a second Ctrl+C).
            got = self.lock.acquire(timeout=2.0)
            try:
                drv.quit()
            except Exception as e:  # a dead browser cannot be quit politely
                log.debug("quit failed: %s", e)
                if self.remote and remote.delete_on_node(self.remote.node, self.remote.session_id):
                    log.info("ended session %s on its node %s (its hub did not answer)",
                             self.remote.session_id, self.remote.node)
            finally:
                if got:
                    self.lock.release()
        service, self._service = self._service, None
        if service is not None:
            try:
                launch.stop_chromedriver(service, started=drv is not None)
            except Exception as e:
                log.debug("service stop failed: %s", e)
        if self.profile_dir and not self.config.webdriver_url:
            kill_orphans(self.profile_dir)  # a killed chromedriver leaves its Chromium running
        if self._own_profile:
            shutil.rmtree(self._own_profile, ignore_errors=True)
            self._own_profile = None

    def __enter__(self):
        return self.start() if self.driver is None else self

    def __exit__(self, *exc):
        self.close()

    @property
    def alive(self) -> bool:
        if self.driver is None:
            return False
        try:
            with self.lock:  # one WebDriver command at a time (its connection pool holds one)
                self.driver.execute_script("return 1")
            return True
        except Exception:
            return False

    # ---------- primitives (all errors typed) ----------
    def guarded(self, fn, *args):
        """`fn(*args)` on the driver under the session's lock, its errors typed (BrowserDied when the browser or
        its driver went away): every WebDriver call goes through here."""
        if self.driver is None:
            raise BrowserDied("the browser is not running")
        try:
            with self.lock:  # a live view may capture from another thread between the agent's commands
                return fn(*args)
        except (urllib3.exceptions.HTTPError, ConnectionError) as e:
            raise BrowserDied(f"lost the browser driver: {short_message(e)}") from e
        except WebDriverException as e:
            if _is_dead(e):
                raise BrowserDied(f"the browser went away: {short_message(e)}") from e
            raise

    def cdp(self, cmd: str, params: dict | None = None) -> dict:
        return self.guarded(self.driver.execute_cdp_cmd, cmd, params or {})

    def js(self, script: str, *args):
        return self.guarded(self.driver.execute_script, script, *args)

    def js_async(self, script: str, *args):
        return self.guarded(self.driver.execute_async_script, script, *args)

    @property
    def url(self) -> str:
        return self.guarded(lambda: self.driver.current_url)

    @property
    def title(self) -> str:
        return self.guarded(lambda: self.driver.title)

    def goto(self, url: str) -> bool:
        """Open `url` and let it settle. False when the page-load timeout ran out first (what loaded stays)."""
        self.script_loads()  # watching before the page starts, so an import() it makes on load is seen
        try:
            self.guarded(self.driver.get, url)
            loaded = True
        except TimeoutException:
            log.info("page load timed out after %.0fs; continuing with what loaded",
                     self.config.page_load_timeout)
            loaded = False
        self.settle()
        return loaded

    def load_error(self) -> str | None:
        """The network error code when the tab shows Chrome's error page, else None."""
        # WebDriver reports the URL asked for; the document knows it is an error page.
        text = self.js("return location.href.startsWith('chrome-error://') ? "
                       "(document.body ? document.body.innerText || '-' : '-') : ''")
        if not text:
            return None
        m = re.search(r"(?:net::)?(ERR_[A-Z_]+)", text)
        return m.group(1) if m else "the page could not be loaded"

    def back(self) -> None:
        self.guarded(self.driver.back)
        self.settle()

    def screenshot_png(self) -> bytes:
        """A clean screenshot of the viewport, exactly viewport-sized."""
        if self.has_cdp:
            res = self.cdp("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
            return base64.b64decode(res["data"])
        return self.guarded(self.driver.get_screenshot_as_png)

    def direct_cdp(self, purpose: str = "screenshot"):
        """A DevTools connection of our own to the main tab (local Chrome, or Grid 4's se:cdp), else None.

        One for screenshots, sent while a WebDriver command (the marking script) runs, one for scripts ("script",
        which watches the page's dialogs), one for events ("network", browser/scriptloads.py); see browser/cdp.py.
        Made once per tab and purpose; a failure is not retried. A device scale factor is set on it too."""
        direct = self._direct.get(purpose)
        if direct is not None and direct.target_id == self._main_handle:
            return direct
        se_cdp = (self.driver.capabilities.get("se:cdp") or "") if self.driver is not None else ""
        if (self.config.webdriver_url and not se_cdp) or not self.has_cdp or self.driver is None \
                or self._direct_tried.get(purpose) == self._main_handle:
            return None
        if purpose in ("script", "network") and self.open_dialog() is not None:
            return None  # connecting would wait for the dialog; tried again later
        self.drop_direct(purpose)
        self._direct_tried[purpose] = self._main_handle
        direct = connect_tab(self.driver.capabilities, self.config.webdriver_url, self._main_handle)
        if direct is not None:
            try:
                self.equip_direct(direct, purpose)
            except DirectCDPError as e:
                log.debug("direct script connection unusable: %s", e)
                direct.close()
                direct = None
        if direct is not None:  # kept for the tab's next calls (on a Grid too: it was used once, then leaked)
            self._direct[purpose] = direct
        return direct

    def equip_direct(self, direct: DirectCDP, purpose: str) -> None:
        """Ready a new direct connection for `purpose` (also a new context's: browser/contexts.py): the script
        connection watches the page's dialogs; the screenshot one shoots at the session's scale."""
        if purpose == "script":
            direct.watch_dialogs()
        elif purpose == "screenshot" and self.config.device_scale_factor != 1:  # its own connection: scale 1
            direct.call("Emulation.setDeviceMetricsOverride", self._metrics())

    def script_loads(self) -> ScriptLoads | None:
        """The watch on the main tab's script requests (browser/scriptloads.py), started on first use; None
        without a direct DevTools connection."""
        watch = self._loads
        if watch is None or not watch.alive or watch.target_id != self._main_handle:
            self._loads = watch = ScriptLoads.start(direct) if (direct := self.direct_cdp("network")) else None
            if watch is None and direct is not None:
                self.drop_direct("network")  # no Network domain there: not asked again for this tab
        return watch

    def drop_direct(self, purpose: str | None = None) -> None:
        """Close the direct connection for `purpose` (all of them: None)."""
        for name in [purpose] if purpose else list(self._direct):
            direct = self._direct.pop(name, None)
            if direct is not None:
                direct.close()

    def settle(self) -> dict:
        """Wait for the page to finish reacting (see :func:`cockpit.core.browser.settling.settle`)."""
        return settling.settle(self)

    def open_dialog(self) -> dict | None:
        """The open alert/confirm/prompt as {'text': ...}, or None."""
        try:
            alert = self.driver.switch_to.alert
            return {"text": alert.text or ""}
        except WebDriverException:
            return None

    def answer_dialog(self, accept: bool) -> None:
        alert = self.driver.switch_to.alert
        self.guarded(alert.accept if accept else alert.dismiss)

    def ensure_single_tab(self) -> str | None:
        """Fold any extra tab or window back into the main tab.

        Returns the URL that was moved over, if any. The instrument script
        already retargets links and window.open; this catches what slips past
        (middle clicks, popups opened before it was installed, remote drivers
        without CDP).
        """
        handles = self.guarded(lambda: self.driver.window_handles)
        if self._contexts:  # the next task's tab, made ready meanwhile, stays (and is never the main tab)
            handles = [h for h in handles if not self._contexts.is_spare(h)]
        if not handles:
            raise BrowserDied("the browser has no tab left")
        if len(handles) <= 1 and self._main_handle in handles:
            return None
        main = self._main_handle if self._main_handle in handles else handles[0]
        moved = None
        for h in handles:
            if h == main:
                continue
            self.guarded(self.driver.switch_to.window, h)
            url = self.guarded(lambda: self.driver.current_url)
            if url and url != "about:blank":
                moved = url
            self.guarded(self.driver.close)
        self._main_handle = main
        self.guarded(self.driver.switch_to.window, main)
        if moved:
            log.info("folded a new tab into the current one: %s", moved)
            try:
                self.guarded(self.driver.get, moved)
            except TimeoutException:
                pass
        return moved


def _is_dead(e: Exception) -> bool:
    msg = str(e).lower()
    return any(h in msg for h in _DEAD_HINTS) or remote.is_lost(e)
