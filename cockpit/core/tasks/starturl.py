"""A task's start address as people write it: a local file or folder, a path meant as a file, or a web
address without a scheme (given the one a browser's address bar would). Reads the file system only to tell
a file from a folder."""
from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from urllib.parse import urlsplit


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
