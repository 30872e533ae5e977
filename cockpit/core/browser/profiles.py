"""Browser profiles a killed Cockpit left behind: found and cleaned up by the next session.

Each session's own profile (``COCKPIT_HOME/profiles/session-*``) holds a file
naming the process that made it (pid and its start time, so a reused pid is
not mistaken for it). A process killed with SIGKILL (or a power cut) cannot
close its browser: Chromium and chromedriver go on running and the profile
stays. When a new session makes its profile, :func:`sweep` looks at the other
profiles: one whose owner is gone has its processes killed (those naming the
profile on their command line, :func:`cockpit.core.browser.processes.kill_orphans`, and
its chromedriver, whose HOME is inside it) and is removed. Profiles of live processes, and profiles without the file
(made by hand, or by an older Cockpit), are left alone. Linux only (/proc);
elsewhere nothing is swept.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

from cockpit.core.browser.processes import kill_driver, kill_orphans

log = logging.getLogger(__name__)

OWNER = "cockpit-owner.json"


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22), None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # fields after "(comm)": state is field 3, starttime 22


def claim(profile: Path) -> None:
    """Record this process as the owner of `profile`."""
    pid = os.getpid()
    (Path(profile) / OWNER).write_text(json.dumps({"pid": pid, "start": _start_time(pid)}))


def owner_alive(profile: Path) -> bool | None:
    """True/False for a profile with an owner file; None without one (not ours to judge)."""
    try:
        owner = json.loads((Path(profile) / OWNER).read_text())
        pid, start = int(owner["pid"]), owner.get("start")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = _start_time(pid)
    return now is not None and (start is None or now == start)


def sweep(root: Path, keep: Path | None = None) -> int:
    """Kill the processes of, and remove, profiles under `root` whose owner is gone; returns how many."""
    if not Path("/proc/self/stat").exists():
        return 0
    swept = 0
    for profile in Path(root).glob("session-*"):
        if profile == keep or owner_alive(profile) is not False:
            continue
        killed = kill_orphans(profile) + kill_driver(profile)
        shutil.rmtree(profile, ignore_errors=True)
        log.info("removed the browser profile %s of a Cockpit process that was killed (%d processes ended)",
                 profile.name, killed)
        swept += 1
    return swept


#: The flags every Chromium Cockpit starts gets (quiet, offline, one tab; see ENVIRONMENT.md).
CHROME_FLAGS = (
    "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--no-default-browser-check", "--disable-default-apps",
    # AutofillServerCommunication: Chromium sends the signatures of a page's forms to Google's autofill server
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
    "--disable-popup-blocking",  # popups are folded into the one tab instead
    "--hide-scrollbars",
)
