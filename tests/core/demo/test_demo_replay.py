"""Demo runs replay after a restart: the demo shop is served again at its port while they replay.

The shop's port is COCKPIT_DEMO_PORT, which tests/conftest.py sets to a free port of its own for each test
process (DEMO_SITE_PORT, 47115, may be taken by another test process or another Cockpit on this machine).
A demo run is recorded as `cockpit demo` records one (the demo policy behind ModelServer, the bundled
shop at its port, real Chromium); then it is replayed with nothing serving the shop (the process
that recorded it is gone), next to the window's own shop in this process, next to another Cockpit
serving the shop, and with the port taken by something else.
"""
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from cockpit.core.agent.approval import PolicyApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh, RunContext
from cockpit.core.demo.policy import (
    DEMO_MODEL,
    DEMO_QUESTION,
    demo_site_port,
    serve_demo_model,
    serve_demo_site,
)
from cockpit.core.errors import CockpitError
from cockpit.core.localserver import LocalSite
from cockpit.core.replay.replay import replay
from cockpit.core.store import Store
from tests.clitools import cockpit
from tests.models import model_client

SHOP_PORT = demo_site_port()  # this test process's own (tests/conftest.py)


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def shop_answers(port: int) -> bool:
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
                f"http://127.0.0.1:{port}/index.html", timeout=3) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def demo_run(browser, tmp_path_factory):
    """(home, run id): a demo run asking a price, recorded with the shop at its port."""
    if not port_free(SHOP_PORT):
        pytest.skip(f"port {SHOP_PORT} is in use on this machine; the demo shop cannot be served there")
    home = tmp_path_factory.mktemp("demo-home")
    with serve_demo_site() as site, serve_demo_model() as model, Store(home) as store:
        assert site.port == SHOP_PORT
        client = model_client(model, model=DEMO_MODEL, api_key="demo", temperature=0)
        with client:
            result = Agent(browser, client, store, config=AgentConfig(demo=True, wait_seconds=0.5),
                           approver=PolicyApprover(False)).run(Fresh(DEMO_QUESTION, site.url("index.html")))
        assert result.status == "answered", result
        run = store.run(result.run_id)
        assert run["demo"] and run["url"] == f"http://127.0.0.1:{SHOP_PORT}/index.html"
        assert sum(s["status"] == "ok" for s in store.steps(result.run_id)) >= 2
    assert port_free(SHOP_PORT)  # "restarted": nothing serves the shop any more
    return home, result.run_id


def test_cockpit_branch_replays_a_demo_run_after_a_restart(demo_run):
    home, run_id = demo_run
    r = cockpit(home, "branch", run_id, "0", "--replay-only")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ERR_CONNECTION_REFUSED" not in r.stdout + r.stderr
    assert f"of {run_id}; the pages matched" in r.stdout
    assert port_free(SHOP_PORT)


def test_the_shop_this_process_serves_is_used_and_left_running(browser, demo_run):
    home, run_id = demo_run
    with serve_demo_site() as window_shop, Store(home) as store:  # as the window serves it
        assert window_shop.port == SHOP_PORT
        done = replay(RunContext(browser, store), run_id, None)
        assert done and LocalSite.at(SHOP_PORT) is window_shop and shop_answers(SHOP_PORT)
        done = replay(RunContext(browser, store), run_id, None)  # again: nothing was stopped under the window
        assert done and shop_answers(SHOP_PORT)


def test_a_shop_another_cockpit_serves_is_used(demo_run, tmp_path):
    home, run_id = demo_run
    code = ("import sys, time; from cockpit.core.demo.policy import serve_demo_site; s = serve_demo_site(); "
            "print(s.port, flush=True); time.sleep(120)")
    other = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == str(SHOP_PORT)
        r = cockpit(home, "branch", run_id, "0", "--replay-only")
        assert r.returncode == 0, r.stdout + r.stderr
        assert f"of {run_id}; the pages matched" in r.stdout
    finally:
        other.kill()
        other.wait(10)
        other.stdout.close()


def test_a_port_taken_by_something_else_is_said(browser, demo_run):
    home, run_id = demo_run
    with socket.socket() as taken, Store(home) as store:  # listening, answering nothing
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", SHOP_PORT))
        taken.listen()
        browser.goto("about:blank")
        t0 = time.monotonic()
        with pytest.raises(CockpitError) as e:
            replay(RunContext(browser, store), run_id, None)
        assert time.monotonic() - t0 < 10
    msg = str(e.value)
    assert f"127.0.0.1:{SHOP_PORT}" in msg and "in use" in msg and "demo shop" in msg, msg
    assert browser.url == "about:blank"  # nothing was replayed
