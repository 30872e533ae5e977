"""Fault suite, process death: the browser a SIGKILLed Cockpit leaves running is ended by the next one.

A killed process cannot close its Chromium and chromedriver: they go on running,
with the profile folder. The next Cockpit process that starts a browser in the
same home ends them and removes the folder; browsers of live Cockpit processes
are never touched.
"""
import pytest

from cockpit.core import paths
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.modelserver import ModelServer
from tests.clitools import cockpit, kill_leftovers, kill_when, processes_mentioning
from tests.faults.test_kill import Model

pytestmark = pytest.mark.fault("kill")


def test_the_next_session_ends_a_killed_runs_browser_and_removes_its_profile(site, tmp_path, monkeypatch):
    home = tmp_path / "home"
    model = Model()
    try:
        with ModelServer(model) as srv:
            kill_when(home, ["run", "--task", "What is the secret number?", "--url", site.url("agent_start.html"),
                             "--base-url", srv.base_url, "--model", "m", "--max-steps", "6"], model.stuck,
                      "step 3", clean=False)
        (left,) = (home / "profiles").glob("session-*")
        assert processes_mentioning(str(left)), "the killed run's browser should still be running"
        monkeypatch.setenv("COCKPIT_HOME", str(home))
        with BrowserSession(BrowserConfig()) as live:  # a live session of this process: never swept
            mine = live.profile_dir
            r = cockpit(home, "observe", site.url("agent_start.html"))
            assert r.returncode == 0, r.stderr
            assert not left.exists() and processes_mentioning(str(left)) == []  # chromium and chromedriver
            assert mine.exists() and processes_mentioning(str(mine))  # still running
            assert "Open the details page" in r.stdout
        assert list(paths.browser_profiles().glob("session-*")) == []
    finally:
        kill_leftovers(home)
