"""One task, and how one record of a task file becomes one.

A record is a JSON object in one of the formats :mod:`cockpit.core.tasks.taskfile`
reads (WebVoyager, plain, WebArena). :func:`detect` says which; :func:`to_task`
checks its fields (task text, start URL, id, site, ``allowed_domains``) and makes
the :class:`Task`, reporting what is wrong through a ``problem`` callback.

This module only reads data. It must not run, judge or store tasks, and must
not import Qt.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from cockpit.core.errors import CockpitError
from cockpit.core.safety.navguard import parse_domains
from cockpit.core.tasks.starturl import guess_scheme, local_kind, looks_like_file

# Which key holds what, per format: id, task text, start URL, site.
_KEYS = {
    "webvoyager": ("id", "ques", "web", "web_name"),
    "plain": ("id", "task", "url", "site"),
    "webarena": ("task_id", "intent", "start_url", None),
}
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_PLACEHOLDER_URL = re.compile(r"^__[A-Z0-9_]+__")  # WebArena's raw configs: "__SHOPPING__"


@dataclass(frozen=True, slots=True)
class Task:
    id: str  # "Allrecipes--0"; "task-<line>" when the file gives none
    task: str  # the question: WebVoyager "ques", plain "task", WebArena "intent"
    url: str  # start URL: WebVoyager "web", plain "url", WebArena "start_url"
    site: str = ""  # WebVoyager "web_name", plain "site", else the URL's host
    extra: dict = field(default_factory=dict)  # every other field, untouched


def detect(record: dict) -> str | None:
    if "ques" in record or "web_name" in record or "web" in record:
        return "webvoyager"
    if "intent" in record or "start_url" in record:
        return "webarena"
    if "task" in record or "url" in record:
        return "plain"
    return None


def to_task(record, line: int, problem, base: Path = Path(".")) -> Task | None:
    """One record as a Task, or None (with a problem). `problem(line, message, note=False)`;
    `base`: the task file's folder, which relative paths of local pages are read from."""
    if not isinstance(record, dict):
        problem(line, f"expected a JSON object (one task), got {_kind(record)}")
        return None
    fmt = detect(record)
    if fmt is None:
        keys = ", ".join(f'"{k}"' for k in list(record)[:6]) or "none"
        problem(line, f'not a task: no "ques", "task" or "intent" field (fields: {keys})')
        return None
    id_key, text_key, url_key, site_key = _KEYS[fmt]
    text = _required_str(record, text_key, "the task text", line, problem)
    url = _required_str(record, url_key, "the start URL", line, problem)
    if text is None or url is None:
        return None
    url = _fix_url(url, url_key, line, problem, base)
    if url is None:
        return None
    task_id = _task_id(record.get(id_key), id_key, line, problem)
    site = _site(record, site_key, url)
    used = {id_key, text_key, url_key, site_key}
    extra = {k: v for k, v in record.items() if k not in used}
    if "allowed_domains" in extra:  # the only sites this task may visit (cockpit.core.safety.navguard)
        domains = _allowed_domains(extra["allowed_domains"], line, problem)
        if domains is None:
            return None
        extra["allowed_domains"] = domains
    return Task(task_id, text, url, site, extra)


def _allowed_domains(value, line: int, problem) -> list[str] | None:
    """The normalised list, or None (with a problem) when it is not a list of domain names:
    such a task is skipped rather than run without the limits its author meant."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        problem(line, f'"allowed_domains" must be a non-empty list of domain names such as ["example.com"], '
                      f"got {_kind(value) if not isinstance(value, list) else 'an empty list'}; task skipped")
        return None
    try:
        return list(parse_domains(value))
    except CockpitError as e:
        problem(line, f'"allowed_domains": {str(e).split(": ", 1)[-1]}; task skipped')
        return None


def _required_str(record: dict, key: str, what: str, line: int, problem) -> str | None:
    if key not in record or record[key] is None:
        problem(line, f'missing "{key}" ({what})')
        return None
    value = record[key]
    if not isinstance(value, str):
        problem(line, f'"{key}" must be a string, got {_kind(value)}')
        return None
    if not value.strip():
        problem(line, f'"{key}" is empty ({what})')
        return None
    return value.strip()


def _fix_url(url: str, key: str, line: int, problem, base: Path) -> str | None:
    """The start URL to use; None (with a problem) for a local page that is not there."""
    if url.lower().startswith("file:"):  # an absolute file:// address: the same check as a path
        local = Path(unquote(urlsplit(url).path))
        kind = local_kind(local)
        if kind == "file":
            return url
        problem(line, f'"{key}" names a local file, but {local} '
                      f'{"is a folder, not a page" if kind == "folder" else "does not exist"}; task skipped')
        return None
    if _SCHEME.match(url) or url.startswith(("about:", "data:")):
        return url
    if _PLACEHOLDER_URL.match(url):
        problem(line, f'"{key}" is a placeholder ({url}); replace it with the site\'s address '
                      "before running")
        return url
    local = base / Path(url).expanduser()  # relative to the task file, wherever cockpit runs from
    kind = local_kind(local)
    if kind == "file":  # a page on this computer: `cockpit run` serves its folder on 127.0.0.1
        return local.resolve().as_uri()
    if looks_like_file(url) or (kind == "folder" and "." not in url.split("/")[0]):  # "pages/", not "x.com"
        where = local.resolve() if kind else local.absolute()
        what = "is a folder, not a page" if kind == "folder" else "does not exist"
        problem(line, f'"{key}" names a local file, but {where} {what}'
                      + ("" if Path(url).expanduser().is_absolute() else
                         " (a relative path is read from the task file's folder)") + "; task skipped")
        return None
    fixed = guess_scheme(url)
    problem(line, f'"{key}" has no scheme, using {fixed}', True)
    return fixed


def _task_id(value, key: str, line: int, problem) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # WebArena's task_id is a number
    if value is not None and value != "":
        problem(line, f'"{key}" must be a string, got {_kind(value)}; using task-{line}')
    return f"task-{line}"


def _site(record: dict, key: str | None, url: str) -> str:
    value = record.get(key) if key else None
    if isinstance(value, str) and value.strip():
        return value.strip()
    sites = record.get("sites")  # WebArena: "sites": ["shopping"]
    if key is None and isinstance(sites, list) and sites and isinstance(sites[0], str):
        return sites[0]
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
