"""Serve a directory over HTTP on 127.0.0.1, in a background thread.

Used for the bundled demo pages and by the tests' fixture pages. One extra
route, ``/__delay/<ms>``, answers "ok" after a delay, and ``/__delay/<ms>/<path>``
the file at path after a delay: pages use it to make slow network requests
(or slow script loads) that the settle logic must wait for. A POST is answered
like a GET of the same path, so static forms with method="post" work.

A directory is answered with its index.html when it has one, else 404: never
a listing, so a page the agent visits cannot have the folder's file names read
back to the model.

:meth:`LocalSite.at` finds the site this process serves at a port, so code that
needs a folder served again (:mod:`cockpit.core.replay.localfiles`) reuses it.

A folder served at a fixed port (:func:`serve_shared`) is shared between Cockpit
processes: each binds the port with SO_REUSEPORT and serves the same files, so
two processes (the window and a `cockpit run`) give the same folder the same
address, and either may exit while the other goes on serving it. Every site
answers :data:`MARKER` with :func:`folder_token` (a fixed word and a hash of the
folder's path: the path itself is not told to the pages served), and a process
binds a port only when nothing answers there or the same folder does, deciding
under a lock per port (:func:`_port_lock`), so two folders never share a port.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import http.client
import http.server
import logging
import os
import selectors
import tempfile
import threading
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock (nor SO_REUSEPORT), so a port is never shared there
    fcntl = None

log = logging.getLogger(__name__)

#: The route every LocalSite answers with :func:`folder_token` of the folder it serves.
MARKER = "/__cockpit/folder"


def folder_token(root: Path) -> str:
    """What a site serving `root` answers at MARKER: "cockpit-folder" and a SHA-256 of its resolved path."""
    return "cockpit-folder " + hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()


class _Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.split("?")[0] == MARKER:  # which folder this is, for another Cockpit wanting the port
            self._text(folder_token(Path(self.directory)).encode())
            return
        if self.path.startswith("/__delay/"):
            try:
                ms = min(int(self.path.split("/")[2].split("?")[0]), 30000)
            except ValueError:
                ms = 0
            time.sleep(ms / 1000)
            rest = self.path.split("?")[0].split("/", 3)[3:]
            if rest and rest[0]:  # /__delay/<ms>/<path>: that file, late
                self.path = "/" + rest[0]
                super().do_GET()
                return
            self._text(b"ok")
            return
        super().do_GET()

    def _text(self, body: bytes):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        # Static sites cannot take a POST; answer with the page at the path, so a
        # form with method="post" (the demo shop's checkout) lands on its page.
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(min(length, 1 << 20))
        self.command = "GET"
        super().do_GET()

    def handle_one_request(self):
        # The page went away before its request was answered (a poll cut off by a navigation):
        # nothing to tell anyone, and no traceback on the terminal.
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def list_directory(self, path):
        # Called for a directory without index.html / index.htm: no listing of its files.
        self.send_error(404)
        return None

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, fmt, *args):  # keep test and CLI output clean
        pass


class _SharedServer(http.server.ThreadingHTTPServer):
    allow_reuse_port = True  # SO_REUSEPORT: other Cockpit processes serving the same folder bind the port too


class LocalSite:
    """A static site on 127.0.0.1:<free port> (or `host`). Use as a context manager.

    start() and stop() may be called again (a started site entered with ``with``
    is not started twice; stopping a stopped site does nothing). `shared` binds
    with SO_REUSEPORT: use :func:`serve_shared`, which checks the port first.
    """

    _live: dict[int, list["LocalSite"]] = {}  # port -> the started sites this process serves there
    _live_lock = threading.Lock()

    def __init__(self, root: Path, port: int = 0, host: str = "127.0.0.1", *, shared: bool = False):
        self.root = Path(root)
        self.host = host  # another address than loopback: for browsers on other machines (a Grid's nodes)
        handler = functools.partial(_Handler, directory=str(self.root))
        self.httpd = (_SharedServer if shared else http.server.ThreadingHTTPServer)((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None
        self._closed = False

    @classmethod
    def at(cls, port: int) -> "LocalSite | None":
        """The running site this process serves at `port`, if any."""
        with cls._live_lock:
            return next(iter(cls._live.get(port, ())), None)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def base(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.httpd.server_address[1]}"

    def url(self, path: str = "") -> str:
        return f"{self.base}/{path.lstrip('/')}"

    def start(self) -> "LocalSite":
        if self._closed:
            raise RuntimeError("a stopped LocalSite cannot be started again")
        if self._thread is None:
            self._thread = threading.Thread(target=self.httpd.serve_forever, name="local-site", daemon=True)
            self._thread.start()
            with self._live_lock:
                self._live.setdefault(self.port, []).append(self)
        return self

    def stop(self):
        if self._closed:
            return
        self._closed = True
        with self._live_lock:
            sites = self._live.get(self.port, [])
            if self in sites:
                sites.remove(self)
            if not sites:
                self._live.pop(self.port, None)
        if self._thread is not None:  # shutdown() of a server never started would wait forever
            self.httpd.shutdown()
            self._drain()
        self.httpd.server_close()

    def _drain(self):
        """Answer the connections already queued on the socket: with a shared port the kernel handed them to
        this process, and closing the socket would reset them (a page of the other process failing to load)."""
        with selectors.DefaultSelector() as sel:
            sel.register(self.httpd, selectors.EVENT_READ)
            self.httpd.timeout = 0  # handle_request: no waiting for one more
            while sel.select(0):
                self.httpd.handle_request()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class PortTaken(OSError):
    """serve_shared's port serves another folder, or something other than Cockpit; the message says which."""

    def __init__(self, port: int, why: str):
        super().__init__(errno.EADDRINUSE, why)
        self.port = port


def serve_shared(root: Path, port: int, host: str = "127.0.0.1") -> LocalSite:
    """A started site serving `root` at `port`, which it shares with any other Cockpit (this process or another)
    serving the same folder there: each serves it on its own, so either may stop. PortTaken when another folder,
    or anything but a Cockpit site, answers there; OSError when the port cannot be bound."""
    with _port_lock(port) as locked:
        if not locked:  # no lock to decide under (no flock here, or it is held too long): the port to itself only
            return LocalSite(root, port=port, host=host).start()
        there = _marker(_probe_host(host), port)
        if there is not None and there != folder_token(root):
            raise PortTaken(port, "another folder is served there" if there.startswith("cockpit-folder ")
                            else "something other than a Cockpit folder answers there")
        return LocalSite(root, port=port, host=host, shared=True).start()


def _probe_host(host: str) -> str:
    return {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)


def _marker(host: str, port: int) -> str | None:
    """What answers MARKER at host:port: None when nothing listens there, "" when something does but says no
    folder token (not a Cockpit site, or one too busy to answer)."""
    conn = http.client.HTTPConnection(host, port, timeout=2)
    try:
        conn.request("GET", MARKER)
        r = conn.getresponse()
        return r.read(200).decode("ascii", "replace").strip() if r.status == 200 else ""
    except ConnectionRefusedError:
        return None
    except (OSError, http.client.HTTPException):
        return ""
    finally:
        conn.close()


@contextlib.contextmanager
def _port_lock(port: int, wait: float = 10.0):
    """Held while a process looks at `port` and binds it shared: True once held, False when it cannot be (no
    flock on this platform, a lock folder not this user's, held elsewhere for longer than `wait` seconds)."""
    try:
        if fcntl is None:
            raise OSError("no flock on this platform")
        folder = Path(tempfile.gettempdir()) / f"cockpit-ports-{os.getuid()}"
        folder.mkdir(mode=0o700, exist_ok=True)
        st = folder.lstat()
        if st.st_uid != os.getuid() or not folder.is_dir() or folder.is_symlink():
            raise PermissionError(f"{folder} is not this user's")
        fd = os.open(folder / f"{port}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except (AttributeError, OSError) as e:
        log.info("serving port %d to this process only: no lock to share it under (%s)", port, e)
        yield False
        return
    try:
        yield _flock(fd, wait)
    finally:
        os.close(fd)  # lets the lock go


def _flock(fd: int, wait: float) -> bool:
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
