"""A task's start address as people write it: a local file or folder, a path meant as a file, or a web
address without a scheme (given the one a browser's address bar would). Reads the file system only to tell
a file from a folder.

:func:`start_address` is the one reading of a typed start address: ``cockpit run --url``, ``cockpit observe``
and the window's URL field all take what it takes and refuse what it refuses, in its words.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from cockpit.core.errors import CockpitError


class StartAddressError(CockpitError):
    """A start address that names no page: a missing file, a folder, an odd scheme (bad input)."""


@dataclass(frozen=True)
class StartAddress:
    url: str  # an http(s) address, or the file:// URL of a local HTML file
    path: Path | None = None  # that local file, resolved (serve its folder: a page's scripts may need http)
    note: str = ""  # said to the person when the address was read with a guess ("… has no scheme; opening …")


def start_address(text: str) -> StartAddress:
    """What a typed start address opens. Raises StartAddressError saying why it names no page."""
    path = _local_file(text)
    if path is not None:
        return StartAddress(path.as_uri(), path)
    target = text.strip().strip("<>\"'")
    note = ""
    if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or re.match(r"^[^/]+:\d", target):  # host:port has none
        if looks_like_file(target):
            hint = "" if target.startswith(("./", "../", "/", "~")) else \
                " (for a web address, give it with https:// or http://)"
            raise StartAddressError(f"no such file: {text.strip()}{hint}")
        url = guess_scheme(target)
        note = f"'{text.strip()}' has no scheme; opening {url}"
    else:
        url = target
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise StartAddressError(f"cannot open {text.strip()}: give an http://, https:// or file:// address, "
                                "or an HTML file")
    if not parts.netloc:
        raise StartAddressError(f"'{text.strip()}' is not a web address")
    return StartAddress(url, None, note)


def _local_file(target: str) -> Path | None:
    """The local file `target` names (a path, ~ allowed, or a file:// URL), resolved; None for a web address.
    Raises StartAddressError for a file:// URL or a path-like target that is missing or a folder."""
    text = target.strip()
    if not text:
        raise StartAddressError("no start URL was given")
    if text.lower().startswith("file:"):
        parts = urlsplit(text)
        if parts.netloc not in ("", "localhost"):
            raise StartAddressError(f"{target} names a file on another computer ({parts.netloc}); give a local file")
        path = Path(unquote(parts.path))
    else:
        path = Path(text).expanduser()
        kind = local_kind(path)
        if not kind or (kind == "folder" and not looks_like_file(text) and re.match(r"^[^/]*\.", text)):
            return None  # not here (a web address, or a missing file: start_address says which), or a host name
    if local_kind(path) == "folder":
        pages = sorted(p.name for p in path.iterdir() if p.suffix.lower() in (".html", ".htm"))
        held = (f"; it holds {', '.join(pages[:3])}{', ...' if len(pages) > 3 else ''}" if pages
                else "; it holds no .html file")
        raise StartAddressError(f"{target} is a folder: name an HTML file in it{held}")
    if local_kind(path) != "file":
        raise StartAddressError(f"no such file: {path if text.lower().startswith('file:') else target}")
    return path.resolve()


def local_kind(path: Path) -> str | None:
    """"file", "folder" or None (nothing there, or a name no file can have: too long, a NUL byte)."""
    try:
        return "file" if path.is_file() else "folder" if path.is_dir() else None
    except (OSError, ValueError):
        return None


_FILE_SUFFIX = re.compile(r"\.(x?html?|pdf|svg|txt)$", re.I)


def looks_like_file(text: str) -> bool:
    """Whether an address without a scheme is meant as a local file: ./x, ../x, /x, ~/x, a\\b, or one
    ending in .html/.htm (etc.) whose first part is not a host name (pages/a.html, a.html; not x.com/a.html)."""
    text = text.strip()
    if text.startswith(("./", "../", "/", "~")) or text in (".", "..") or "\\" in text:
        return True
    host = re.split(r"[/:?#]", text, maxsplit=1)[0]
    return bool(_FILE_SUFFIX.search(text)) and (_FILE_SUFFIX.search(host) is not None
                                                or ("." not in host and host != "localhost"))


def guess_scheme(url: str) -> str:
    """A web address given without a scheme, as a browser's address bar would take it:
    http:// for this computer (localhost, 127.x.x.x, [::1]), where servers rarely speak TLS; else https://."""
    bare = url.strip().lstrip("/")
    try:
        host = urlsplit("//" + bare).hostname or ""
    except ValueError:  # e.g. an unclosed "[" of an IPv6 address
        host = ""
    try:
        local = ipaddress.ip_address(host).is_loopback
    except ValueError:
        local = host == "localhost" or host.endswith(".localhost")
    return ("http://" if local else "https://") + bare
