"""Where Cockpit keeps its data: COCKPIT_HOME, or the platform's data dir."""
from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def home() -> Path:
    """The data directory, created if missing.

    ``COCKPIT_HOME`` overrides the platform default so tests and scripts can
    point Cockpit at a temporary directory.
    """
    env = os.environ.get("COCKPIT_HOME")
    root = Path(env).expanduser() if env else Path(platformdirs.user_data_dir("cockpit", "cockpit"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def browser_profiles() -> Path:
    p = home() / "profiles"
    p.mkdir(parents=True, exist_ok=True)
    return p
