"""Recording the web with every run: the network, each step's page, time and randomness (issue #41).

On by default (``AgentConfig.record_web``; ``cockpit run --record-web off`` and the window's setting turn it
off). As the run starts, a DevTools connection of its own is opened on the tab
(:func:`cockpit.core.browser.cdpstream.open_stream`): every exchange the page makes goes into the run's
archive (:mod:`cockpit.core.browser.netrec` → :class:`cockpit.core.store.webarchive.ArchiveWriter`), and
``js/clock.js`` seeds ``Math.random`` and reports ``crypto`` values (:mod:`cockpit.core.browser.clock`).
Once a step has observed the page, its DOM snapshot, cookies and storage are taken on a thread of their own
while the model thinks (:mod:`cockpit.core.browser.pagestate`), and the bodies of the page's requests are
fetched meanwhile; the step waits for both before it acts (Chrome drops a page's bodies when the next one
commits).
When the action begins, the archive notes the time, so the requests an action caused can be told apart.

Where there is no DevTools event connection (a remote WebDriver without ``se:cdp``) only the snapshots are
recorded, through WebDriver's DevTools command; with no DevTools access at all nothing is. Either way the
archive's ``meta`` and the run's settings (``web``) say so, and a warning is logged.
"""
from __future__ import annotations

import json
import logging
import secrets
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from cockpit.core.agent.hooks.base import StepHook
from cockpit.core.browser import clock, pagestate
from cockpit.core.browser.cdpstream import CDPStream, open_stream
from cockpit.core.browser.netrec import Exchange, NetworkRecorder
from cockpit.core.store import webarchive
from cockpit.core.store.webarchive import ArchiveWriter

if TYPE_CHECKING:
    from cockpit.core.agent.start import Start
    from cockpit.core.agent.step import Step

log = logging.getLogger(__name__)

NO_EVENTS = ("no DevTools event connection (a remote WebDriver without se:cdp): "
             "the network is not recorded, only each step's page")
NO_DEVTOOLS = "no DevTools access in this browser: the web is not recorded"


class WebRecord(StepHook):
    def __init__(self, run):
        super().__init__(run)
        self.writer: ArchiveWriter | None = None
        self.recorder: NetworkRecorder | None = None
        self.stream: CDPStream | None = None
        self.clock_id = ""
        self.n = 0  # the step under way (0: before the first, or a branch's replay)
        self._acted: set[int] = set()
        self._snap: Future | None = None
        self._pool: ThreadPoolExecutor | None = None
        self.why_not = ""

    @property
    def session(self):
        return self.run.executor.session

    def opening(self, start: Start, settings: dict) -> None:
        s = self.session
        self.why_not = NO_DEVTOOLS if not s.has_cdp else ""
        settings["web"] = {"recorded": not self.why_not, **({"why_not": self.why_not} if self.why_not else {})}

    def started(self, start: Start) -> None:
        run = self.run
        try:
            self.writer = ArchiveWriter(run.store.run_dir(run.run_id), secrets=lambda: tuple(run.executor.secrets))
        except OSError as e:
            log.warning("cannot write the web archive of %s: %s", run.run_id, e)
            return
        earlier = self.writer.earlier_meta or {}  # a resumed run keeps its seed: its replay draws alike
        seed = int(earlier.get("seed") or secrets.randbits(31))
        if not self.why_not:
            self.recorder = NetworkRecorder.start(lambda on_event: open_stream(self.session, "record", on_event),
                                                  self._exchange, on_other=self._other)
            if self.recorder is None:
                self.why_not = NO_EVENTS
            else:
                self.stream = self.recorder.stream
                self.recorder.target_id = self.stream.direct.target_id
                self.clock_id = clock.install(self.stream, clock.source(seed, "record"), binding=True)
        if self.why_not:
            log.warning("run %s: %s", run.run_id, self.why_not)
        self.writer.add({"kind": "meta", "format": webarchive.FORMAT, "version": webarchive.VERSION,
                         "seed": seed, "t": time.time(), "network": self.recorder is not None,
                         "clock": bool(self.clock_id), "why_not": self.why_not,
                         "viewport": list(self.session.config.viewport),
                         "scale": self.session.config.device_scale_factor}, sync=True)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="web-snapshot")

    # ---------- each step ----------
    def step_due(self, n: int) -> None:
        self.n = n

    def observed(self, st: Step) -> None:
        if self.writer is None or self._pool is None or self.why_not == NO_DEVTOOLS:
            return
        obs, t = st.obs, time.time()
        if self.recorder is not None:
            self.recorder.release()  # the images, fonts and media of the page: fetched while the model thinks
        self._snap = self._pool.submit(self._capture, st.n, t, obs.url if obs else "",
                                       list(obs.viewport) if obs else [], list(obs.scroll) if obs else [])

    def proposed(self, st, action, mark, risk) -> None:
        self._wait_snapshot()
        if self.recorder is not None:  # the page's bodies are in before the action may load another page
            self.recorder.flush(timeout=10.0)
        self._act(st.n)

    def decided(self, st, decision):
        self._act(st.n)  # a human may have taken a while: the action begins now
        return decision

    def committing(self, st: Step, answer: str | None) -> None:
        self._wait_snapshot()

    def ended(self) -> None:
        self._wait_snapshot()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        if self.recorder is not None:
            if self.stream is not None and self.stream.alive:
                clock.uninstall(self.stream, self.clock_id)
            self.recorder.close()
        if self.writer is not None:
            self.writer.close()

    # ---------- the work ----------
    def _act(self, n: int) -> None:
        if self.writer is not None and n not in self._acted:
            self._acted.add(n)
            self.writer.add({"kind": "act", "n": n, "t": time.time()})

    def _wait_snapshot(self) -> None:
        fut, self._snap = self._snap, None
        if fut is not None:
            try:
                fut.result(timeout=30)
            except Exception as e:  # a snapshot that failed is a step without one, not a failed run
                log.info("step snapshot not recorded: %s", e)

    def _capture(self, n: int, t: float, url: str, viewport: list, scroll: list) -> None:
        writer = self.writer
        entry = {"kind": "step", "n": n, "t": t, "url": url, "viewport": viewport, "scroll": scroll}
        creds = {}
        if self.stream is not None and self.stream.alive:
            snap, cookies, storage = pagestate.capture(self.stream)
            creds = {"cookies": cookies, "storage": storage}
        else:  # WebDriver's DevTools command: no events, but a snapshot
            snap = _snapshot_by_webdriver(self.session)
        entry["snapshot"] = writer.body(snap)
        writer.add(entry, creds)  # flushed: a killed run keeps it (fsync only as the run ends)

    def _exchange(self, ex: Exchange) -> None:
        writer = self.writer
        if writer is None:
            return
        req, req_cred = writer.headers(ex.req_headers)
        resp, resp_cred = writer.headers(ex.resp_headers)
        entry = {"kind": "request", "t": ex.started, "end": ex.ended, "method": ex.method, "url": ex.url,
                 "type": ex.resource, "main": ex.main_document, "req_headers": req,
                 "post": writer.body(ex.post_data), "status": ex.status, "status_text": ex.status_text,
                 "resp_headers": resp, "mime": ex.mime, "protocol": ex.protocol, "remote": ex.remote,
                 "cache": ex.from_cache, "size": ex.encoded_size, "body": writer.body(ex.body),
                 "timing": ex.timing}
        for key in ("body_error", "error"):
            if getattr(ex, key):
                entry[key] = getattr(ex, key)
        if ex.redirected_to:
            entry["redirect"] = ex.redirected_to
        creds = {"req": req_cred, "resp": resp_cred} if req_cred or resp_cred else None
        writer.add(entry, creds)

    def _other(self, method: str, p: dict) -> None:
        if method == "Runtime.bindingCalled" and p.get("name") == clock.BINDING and self.writer is not None:
            try:
                value = json.loads(p.get("payload") or "{}")
            except ValueError:
                return
            self.writer.add({"kind": "random", "url": str(value.get("url", "")), "hex": str(value.get("hex", ""))})


def _snapshot_by_webdriver(session) -> bytes | None:
    try:
        snap = session.cdp("DOMSnapshot.captureSnapshot", {"computedStyles": pagestate.STYLES,
                                                           "includePaintOrder": True})
    except Exception as e:  # noqa: BLE001 - WebDriver's and the browser's errors vary by endpoint
        log.info("no DOM snapshot through WebDriver: %s", e)
        return None
    pagestate.blank_passwords(snap)
    return json.dumps(snap, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
