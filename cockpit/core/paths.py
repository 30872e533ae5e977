"""Where Cockpit keeps its data: COCKPIT_HOME, or the platform's data dir.

A data folder that cannot be created (COCKPIT_HOME under a regular file, a read-only file system, no permission)
raises :class:`DataFolderError`, whose message is one line naming the folder and the fix, for the terminal and
for the window's start-up message box.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import platformdirs

ENV_VAR = "COCKPIT_HOME"


class DataFolderError(OSError):
    """The data folder cannot be created or written; the message says which folder and what to do.

    An OSError (what it wraps), so code that already handles one still does; not a CockpitError, since
    ``errors`` and ``paths`` sit side by side in the core's bottom layer."""

    def __init__(self, path: Path, error: OSError):
        self.path = path
        reason = error.strerror or str(error) or type(error).__name__
        blocker = _file_in_the_way(path)
        if blocker is not None:
            fix = f"move the file {blocker} out of the way"
        else:
            fix = "make this folder writable"
        super().__init__(f"cannot use the data folder {path}: {reason}. "
                         f"Set {ENV_VAR} to a folder you can write, or {fix}.")


def _file_in_the_way(path: Path) -> Path | None:
    """The path itself or the nearest existing ancestor, when that is a file rather than a folder."""
    for p in (path, *path.parents):
        if p.exists() or p.is_symlink():
            return p if not p.is_dir() else None
    return None


def _root() -> Path:
    env = os.environ.get(ENV_VAR)
    # absolute, without "..": the same folder whatever the working folder of a process started later, and one
    # Chromium reads (it refuses paths with ".."; walkthrough 7: COCKPIT_HOME=../home timed out after 60 s)
    return Path(os.path.abspath(Path(env).expanduser())) if env else Path(platformdirs.user_data_dir("cockpit",
                                                                                                      "cockpit"))


def home() -> Path:
    """The data directory, created if missing (raises DataFolderError when it cannot be).

    ``COCKPIT_HOME`` overrides the platform default so tests and scripts can
    point Cockpit at a temporary directory.
    """
    root = _root()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise DataFolderError(root, e) from e
    return root


def writable_home() -> Path:
    """The data directory, checked by writing (and removing) a probe file: what the window needs to start.

    File modes alone do not tell (root writes through them; a read-only mount or an immutable folder refuses
    root too), so this really writes. Raises DataFolderError."""
    root = home()
    try:
        with tempfile.NamedTemporaryFile(dir=root, prefix=".write-probe-"):
            pass
    except OSError as e:
        raise DataFolderError(root, e) from e
    return root


def browser_profiles() -> Path:
    p = home() / "profiles"
    p.mkdir(parents=True, exist_ok=True)
    return p
