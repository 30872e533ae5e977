"""The Live tab's browser: one :class:`~cockpit.core.browser.session.BrowserSession` kept from run to run, started
ahead of the first run (the bridge's warm-up) or for a run, and a start that Stop calls off.

Chromium can take long to start (a busy machine) or hang; Stop during that start ends it (#38: Stop was greyed
out, and a stop pressed anyway waited for Chromium and then began the run): :meth:`BrowserKeeper.call_off`
closes the session being started, from another thread, which kills its chromedriver and Chromium
(BrowserSession.close), so the start fails at once and the run never begins.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.errors import BrowserError
from cockpit.ui.background import Lock, run_in_background


class StartCalledOff(BrowserError):
    """Stop was pressed while the run's browser started: no run was begun."""


class BrowserKeeper:
    def __init__(self, config: BrowserConfig | None = None):
        self.config = self._base = config or BrowserConfig()
        self.session: BrowserSession | None = None
        self._used = False  # a run has had the session: the next one starts a fresh one unless kept
        self._starting: BrowserSession | None = None  # the session being started (the warm-up's or a run's)
        self._lock = Lock()
        self._closed = False  # shut down: no browser is started any more (a late warm-up would leak one)

    def use(self, webdriver_url: str = "", chrome_args=(), viewport=None, scale: float | None = None) -> None:
        """The next run's browser: a remote WebDriver / Grid at `webdriver_url` (empty: as the window was
        started, local by default), with `chrome_args` added, at `viewport` (CSS pixels) and device `scale`
        (None: as started). A browser of other settings is replaced."""
        base = self._base
        self.config = dataclasses.replace(
            base, webdriver_url=webdriver_url.strip() or base.webdriver_url,
            extra_args=list(base.extra_args) + list(chrome_args),
            viewport=tuple(viewport) if viewport else base.viewport,
            device_scale_factor=scale if scale is not None else base.device_scale_factor)

    def ensure(self, fresh: bool = False, stopped: Callable[[], bool] = lambda: False,
               for_run: bool = False) -> BrowserSession:
        """The browser; `fresh`: never as a run has left it (its tab moves into a new browser context, with
        cookies, storage and cache of its own; where the browser cannot, a new browser with a new profile).
        `stopped()` True (Stop pressed while waiting or starting): StartCalledOff, nothing left running.
        `for_run`: the session is a run's from now on (the next `fresh` one is clean)."""
        with self._lock:
            if self._closed:
                raise BrowserError("the window is closing: no browser is started")
            s = self.session
            if s is not None and (not s.alive or s.config != self.config
                                  or (fresh and self._used and not s.fresh_context())):
                s.close()
                self.session = None
            try:
                if self.session is None and not stopped():
                    self.session, self._used = self._start(), False
            except BrowserError as e:
                if stopped():  # it failed because Stop ended it
                    raise StartCalledOff("stopped while the browser was starting") from e
                raise
            if stopped():  # the start (or a wait for the warm-up's) was called off
                raise StartCalledOff("stopped while the browser was starting")
            self._used = self._used or for_run
            return self.session

    def _start(self) -> BrowserSession:
        s = self._starting = BrowserSession(self.config)
        try:
            return s.start()
        finally:
            self._starting = None

    def call_off(self) -> None:
        """End the start of the browser going on now, if any (its processes killed, off the GUI thread)."""
        starting = self._starting
        if starting is not None:
            run_in_background(starting.close, name="browser-start-called-off")

    def drop_dead(self) -> None:
        """A browser that died during the run is closed now (leftover processes too): the window shows
        it closed, and the next run starts a new one."""
        with self._lock:
            if self.session is not None and self.session.driver is not None and not self.session.alive:
                self.session.close()
                self.session = None

    def close(self) -> None:
        """The window closes: the browser goes, and none is started any more."""
        with self._lock:
            self._closed = True
            if self.session is not None:
                self.session.close()
                self.session = None
