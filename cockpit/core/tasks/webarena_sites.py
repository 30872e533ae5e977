"""WebArena's site placeholders (``__SHOPPING__``, ``__GITLAB__``...) mapped to real addresses.

WebArena's raw task configs (``config_files/test.raw.json``) name their sites by placeholders, which
its own setup replaces by the addresses in the environment variables SHOPPING, SHOPPING_ADMIN,
REDDIT, GITLAB, MAP, WIKIPEDIA and HOMEPAGE. Cockpit does the same, in every string of a task
(start URL, reference URLs, program_html URLs), and ``--site NAME=URL`` overrides or adds one.
A start URL of several pages joined by ``" |AND| "`` (WebArena opens them in tabs) starts at the
first; Cockpit works in one tab.
"""
from __future__ import annotations

import os
import re

from cockpit.core.errors import CockpitError

SITE_NAMES = ("SHOPPING", "SHOPPING_ADMIN", "REDDIT", "GITLAB", "MAP", "WIKIPEDIA", "HOMEPAGE")
PLACEHOLDER = re.compile(r"__([A-Z][A-Z0-9_]*?)__")
TABS = " |AND| "


def site_map(overrides: dict[str, str] | None = None, env=None) -> dict[str, str]:
    """NAME -> address: the environment's WebArena variables, then `overrides` (names in any case)."""
    env = os.environ if env is None else env
    out = {name: env[name].strip().rstrip("/") for name in SITE_NAMES if env.get(name, "").strip()}
    for name, url in (overrides or {}).items():
        out[name.strip().upper()] = url.strip().rstrip("/")
    return out


def parse_site(text: str) -> tuple[str, str]:
    """'shopping=http://host:7770' -> ('SHOPPING', 'http://host:7770'); CockpitError when it is not one."""
    name, sep, url = text.partition("=")
    name, url = name.strip().upper(), url.strip()
    if not sep or not re.fullmatch(r"[A-Z][A-Z0-9_]*", name) or not re.match(r"^https?://\S+$", url):
        raise CockpitError(f"--site {text!r}: give NAME=URL, e.g. --site shopping=http://localhost:7770 "
                           f"(WebArena's names: {', '.join(n.lower() for n in SITE_NAMES)})")
    return name, url


def fill(value, sites: dict[str, str], missing: set[str]):
    """`value` with every known placeholder in its strings replaced; unknown ones are added to `missing`."""
    if isinstance(value, str):
        def sub(m: re.Match) -> str:
            if m.group(1) in sites:
                return sites[m.group(1)]
            missing.add(m.group(1))
            return m.group(0)
        return PLACEHOLDER.sub(sub, value) if "__" in value else value
    if isinstance(value, list):
        return [fill(v, sites, missing) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, sites, missing) for k, v in value.items()}
    return value


def prepare(record: dict, sites: dict[str, str], problem, line: int) -> dict:
    """A WebArena record with its placeholders filled, and notes for what Cockpit cannot do for it:
    several start tabs, a login it must be given. Unknown placeholders are left for the URL check."""
    missing: set[str] = set()
    out = fill(record, sites, missing)
    if missing:
        names = ", ".join(f"__{m}__" for m in sorted(missing))
        first = sorted(missing)[0]
        problem(line, f"the placeholder{'s' if len(missing) > 1 else ''} {names} "
                      f"{'is' if len(missing) == 1 else 'are'} not mapped to an address: set {first}=URL "
                      f"in the environment (as WebArena does) or give --site {first.lower()}=URL; task skipped")
        return {}
    start = out.get("start_url")
    if isinstance(start, str) and TABS in start:
        tabs = [u.strip() for u in start.split(TABS) if u.strip()]
        out["start_url"], out["start_urls"] = tabs[0], tabs
        problem(line, f"WebArena opens {len(tabs)} tabs ({', '.join(tabs)}); Cockpit works in one and starts "
                      "at the first", True)
    return out
