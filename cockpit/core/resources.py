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


_MODULES = re.compile(r"^/\*@modules ([\w.\s-]+?)\*/[ \t]*$", re.M)


def namespace(module: str) -> str:
    """The one name in-page module `module` defines: som_items.js -> SomItems."""
    return "".join(part.capitalize() for part in module.removesuffix(".js").split("_"))


def modules(name: str) -> list[str]:
    """The modules in-page script `js/<name>` declares on its ``/*@modules a.js b.js*/`` line, in order."""
    m = _MODULES.search(read_text(f"js/{name}"))
    return m.group(1).split() if m else []


@functools.cache
def script(name: str) -> str:
    """The in-page script `js/<name>`, ready to send, with the modules it declares.

    A host script (som.js, act.js) is one function expression; a ``/*@modules a.js b.js*/`` line in
    it names the modules it uses. Each module file defines one name (som_items.js: ``SomItems``, a
    factory function or a namespace object) from nothing but its own parameters and browser globals.
    The result is again one expression whose value is the host's function, with each module wrapped so
    that only its name is visible, and only to the modules after it and the host::

        (() => { "use strict";
          const Paint = (() => { <paint.js> return Paint; })();
          ...
          return (<host>);
        })()

    so callers use it as before: ``return (SCRIPT)(arguments[0])`` from execute_script, or as the value of
    a property. A script that declares no modules (settle.js, instrument.js) is sent as it is.
    """
    host = read_text(f"js/{name}")
    parts = []
    for module in modules(name):
        ns = namespace(module)
        parts.append(f"const {ns} = (() => {{\n{read_text(f'js/{module}')}\nreturn {ns};\n}})();")
    if not parts:
        return host
    body = "\n".join(parts)
    return f'(() => {{\n"use strict";\n{body}\nreturn (\n{host.rstrip().removesuffix(";")}\n);\n}})()'


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
