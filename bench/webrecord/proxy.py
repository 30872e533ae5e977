"""A proxy that forwards nothing and counts what it is asked: the browser of a recorded replay is pointed at it
for every address (``--proxy-server``, with loopback addresses not bypassed), so any request that would leave
the browser for the network, the machine's own servers included, is counted here and answered 502."""
from __future__ import annotations

import http.server
import threading


class CountingProxy:
    def __init__(self):
        seen = self.seen = []
        lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def _count(self):
                with lock:
                    seen.append(f"{self.command} {self.path}")
                self.send_response(502)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = do_CONNECT = _count

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def chrome_args(self) -> list[str]:
        return [f"--proxy-server=http://127.0.0.1:{self.httpd.server_address[1]}", "--proxy-bypass-list=<-loopback>"]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
