"""Ending the browser processes of a profile: Chromium and its helpers, and its chromedriver.

A killed chromedriver leaves its Chromium running, and a killed Cockpit leaves
both; these find them by the profile (Linux only, /proc) and SIGKILL them.
Used by :meth:`cockpit.core.browser.session.BrowserSession.close` and
:func:`cockpit.core.browser.profiles.sweep`.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


def kill_orphans(profile: Path) -> int:
    """SIGKILL processes still using `profile` (Chromium and its helpers name it on their command
    line) once the session is closed; Linux only (/proc). Returns how many were killed."""
    proc = Path("/proc")
    if not proc.is_dir() or not hasattr(os, "kill"):
        return 0
    # The whole path as one argument or an option's value (--user-data-dir=P, P/...; helpers join their
    # arguments with spaces): never a longer name (P0), nor the same path under another folder (/x/P).
    needle = str(Path(profile).absolute()).rstrip("/").encode()
    killed = 0
    for p in proc.iterdir():
        if not p.name.isdigit() or int(p.name) == os.getpid():
            continue
        try:
            cmd = b"\0" + (p / "cmdline").read_bytes() + b"\0"
        except OSError:
            continue
        if any(start + needle + end in cmd for start in (b"\0", b"=", b" ") for end in (b"\0", b"/", b" ")):
            try:
                os.kill(int(p.name), 9)
                killed += 1
            except OSError:
                pass
    if killed:
        log.info("killed %d leftover browser processes of %s", killed, profile)
    return killed


def kill_driver(profile: Path) -> int:
    """SIGKILL the chromedriver of `profile`: its command line does not name the profile, but its HOME is
    the profile's home folder (see BrowserSession._start_service)."""
    needle = b"\0HOME=" + str(Path(profile).absolute() / "home").encode() + b"\0"
    killed = 0
    for p in Path("/proc").iterdir():
        if not p.name.isdigit() or int(p.name) == os.getpid():
            continue
        try:
            if needle in b"\0" + (p / "environ").read_bytes():
                os.kill(int(p.name), 9)
                killed += 1
        except OSError:
            pass
    return killed
