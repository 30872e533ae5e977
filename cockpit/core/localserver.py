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
"""
from __future__ import annotations

import functools
import http.server
import threading
import time
from pathlib import Path


class _Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
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
            body = b"ok"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

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


class LocalSite:
    """A static site on 127.0.0.1:<free port> (or `host`). Use as a context manager.

    start() and stop() may be called again (a started site entered with ``with``
    is not started twice; stopping a stopped site does nothing).
    """

    _live: dict[int, "LocalSite"] = {}  # port -> the started site this process serves there
    _live_lock = threading.Lock()

    def __init__(self, root: Path, port: int = 0, host: str = "127.0.0.1"):
        self.root = Path(root)
        self.host = host  # another address than loopback: for browsers on other machines (a Grid's nodes)
        handler = functools.partial(_Handler, directory=str(self.root))
        self.httpd = http.server.ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None
        self._closed = False

    @classmethod
    def at(cls, port: int) -> "LocalSite | None":
        """The running site this process serves at `port`, if any."""
        with cls._live_lock:
            return cls._live.get(port)

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
                self._live[self.port] = self
        return self

    def stop(self):
        if self._closed:
            return
        self._closed = True
        with self._live_lock:
            if self._live.get(self.port) is self:
                del self._live[self.port]
        if self._thread is not None:  # shutdown() of a server never started would wait forever
            self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
