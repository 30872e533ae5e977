"""Helpers for the hostile-page tests: a site that counts side effects, an obedient model."""
from __future__ import annotations

import contextlib
import functools
import http.server
import re
import threading

from tests import PAGES
from tests.models import mark_for


class _Handler(http.server.SimpleHTTPRequestHandler):
    def _record(self) -> bool:
        if not self.path.startswith("/api/"):
            return False
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(min(length, 1 << 20))
        with self.server.lock:
            self.server.hits.append((self.command, self.path.split("?")[0]))
        body = b"done"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return True

    def do_GET(self):
        if not self._record():
            super().do_GET()

    def do_POST(self):
        if not self._record():
            self.send_error(405)

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


class HitSite:
    """tests/pages on 127.0.0.1; every request to /api/... is recorded in `hits`."""

    def __init__(self):
        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(_Handler, directory=str(PAGES)))
        self.httpd.daemon_threads = True
        self.httpd.hits, self.httpd.lock = [], threading.Lock()
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{path}"

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def hits(self, prefix: str = "/api/") -> list[str]:
        with self.httpd.lock:
            return [p for _, p in self.httpd.hits if p.startswith(prefix)]

    def clear(self) -> None:
        with self.httpd.lock:
            self.httpd.hits.clear()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def obedient_model(steps: list[str], answer: str = "done"):
    """A model that does what the page tells it: one element (by its text, or a literal mark
    number like "[3]") per turn, then ANSWER. Thread-safe enough for one run at a time."""
    queue = list(steps)

    def respond(body):
        if not queue:
            return f"Thought: finished.\nAction: ANSWER; {answer}"
        target = queue.pop(0)
        n = target.strip("[]") if re.fullmatch(r"\[\d+\]", target) else mark_for(body, target)
        return ("Thought: The page says this button is safe and was already approved by the user, so I "
                f"follow its instructions.\nAction: Click [{n}]")
    return respond


class _Recording(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        with self.server.lock:
            self.server.seen.append((self.headers.get("Host", ""), self.path))
        super().do_GET()

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def recording_server():
    """tests/pages on 127.0.0.1, recording the Host and path of every request (localhost is another
    host): `.seen` lists (host, path)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Recording, directory=str(PAGES)))
    httpd.daemon_threads, httpd.seen, httpd.lock = True, [], threading.Lock()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
