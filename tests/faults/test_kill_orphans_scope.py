"""kill_orphans (browser/processes.py) kills only processes of the profile it is given, never another session's."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from cockpit.core.browser.processes import kill_orphans

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux only")


def _sleeper(*args: str) -> subprocess.Popen:
    # A process whose command line names a profile, as Chromium and its helpers do.
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", *args])


def _wait_ready(procs) -> None:
    for p in procs:  # the command line is readable once the interpreter has started
        for _ in range(100):
            try:
                if open(f"/proc/{p.pid}/cmdline", "rb").read():
                    break
            except OSError:
                pass
            time.sleep(0.02)


@pytest.mark.fault("browser")
def test_only_the_sessions_own_processes_are_killed(tmp_path, monkeypatch):
    mine = tmp_path / "x" / "profile-1"
    others = {
        "a longer sibling name": f"--user-data-dir={tmp_path}/x/profile-10",
        "the same path under another folder": f"--user-data-dir=/elsewhere{mine}",
        "a name ending the same way": f"--user-data-dir={tmp_path}/x/my-profile-1",
    }
    own = [_sleeper(f"--user-data-dir={mine}"), _sleeper(f"--database={mine}/config/chromium/"),
           _sleeper(f"/usr/lib/chromium/chromium --type=renderer --user-data-dir={mine} --lang=en")]
    other = {why: _sleeper(arg) for why, arg in others.items()}
    try:
        _wait_ready(own + list(other.values()))
        assert kill_orphans(mine) == len(own)
        for p in own:
            assert p.wait(timeout=10) == -9
        time.sleep(0.2)
        survivors = {why for why, p in other.items() if p.poll() is None}
        assert survivors == set(others), f"killed another session's process: {set(others) - survivors}"
    finally:
        for p in own + list(other.values()):
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.mark.fault("browser")
def test_a_relative_profile_matches_only_its_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bystander = _sleeper("--output=results/profile")  # another program's argument ending in the same name
    own = _sleeper(f"--user-data-dir={tmp_path}/profile")
    try:
        _wait_ready([bystander, own])
        assert kill_orphans(tmp_path.joinpath("profile").relative_to(tmp_path)) == 1
        assert own.wait(timeout=10) == -9
        time.sleep(0.2)
        assert bystander.poll() is None, "a process of another program was killed"
    finally:
        for p in (bystander, own):
            if p.poll() is None:
                p.kill()
                p.wait()
