"""Fault suite, browser death: Chromium or chromedriver killed mid-run.

The run ends 'failed' with an error that names the browser, without hanging;
in the window the failure is shown, the window stays usable and a new run
(in a new browser) succeeds.
"""
import contextlib
import os
import signal
import subprocess
import threading
import time

import pytest

from cockpit.core.agent import events as ev
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from tests.models import model_client

pytestmark = pytest.mark.fault("browser")
SCROLL = "Thought: read on.\nAction: Scroll [WINDOW]; down"
ANSWER = "Thought: done.\nAction: ANSWER; bottom"
LONG = 120_000


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        for c in children(todo.pop()):
            found.append(c)
            todo.append(c)
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def still_alive(pids: list[int], within: float = 10) -> dict[int, str]:
    """Those of `pids` still running after `within` seconds, with their command lines. A SIGKILLed Chromium
    takes a moment to exit, longer on a busy machine: close() sends the signals, the kernel ends them."""
    end = time.monotonic() + within
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < end:
        time.sleep(0.1)
    found = {}
    for pid in left:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
            found[pid] = f.read().replace(b"\0", b" ").decode(errors="replace")[:200]
    return found


def kill_browser(session: BrowserSession, victim: str) -> None:
    """SIGKILL the session's Chromium (every process under chromedriver) or its chromedriver."""
    driver = session._service.process.pid
    pids = descendants(driver) if victim == "chromium" else [driver]
    assert pids, "the session has no browser process to kill"
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


class KillAtStep:
    """Scrolls; while the model is asked for step `at`, the browser is killed before the reply."""

    def __init__(self, at: int):
        self.at, self.calls, self.kill, self.reply = at, 0, None, SCROLL

    def __call__(self, body):
        self.calls += 1
        if self.calls == self.at and self.kill is not None:
            self.kill()
        return self.reply


@pytest.mark.parametrize("victim", ["chromium", "chromedriver"])
def test_browser_killed_mid_run_fails_the_run_and_says_so(site, tmp_path, victim):
    model = KillAtStep(2)
    session = BrowserSession(BrowserConfig()).start()
    model.kill = lambda: kill_browser(session, victim)
    browser_pids = [session._service.process.pid] + descendants(session._service.process.pid)
    events, out = [], {}
    try:
        with ModelServer(model) as srv, Store(tmp_path / "home") as store:
            client = model_client(srv)
            agent = Agent(session, client, store, config=AgentConfig(max_steps=6, wait_seconds=0.2),
                          listener=events.append)
            t = threading.Thread(target=lambda: out.setdefault("result", agent.run(Fresh(
                "What is at the bottom?", site.url("agent_start.html")))), daemon=True)
            t.start()
            t.join(120)
            assert not t.is_alive(), "the run hung after the browser died"
            client.close()
            result = out["result"]
            run, steps = store.run(result.run_id), store.steps(result.run_id)
    finally:
        session.close()
    assert result.status == "failed" and run["status"] == "failed"
    assert "browser" in result.error.lower() and run["error"] == result.error
    failed = [e for e in events if isinstance(e, ev.RunFailed)]
    assert len(failed) == 1 and failed[0].error == result.error
    assert steps[0]["status"] == "ok"  # what happened before is kept
    assert model.calls == 2  # the model was not asked again about a page nobody can see
    assert steps[-1]["step"] == 2 and steps[-1]["status"] == "failed" and "browser" in steps[-1]["error"].lower()
    assert still_alive(browser_pids) == {}  # nothing of the dead browser is left running


def test_browser_killed_in_the_window_shows_the_failure_and_the_next_run_works(qtbot, site, tmp_path):
    from cockpit.core.settings import Settings
    from cockpit.ui.main_window import MainWindow
    w = MainWindow(settings=Settings(annotator="ada"), store_root=tmp_path / "home")
    qtbot.addWidget(w)
    w.show()
    model = KillAtStep(2)
    try:
        with ModelServer(model) as srv:
            w.settings.model = ModelConfig(base_url=srv.base_url, model="m", max_retries=0, timeout=30)
            w.live.task_bar.set_task("What is at the bottom?", site.url("agent_start.html"))
            model.kill = lambda: kill_browser(w.bridge.session, "chromium")
            assert w.start_run()
            qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
            dead = w.runs.run_id
            assert w.live.error_banner.isVisible()
            shown = w.live.error_banner.text()
            assert "failed" in shown and "browser" in shown.lower()
            assert "browser" in w.status.current().lower()
            assert w.toolbar.act_run.isEnabled() and w.live.task_bar.isEnabled()  # the window is usable again

            assert w.status.browser.text() == "browser: closed"  # the dead browser is not shown as open
            model.kill, model.reply = None, ANSWER  # the next run is answered
            assert w.start_run()
            qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
            assert w.runs.run_id != dead and not w.live.error_banner.isVisible()
            assert "finished: answered" in w.live.banner.fullText()
    finally:
        w.close()
    with Store(tmp_path / "home") as store:
        assert store.run(dead)["status"] == "failed" and "browser" in store.run(dead)["error"].lower()
        assert store.run(w.runs.run_id)["status"] == "answered" and store.run(w.runs.run_id)["answer"] == "bottom"
