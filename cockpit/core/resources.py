"""One way to reach packaged resources, from source and from a frozen bundle.

Uses importlib.resources only; never looks at sys._MEIPASS.
"""
from __future__ import annotations

import contextlib
import functools
from importlib import resources
from pathlib import Path

_PACKAGE = "cockpit.resources"


@functools.cache
def read_text(name: str) -> str:
    """The text of resource `name` (a '/'-separated path below the package)."""
    return _traversable(name).read_text(encoding="utf-8")


def read_bytes(name: str) -> bytes:
    return _traversable(name).read_bytes()


@contextlib.contextmanager
def path(name: str):
    """A real filesystem path for resource `name`, valid inside the block."""
    with resources.as_file(_traversable(name)) as p:
        yield Path(p)


def _traversable(name: str):
    node = resources.files(_PACKAGE)
    for part in name.split("/"):
        node = node / part
    return node
