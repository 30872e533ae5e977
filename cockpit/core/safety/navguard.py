"""Where the agent may go: the navigation policy checked around every action.

The executor asks a :class:`NavPolicy` twice per action: before it runs
(:meth:`NavPolicy.target_problem` for a Goto address, a link's address, the
search page) and after the page settled (:meth:`NavPolicy.landing_problem`
for wherever the page ended up, including script redirects). A refused
target becomes an action error the model reads; a forbidden landing place is
left again (back, else the previous address) and the model is told.

The policy:

* Schemes: http and https, and ``about:blank``. Nothing else is opened:
  no ``file:``, ``data:``, ``chrome:``, ``view-source:``, ``javascript:``
  addresses and the like. ``cockpit run`` never needs ``file://``: a task
  that names a local HTML file has its folder served over http on 127.0.0.1
  (see :mod:`cockpit.core.tasks.taskfile`). A run that starts at a ``file://`` page
  anyway (the window opens one as it is) may open files in that page's own
  folder and below it, the same files the CLI would serve, and no others.
* ``blob:`` addresses (a page's own generated file) count as their origin.
* ``chrome-error://`` is where Chromium shows a failed load: accepted as a
  landing place (the loop tells the model the load failed), never as a target.
* Allowed domains (optional, per run: ``cockpit run --allow-domain D`` and a
  task file's ``"allowed_domains"`` list): when any are given, an http(s)
  address must be on one of them or a subdomain ("example.com" allows
  "www.example.com"). The start URL's host is always allowed: the user chose
  it. With no allowed domains every host is allowed.
* A click on a ``javascript:`` link does not navigate, so it is not refused
  here; :mod:`cockpit.core.safety.risk` rates a link that runs code (anything but a
  no-op such as ``javascript:void(0)``) irreversible, so the approval gate
  asks the human first.

Pure and Qt-free: it reads addresses only.
"""
from __future__ import annotations

import ipaddress
import posixpath
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlparse, urlsplit

from cockpit.core.errors import ActionError, CockpitError

WEB_SCHEMES = ("http", "https")
_HOST = re.compile(r"^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,62}[a-z0-9_])?)*$")
# javascript: hrefs that do nothing (the element's own handlers do the work).
_NOOP_SCRIPT = re.compile(r"^javascript:\s*(void\s*\(?\s*0?\s*\)?|;|undefined|false|null|return\s+false|)\s*;?\s*$",
                          re.I)


def normalize_domain(value) -> str:
    """'example.com' from 'example.com', '*.Example.com', 'https://example.com:8080/x'; raises ValueError."""
    if not isinstance(value, str):
        raise ValueError(f"a domain must be a string, not {type(value).__name__}")
    d = value.strip().lower()
    if "://" in d:
        d = urlsplit(d).hostname or ""
    else:
        d = d.split("/", 1)[0]
        if d.startswith("[") and "]" in d:  # [::1]:8080
            d = d[1:d.index("]")]
        elif d.count(":") == 1:
            d = d.split(":", 1)[0]
    d = d.lstrip("*").lstrip(".").rstrip(".")
    if _is_ip(d) or _HOST.match(d):
        return d
    raise ValueError(f"{value!r} is not a domain name (use e.g. example.com or 127.0.0.1)")


def parse_domains(values) -> tuple[str, ...]:
    """Normalised, de-duplicated domains; CockpitError naming the first bad one."""
    if values is None:
        return ()
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for v in values:
        try:
            d = normalize_domain(v)
        except ValueError as e:
            raise CockpitError(f"allowed domains: {e}") from None
        if d not in out:
            out.append(d)
    return tuple(out)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def host_allowed(host: str, domains) -> bool:
    host = (host or "").lower().rstrip(".")
    return any(host == d or (not _is_ip(d) and host.endswith("." + d)) for d in domains)


def is_noop_script(url: str) -> bool:
    """True for javascript: addresses that run nothing (javascript:void(0), javascript:;)."""
    return bool(_NOOP_SCRIPT.match((url or "").strip()))


def scheme_of(url: str) -> str:
    m = re.match(r"^\s*([a-zA-Z][a-zA-Z0-9+.-]*):", url or "")
    return m.group(1).lower() if m else ""


@dataclass(frozen=True)
class NavPolicy:
    """What one run may open. The default allows every http(s) host."""
    allowed_domains: tuple[str, ...] = ()  # empty: any host
    start_host: str = ""  # always allowed
    local_root: str = ""  # the folder of a file:// start page ("/home/u/site/"); "" = no file:// at all

    @property
    def restricted(self) -> bool:
        return bool(self.allowed_domains)

    def to_dict(self) -> dict:
        d = {"schemes": list(WEB_SCHEMES) + ["about:blank"], "allowed_domains": list(self.allowed_domains),
             "start_host": self.start_host}
        if self.local_root:
            d["local_root"] = self.local_root
        return d

    def describe_domains(self) -> str:
        ds = list(self.allowed_domains) + ([self.start_host] if self.start_host not in self.allowed_domains
                                           and self.start_host else [])
        return ", ".join(ds)

    def _web_problem(self, url: str) -> str | None:
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
        except ValueError:
            return f"{url[:200]} is not a valid address"
        if not host:
            return f"{url[:200]} has no host"
        if not self.restricted or host_allowed(host, self.allowed_domains) or (
                self.start_host and host == self.start_host):
            return None
        return f"{host} is not one of the domains this run may visit ({self.describe_domains()})"

    def target_problem(self, url: str) -> str | None:
        """Why this run must not open `url` (a Goto, a link, the search page), or None."""
        url = (url or "").strip()
        scheme = scheme_of(url)
        if scheme in WEB_SCHEMES:
            return self._web_problem(url)
        if url.lower() == "about:blank":
            return None
        if scheme == "blob":
            return self._web_problem(url[5:])
        if scheme == "file" and self.local_root and _file_path(url).startswith(self.local_root):
            return None
        shown = url if len(url) <= 80 else url[:79] + "\u2026"
        return (f"{shown} is a {scheme + ':' if scheme else 'relative or unknown'} address; "
                "this run only opens http and https pages")

    def landing_problem(self, url: str) -> str | None:
        """Why the page must not stay at `url` after an action, or None."""
        if scheme_of(url) == "chrome-error":  # a failed load of an allowed address: reported elsewhere
            return None
        return self.target_problem(url)


def _file_path(url: str) -> str:
    """The normalised local path of a file:// URL ('' when it names another machine)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.netloc not in ("", "localhost"):
        return ""
    path = posixpath.normpath(unquote(parts.path) or "/")
    return path if path.startswith("/") else ""


def policy_for(start_url: str, domains=(), task_extra: dict | None = None) -> NavPolicy:
    """The policy of one run: the CLI's domains plus the task's own "allowed_domains"."""
    extra = (task_extra or {}).get("allowed_domains")
    all_domains = parse_domains(list(parse_domains(domains)) + list(parse_domains(extra)))
    try:
        start_host = (urlsplit(start_url).hostname or "") if scheme_of(start_url) in WEB_SCHEMES else ""
    except ValueError:
        start_host = ""
    local_root = ""
    if scheme_of(start_url) == "file" and (path := _file_path(start_url)):
        local_root = posixpath.dirname(path).rstrip("/") + "/"
    return NavPolicy(all_domains, start_host, local_root)


__all__ = ["NavPolicy", "policy_for", "parse_domains", "normalize_domain", "host_allowed", "is_noop_script",
           "scheme_of", "WEB_SCHEMES"]


SAFE_SCHEMES = ("http", "https")
_NON_WEB = ("javascript:", "data:", "file:", "chrome:", "about:", "mailto:", "blob:",
            "view-source:", "chrome-extension:", "ftp:")


def normalize_url(text: str) -> str:
    """A URL to open: adds https:// when there is no scheme; refuses other schemes."""
    url = text.strip().strip("<>\"'")
    if "://" not in url and not url.lower().startswith(_NON_WEB):
        url = "https://" + url
    parsed = urlparse(url)
    if parsed.scheme not in SAFE_SCHEMES:
        raise ActionError(f"Goto only opens http and https addresses, not {parsed.scheme}:")
    if not parsed.netloc:
        raise ActionError(f"'{text}' is not a web address")
    return url
