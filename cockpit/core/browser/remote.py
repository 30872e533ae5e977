"""A browser on a remote WebDriver endpoint or a Selenium Grid (issue #21).

- Starting a session is retried with backoff for `session_start_timeout` seconds, each try allowed
  that long too: a Grid queues new-session requests while its slots are busy (minutes, with a big
  batch), and a hub that just lost a node may route one request to it before it notices. The
  per-command timeout (`command_timeout`) applies once the session exists.
- Which node runs the session is asked of the hub (Grid 4's ``/status``, Grid 3's
  ``/grid/api/testsession``), so a run can record it and a session can still be deleted on its
  node when the hub is gone.
- A forwarding or connection error from a hub or node means the browser is lost
  (:func:`is_lost`), never an internal error.
"""
from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

import urllib3
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chromium.remote_connection import ChromiumRemoteConnection
from selenium.webdriver.remote.client_config import ClientConfig

from cockpit.core.errors import BrowserError, short_message
from cockpit.core.words import plural

log = logging.getLogger(__name__)

#: Words of a hub's or node's answer that mean the session's browser (or its node) is gone.
LOST_HINTS = ("unable to execute request for an existing session", "cannot forward the request",
              "failed to connect to", "connection refused", "unable to find session",
              "session timed out or not found", "no such session", "node is down")
#: Answers to a new-session request that no retry will change.
PERMANENT_HINTS = ("invalid argument", "no nodes support", "unable to find provider", "cannot find",
                   "no chrome binary", "unrecognized capability", "failed to start", "devtoolsactiveport",
                   "chrome not reachable", "instance exited", "exited abnormally")
#: Answers meaning the node's Chrome died as it started: most often a node run as root, without --no-sandbox.
CHROME_EXITED_HINTS = ("instance exited", "exited abnormally", "devtoolsactiveport", "chrome not reachable",
                       "failed to start")
BACKOFF = (1.0, 2.0, 4.0, 8.0, 15.0)


def refused(url: str, e: BaseException) -> str:
    """What to tell a person whose remote endpoint refused a session, with the likely fix when Chrome died."""
    text = f"the WebDriver endpoint {url} refused the session: {short_message(e)}"
    if any(h in str(e).lower() for h in CHROME_EXITED_HINTS) and "--no-sandbox" not in str(e):
        text += (". The node's Chrome exited as it started. The likely cause: the node runs as root, where "
                 "Chrome needs --no-sandbox. Add it with --chrome-arg=--no-sandbox (in the window: Model… (Ctrl+,), "
                 "Chrome arguments), or run the node as another user")
    return text


class GridUnavailable(BrowserError):
    """No session could be started on the remote endpoint within the session-start timeout."""


def is_lost(e: BaseException) -> bool:
    return any(h in str(e).lower() for h in LOST_HINTS)


@dataclass
class RemoteInfo:
    webdriver_url: str
    session_id: str
    node: str = ""  # the Grid node's address, when the hub says

    def to_dict(self) -> dict:
        return {"webdriver_url": self.webdriver_url, "session_id": self.session_id, "node": self.node}


#: HTTP connections to the driver kept for reuse. A session sends one command at a time (BrowserSession.lock),
#: but closing does not wait long for a command that hangs: its quit goes out on a second connection while the
#: first is still in use. With Selenium's default of one, the connection handed back second is dropped with
#: urllib3's warning "Connection pool is full, discarding connection" (seen when the window quit mid-command).
POOL_SIZE = 2


def connection(url: str, timeout: float, retries: urllib3.Retry | None = None) -> ChromiumRemoteConnection:
    """The HTTP side of a WebDriver session at `url` (a local chromedriver, a remote WebDriver or a Grid):
    commands time out after `timeout` s, POOL_SIZE connections kept, `retries` as urllib3 counts them."""
    pool: dict = {"maxsize": POOL_SIZE}
    if retries is not None:
        pool["retries"] = retries
    # Selenium reads the pool manager's arguments from a key of the same name inside this dict
    # (RemoteConnection._get_connection_manager); given flat, they were ignored.
    return ChromiumRemoteConnection(
        url, vendor_prefix="goog", browser_name="chrome",
        client_config=ClientConfig(remote_server_addr=url, timeout=timeout,
                                   init_args_for_pool_manager={"init_args_for_pool_manager": pool}))


def _connection(url: str, timeout: float) -> ChromiumRemoteConnection:
    # One retry of a refused connection, none of a read: a dead hub is said in one line, not forty.
    return connection(url, timeout, urllib3.Retry(total=1, connect=1, read=False, redirect=3, status=0))


def start(url: str, options, *, start_timeout: float, command_timeout: float,
          stop=lambda: False) -> webdriver.Remote:
    """A session on `url`, tried again with backoff until `start_timeout` seconds have passed.

    Raises GridUnavailable with the last error when none started, or at once for an answer no retry
    changes (capabilities no node supports). `stop()` true ends the waiting early."""
    deadline = time.monotonic() + start_timeout
    tries, last = 0, None
    while True:
        left = deadline - time.monotonic()
        conn = _connection(url, max(5.0, left))
        try:
            driver = webdriver.Remote(command_executor=conn, options=options)
            conn.client_config.timeout = command_timeout  # from now on: each command's own limit
            return driver
        except (WebDriverException, urllib3.exceptions.HTTPError, OSError) as e:
            last = e
            if any(h in str(e).lower() for h in PERMANENT_HINTS):
                raise BrowserError(refused(url, e)) from e
        wait = BACKOFF[min(tries, len(BACKOFF) - 1)]
        tries += 1
        if time.monotonic() + wait >= deadline or stop():
            raise GridUnavailable(
                f"could not start a browser on {url} in {start_timeout:g} s ({plural(tries, 'try', 'tries')}; last: "
                f"{short_message(last)})") from last
        log.info("no browser from %s yet (%s); trying again in %g s", url, short_message(last), wait)
        time.sleep(wait)


def _get_json(url: str, timeout: float = 3.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.load(r)


def node_of(url: str, session_id: str) -> str:
    """The Grid node running `session_id`, as the hub at `url` says ('' when it says nothing)."""
    base = url.rstrip("/")
    if base.endswith("/wd/hub"):
        base = base[: -len("/wd/hub")]
    try:  # Grid 4
        for node in (_get_json(base + "/status").get("value") or {}).get("nodes") or []:
            for slot in node.get("slots") or []:
                if (slot.get("session") or {}).get("sessionId") == session_id:
                    return node.get("uri") or ""
    except (OSError, ValueError, AttributeError) as e:
        log.debug("no Grid 4 status at %s: %s", base, e)
    try:  # Grid 3
        got = _get_json(f"{base}/grid/api/testsession?session={session_id}")
        return got.get("proxyId") or ""
    except (OSError, ValueError, AttributeError):
        return ""


def delete_on_node(node: str, session_id: str) -> bool:
    """Ask the node itself to end the session (its hub is gone); True when it answered."""
    if not node or not session_id:
        return False
    req = urllib.request.Request(f"{node.rstrip('/')}/session/{session_id}", method="DELETE")
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status < 500
    except urllib.error.HTTPError as e:
        return e.code < 500
    except OSError:
        return False


def relay_url(se_cdp: str, webdriver_url: str) -> str:
    """Grid 4's ``se:cdp`` address, reached the way the hub itself is: a node names the hub by the address
    it knows (its own idea of the Grid's URL, often not one this machine can reach); the path is what
    counts, under the WebDriver URL's scheme, host and port."""
    cdp, hub = urllib.parse.urlsplit(se_cdp), urllib.parse.urlsplit(webdriver_url)
    if not hub.netloc or "/se/cdp" not in cdp.path:
        return se_cdp
    scheme = "wss" if hub.scheme == "https" else "ws"
    prefix = hub.path.rstrip("/").removesuffix("/wd/hub")
    path = cdp.path if cdp.path.startswith(prefix + "/") else prefix + cdp.path
    return urllib.parse.urlunsplit((scheme, hub.netloc, path, cdp.query, ""))
