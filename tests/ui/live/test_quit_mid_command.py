"""Quitting the window while a browser command hangs (a page that never finishes loading) closes cleanly and
quietly: the quit does not wait for the hung command, and its second connection to the driver no longer makes
urllib3 warn "Connection pool is full, discarding connection" on the way out (the driver's pool holds two).
The real app (run_window, as `cockpit` starts it) in a process of its own, ended with SIGTERM as a desktop
session ends it."""
import http.server
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from cockpit.core.llm.client import ModelConfig
from cockpit.core.settings import Settings, save_settings
from tests.clitools import free_port, kill_leftovers, processes_mentioning

WINDOW = textwrap.dedent("""
    import sys
    from cockpit.core.logsetup import setup_logging
    from cockpit.ui.app import run_window
    setup_logging()  # as `cockpit` does: warnings on stderr
    sys.exit(run_window(task=sys.argv[1], url=sys.argv[2], autostart=True))
""")


class Hanging(http.server.BaseHTTPRequestHandler):
    """Answers /hang with headers and part of a page, then nothing until the test ends."""
    asked = threading.Event()
    release = threading.Event()

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html><body><p>loading")
        self.wfile.flush()
        Hanging.asked.set()
        Hanging.release.wait(120)

    def log_message(self, *args):
        pass


@pytest.fixture
def hanging_site():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hanging)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Hanging.asked.clear()
    Hanging.release.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}/hang"
    Hanging.release.set()
    server.shutdown()
    server.server_close()


def test_quit_while_a_page_load_hangs_is_clean_and_quiet(tmp_path, hanging_site):
    home = tmp_path / "home"
    home.mkdir()
    save_settings(Settings(model=ModelConfig(base_url=f"http://127.0.0.1:{free_port()}/v1", model="m",
                                             max_retries=0)), home / "settings.json")
    env = dict(os.environ, COCKPIT_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen([sys.executable, "-c", WINDOW, "Read the page", hanging_site], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert Hanging.asked.wait(120), "the run never asked for the page"
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)  # the page is still loading: WebDriver's get() is in flight
        err = proc.communicate(timeout=60)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        kill_leftovers(home)
    assert proc.returncode == 0, err[-3000:]
    assert "Connection pool is full" not in err, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    assert processes_mentioning(str(home)) == []
