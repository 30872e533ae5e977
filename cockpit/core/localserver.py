"""Serve a directory over HTTP on 127.0.0.1, in a background thread.

Used for the bundled demo pages and by the tests' fixture pages. One extra
route, ``/__delay/<ms>``, answers after a delay: pages use it to make
slow network requests that the settle logic must wait for. A POST is answered
like a GET of the same path, so static forms with method="post" work.
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

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, fmt, *args):  # keep test and CLI output clean
        pass


class LocalSite:
    """A static site on 127.0.0.1:<free port>. Use as a context manager."""

    def __init__(self, root: Path, port: int = 0):
        self.root = Path(root)
        handler = functools.partial(_Handler, directory=str(self.root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def url(self, path: str = "") -> str:
        return f"{self.base}/{path.lstrip('/')}"

    def start(self) -> "LocalSite":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="local-site", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
