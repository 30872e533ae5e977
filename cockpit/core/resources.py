"""One way to reach packaged resources, from source and from a frozen bundle.

Uses importlib.resources only; never looks at sys._MEIPASS.
"""
from __future__ import annotations

import contextlib
import functools
import re
from importlib import resources
from pathlib import Path

_PACKAGE = "cockpit.resources"


@functools.cache
def read_text(name: str) -> str:
    """The text of resource `name` (a '/'-separated path below the package)."""
    return _traversable(name).read_text(encoding="utf-8")


_INCLUDE = re.compile(r"^([ \t]*)/\*@include ([\w.-]+)\*/[ \t]*$", re.M)


@functools.cache
def script(name: str) -> str:
    """The in-page script `js/<name>`, with each ``/*@include other.js*/`` line replaced by
    js/other.js (indented as the marker), so several scripts share one copy of a helper."""
    def paste(m: re.Match) -> str:
        return "\n".join(m.group(1) + line if line else line for line in script(m.group(2)).splitlines())
    return _INCLUDE.sub(paste, read_text(f"js/{name}"))


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
