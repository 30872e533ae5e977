"""Per-site risk rules: a user's corrections to :func:`cockpit.core.safety.risk.classify`.

A :class:`SiteRule` sets the level when it matches; the rules are kept as a
JSON list in ``risk_rules.json`` (:func:`load_rules`, :func:`save_rules`).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from cockpit.core import paths
from cockpit.core.actions.grammar import KINDS, Action
from cockpit.core.errors import CockpitError
from cockpit.core.page.marks import Mark
from cockpit.core.safety.risk_marks import _own_names
from cockpit.core.safety.words import LEVELS, _host
from cockpit.core.words import json_error, noun

_RULE_KEYS = ("domain", "level", "text", "url", "action", "note")


@dataclass
class SiteRule:
    """A user's correction for one site: when it matches, it sets the level.

    ``domain`` is a host ("shop.example.com"), a wildcard ("*.example.com",
    which also matches example.com itself) or "*" for every site; it is
    matched against the current page's host. ``text`` (matched against the
    target's text, aria-label and value), ``url`` (the current page URL) and
    ``action`` (an action kind) narrow it; empty means any. Regular
    expressions are case-insensitive and may match anywhere (re.search).
    """
    domain: str
    level: str
    text: str = ""
    url: str = ""
    action: str = ""
    note: str = ""

    def check(self) -> None:
        """Raise ValueError saying what is wrong with this rule."""
        for k in _RULE_KEYS:
            if not isinstance(getattr(self, k), str):
                raise ValueError(f'"{k}" must be a string')
        if not self.domain.strip():
            raise ValueError('"domain" is empty; use a host such as "shop.example.com", '
                             '"*.example.com" or "*"')
        if self.level not in LEVELS:
            raise ValueError(f'"level" is {self.level!r}; use one of {", ".join(LEVELS)}')
        if self.action and self.action not in KINDS:
            raise ValueError(f'"action" is {self.action!r}; use "" or one of {", ".join(KINDS)}')
        for k in ("text", "url"):
            try:
                re.compile(getattr(self, k))
            except re.error as e:
                raise ValueError(f'"{k}" is not a valid regular expression: {e}') from None

    def matches_host(self, host: str) -> bool:
        d, host = self.domain.strip().lower(), (host or "").lower().rstrip(".")
        if d == "*":
            return True
        if d.startswith("*."):
            return host == d[2:] or host.endswith(d[1:])
        return host == d

    def matches(self, action: Action, mark: Mark | None, url: str) -> bool:
        if not self.matches_host(_host(url)):
            return False
        if self.action and self.action != action.kind:
            return False
        if self.url and not _rx(self.url).search(url or ""):
            return False
        if self.text:
            names = [s for _, s in _own_names(mark)] if mark is not None else []
            if not any(_rx(self.text).search(s) for s in names):
                return False
        return True

    def describe(self) -> str:
        conds = [f"{k}=/{getattr(self, k)}/" for k in ("text", "url") if getattr(self, k)]
        if self.action:
            conds.append(f"action={self.action}")
        return f"{self.domain}{' [' + ', '.join(conds) + ']' if conds else ''} -> {self.level}"


@lru_cache(maxsize=256)
def _rx(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I)


def default_rules_path() -> Path:
    return paths.home() / "risk_rules.json"


def load_rules(path) -> list[SiteRule]:
    """The site rules in a JSON file (a list of objects); a missing file means none."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as e:
        raise CockpitError(f"cannot read the risk rules file {path}: {e}") from e
    try:
        data = json.loads(raw) if raw.strip() else []
    except json.JSONDecodeError as e:
        raise CockpitError(f"the risk rules file {path} is not valid JSON: {json_error(e)}") from e
    if not isinstance(data, list):
        raise CockpitError(f"the risk rules file {path} must hold a JSON list of rules, "
                           f"not a {type(data).__name__}")
    return [_rule_from(path, i, entry) for i, entry in enumerate(data)]


def _rule_from(path: Path, i: int, entry) -> SiteRule:
    where = f"rule {i + 1} in the risk rules file {path}"
    if not isinstance(entry, dict):
        raise CockpitError(f"{where} must be an object like "
                           '{"domain": "example.com", "level": "irreversible"}, not ' + json.dumps(entry)[:80])
    unknown = sorted(set(entry) - set(_RULE_KEYS))
    if unknown:
        raise CockpitError(f"{where} has unknown {noun(len(unknown), 'field')} {', '.join(unknown)}; "
                           f"allowed: {', '.join(_RULE_KEYS)}")
    missing = [k for k in ("domain", "level") if k not in entry]
    if missing:
        raise CockpitError(f"{where} needs {' and '.join(repr(k) for k in missing)}")
    rule = SiteRule(**entry)
    try:
        rule.check()
    except ValueError as e:
        raise CockpitError(f"{where} (domain {entry.get('domain')!r}): {e}") from None
    return rule


def save_rules(path, rules) -> None:
    """Write `rules` as a JSON list, atomically; refuses invalid rules."""
    path = Path(path)
    for i, rule in enumerate(rules):
        try:
            rule.check()
        except ValueError as e:
            raise CockpitError(f"rule {i + 1} ({rule.domain or '?'}) cannot be saved: {e}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps([asdict(r) for r in rules], indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)

