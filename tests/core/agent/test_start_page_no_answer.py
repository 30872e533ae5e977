"""A start page whose server accepts the connection and never answers (walkthrough 9, A3): the run fails before any
model call saying the address did not answer within the page-load timeout, not that the browser "left an empty page
(about:blank)". Real Chromium (its own, with a 2 s page-load timeout), a real HTTP server on 127.0.0.1 that holds
every request, the scripted model server."""
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.modelserver import ModelServer, scripted
from tests.models import model_client


@pytest.fixture
def silent_server():
    """An HTTP server on 127.0.0.1 that takes every request and sends nothing back (until the test ends)."""
    release = threading.Event()

    class Silent(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            release.wait(600)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Silent)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    release.set()
    httpd.shutdown()
    httpd.server_close()


def test_a_start_page_that_never_answers_is_said_to_have_timed_out(silent_server, store):
    url = f"{silent_server}/slow"
    with BrowserSession(BrowserConfig(page_load_timeout=2)) as session, \
            ModelServer(scripted(["Thought: x\nAction: Wait"])) as srv:
        client = model_client(srv, model="test-model", api_key="test-key", timeout=20)
        try:
            result = Agent(session, client, store, config=AgentConfig(wait_seconds=0.2)).run(Fresh("Look", url))
        finally:
            client.close()
    why = f"the start page did not load: {url} did not answer within 2 s (the page-load timeout): " \
          "nothing of the page arrived"
    assert (result.status, result.steps, result.error) == ("failed", 0, why)
    assert srv.requests == []  # stopped before any model call
    run = store.run(result.run_id)
    assert (run["status"], run["error"]) == ("failed", why)  # what Review and the window show
