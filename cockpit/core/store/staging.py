"""Staging folders for imports: files are written here first and moved into the store's run folders only
when the rows commit (see :mod:`cockpit.core.store.exchange` and :mod:`cockpit.core.store.bundle_import`).

A staging folder is named for the process writing it (``runs/.importing-<pid>-<what>``). One left by an
import that was killed (a crash, a power cut) is removed by the next import (:func:`sweep`); one of an
import still running in another process is left alone.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from cockpit.core.store.db import Store
from cockpit.core.store.liveness import alive

PREFIX = ".importing-"
_OWNER = re.compile(r"^\.importing-(\d+)-")


def staging_dir(store: Store, what: str) -> Path:
    """This process's staging folder for ``what`` (not created)."""
    return store.files / f"{PREFIX}{os.getpid()}-{what}"


def sweep(store: Store) -> list[Path]:
    """Remove staging folders whose import process is gone; the ones removed."""
    if store.read_only or not store.files.is_dir():
        return []
    gone = []
    for p in store.files.iterdir():
        if not p.name.startswith(PREFIX):
            continue
        m = _OWNER.match(p.name)
        if m and (int(m.group(1)) == os.getpid() or alive(int(m.group(1)))):
            continue  # an import running now (in this process or another one)
        shutil.rmtree(p, ignore_errors=True)  # a killed import's, or an older Cockpit's (no pid in the name)
        gone.append(p)
    return gone
