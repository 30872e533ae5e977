"""A browser served from a run's web archive: replay "as recorded", never touching the network.

:class:`ServedRun` answers every request of the session's tab from the run's archive
(:class:`cockpit.core.store.webarchive.WebArchive`, through :class:`cockpit.core.browser.netreplay.Interceptor`)
and installs the recording's clock (``js/clock.js`` with the run's seed, its recorded ``crypto`` values, and
the time moved back to the recording's: :meth:`ServedRun.at_step` moves it to each step's recorded time).

Which recorded response answers a request (:meth:`ServedRun.lookup`): those of the same method and address
(fragment aside) in recorded order, each once, the last one again when they are used up; a request body
that matches a recorded one's picks that one first (a form posted twice with different fields). No exact
address: the recorded request to the same path whose query has the most parameters in common (a cache-
busting ``?_=<time>`` differs on every load). None at all: the request fails with a network error and is
listed as missing (:attr:`ServedRun.missing`), so the replay's report names it.
"""
from __future__ import annotations

import hashlib
import logging
import time
from urllib.parse import parse_qsl, urlsplit

from cockpit.core.browser import clock
from cockpit.core.browser.cdpstream import open_stream
from cockpit.core.browser.netreplay import Interceptor, Paused, Served
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import CockpitError
from cockpit.core.store import Store
from cockpit.core.store.webarchive import CREDENTIAL, WebArchive

log = logging.getLogger(__name__)


#: Chrome arguments for a browser that only replays from a recording: every request the recording does not
#: answer (Chromium's own too: its updater, its accounts and search pages) goes to a proxy at a port where
#: nothing listens on this machine, so nothing leaves it.
OFFLINE_ARGS = ("--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>")


class NotRecorded(CockpitError):
    """The run has no web archive to replay from (recorded before #41, with recording off, or imported)."""


def why_not_recorded(store: Store, run_id: str) -> str:
    """Why run `run_id` cannot be served from a web recording ("" when it can): no archive (recording off,
    recorded before Cockpit recorded the web, or imported) or one without the network."""
    return _recording(store, run_id)[1]


def _recording(store: Store, run_id: str) -> tuple[WebArchive | None, str]:
    """Run `run_id`'s web archive and "", or None and why it cannot be served from it (:func:`why_not_recorded`)."""
    archive = WebArchive.of(store.run_dir(run_id))
    if archive is None:
        run = store.run(run_id)
        how = (f"it was imported ({run.get('source')})" if run.get("source", "cockpit") != "cockpit"
               else "it was made with recording off or before Cockpit recorded the web")
        return None, f"This run has no web recording: {how}."
    if not archive.meta.get("network", False):
        return None, f"This run recorded no network ({archive.meta.get('why_not') or 'not recorded'})."
    return archive, ""


def _base(url: str) -> str:
    return url.split("#", 1)[0]


class ServedRun:
    def __init__(self, session: BrowserSession, archive: WebArchive, run_id: str = ""):
        self.session = session
        self.archive = archive
        self.run_id = run_id
        self.missing: list[str] = []  # "METHOD url" of every request the archive could not answer
        self._reported = 0
        self.served = 0
        self._used: dict[int, int] = {}  # seq -> times served
        self._by_key: dict[tuple[str, str], list[dict]] = {}
        self._by_path: dict[tuple[str, str], list[dict]] = {}
        for e in archive.requests():
            if e.get("status") or not e.get("error"):
                key = (e.get("method", "GET"), _base(e.get("url", "")))
                self._by_key.setdefault(key, []).append(e)
                parts = urlsplit(key[1])
                self._by_path.setdefault((key[0], f"{parts.scheme}://{parts.netloc}{parts.path}"), []).append(e)
        meta = archive.meta
        self.seed = int(meta.get("seed") or 0)
        self._step_time = {n: e.get("t") for n, e in archive.steps().items()}
        self._clock_id = ""
        self.interceptor: Interceptor | None = None

    @classmethod
    def open(cls, session: BrowserSession, store: Store, run_id: str) -> "ServedRun":
        """Serve `session`'s tab from run `run_id`'s archive from now on; NotRecorded, CockpitError."""
        archive, why = _recording(store, run_id)
        if archive is None:
            raise NotRecorded(f"{why} Replay run {run_id} live instead.")
        served = cls(session, archive, run_id)
        served.interceptor = Interceptor.start(lambda on_event: open_stream(session, "replay", on_event),
                                               served.lookup)
        if served.interceptor is None:
            raise CockpitError("this browser gives no DevTools connection to serve the recording from "
                               "(a remote WebDriver without se:cdp); replay it live instead")
        served.at_step(min(served._step_time, default=0))
        return served

    # ---------- the clock ----------
    def at_step(self, n: int) -> None:
        """New documents from now on get the clock as it was when step `n` was recorded."""
        icp = self.interceptor
        if icp is None or not icp.alive:
            return
        t = self._step_time.get(n) or self.archive.meta.get("t")
        offset = (t - time.time()) * 1000 if t else None
        clock.uninstall(icp.stream, self._clock_id)
        self._clock_id = clock.install(icp.stream, clock.source(self.seed, "replay", offset_ms=offset,
                                                                random=self.archive.randoms()))

    # ---------- answering ----------
    def lookup(self, req: Paused) -> Served | None:
        entry = self.match(req)
        if entry is None:
            self.missing.append(f"{req.method} {req.url}")
            log.info("not in the recording: %s %s", req.method, req.url)
            return None
        self.served += 1
        self._used[entry["seq"]] = self._used.get(entry["seq"], 0) + 1
        if entry.get("error") and not entry.get("status"):
            return None
        headers = self.archive.with_credentials(entry.get("resp_headers") or [],
                                                self.archive.credentials(entry).get("resp") or [])
        headers = [[k, v] for k, v in headers if v != CREDENTIAL]
        if entry.get("redirect") and not any(k.lower() == "location" for k, _ in headers):
            headers.append(["Location", entry["redirect"]])
        body = self.archive.body(entry.get("body")) or b""
        return Served(int(entry.get("status") or 200), headers, body, entry.get("status_text") or "")

    def match(self, req: Paused) -> dict | None:
        """The recorded exchange that answers `req` (see the module docstring), or None."""
        url = _base(req.url)
        found = self._by_key.get((req.method, url))
        if not found:
            parts = urlsplit(url)
            found = self._nearest(self._by_path.get((req.method, f"{parts.scheme}://{parts.netloc}{parts.path}")),
                                  parts.query)
            if not found:
                return None
        if req.post_data is not None and len(found) > 1:
            sha = hashlib.sha256(req.post_data).hexdigest()
            same = [e for e in found if (e.get("post") or {}).get("sha") == sha]
            if same:
                found = same
        fresh = [e for e in found if e["seq"] not in self._used]
        return fresh[0] if fresh else found[-1]

    @staticmethod
    def _nearest(entries: list[dict] | None, query: str) -> list[dict]:
        if not entries:
            return []
        want = set(parse_qsl(query, keep_blank_values=True))
        names = {k for k, _ in want}

        def score(e: dict) -> tuple[int, int]:
            have = set(parse_qsl(urlsplit(e.get("url", "")).query, keep_blank_values=True))
            return len(want & have), len(names & {k for k, _ in have})

        best = max(score(e) for e in entries)
        return [e for e in entries if score(e) == best]

    def take_missing(self) -> list[str]:
        """The requests missed since the last call."""
        out, self._reported = self.missing[self._reported:], len(self.missing)
        return out

    def close(self) -> None:
        if self.interceptor is not None:
            self.interceptor.close()
            self.interceptor = None

    def __enter__(self) -> "ServedRun":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
