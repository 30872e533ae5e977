"""WebArena's state evaluators, ``url_match`` and ``program_html``, as its evaluation harness scores them
(``evaluation_harness/evaluators.py``: ``URLEvaluator`` / ``URLExactEvaluator`` and
``HTMLContentEvaluator``). This module holds the rules; :mod:`cockpit.core.agent.state_checks` runs them in
the run's browser when the run ends, before anything else touches the page.

``url_match`` (rule ``url_note`` "GOLD in PRED", the only one WebArena's tasks use): the final URL and each
``reference_url`` alternative (split on ``" |OR| "``) lose a trailing ``/``; each becomes host + path and its
query parameters. The score is 1 when some reference's host + path is a *substring* of the final URL's
(WebArena's ``in`` on strings) and, for every query parameter of the references, one of its values is among
the final URL's values for it.

``program_html``: for each target, in order: open its ``url`` unless it is ``"last"`` (the page as the run
left it), then read what its ``locator`` selects: the whole page's HTML when empty; the value of a
``document.``/``[...document.`` expression (after its ``prep_actions``); a ``lambda:`` locator's function
called on the page. A locator that throws reads as ``""`` (WebArena: "the page is wrong"). HTML entities
are unescaped, then ``required_contents`` are checked: ``exact_match`` (equal after stripping one pair of
quotes and lower-casing), ``must_include`` (each item, or one of its ``" |OR| "`` alternatives, contained),
``must_exclude`` (none contained). The score is the product over targets.

A ``func:`` URL or locator calls one of WebArena's helpers in Python (``shopping_get_latest_order_url()``,
``reddit_get_post_url(...)``, ``get_query_text(__page__, ...)``...), most of them needing the real sites'
APIs or databases. They are never guessed: the check is *not evaluable here* (verdict None) and names the
function.
"""
from __future__ import annotations

import collections
import html
import re
import urllib.parse
from dataclasses import dataclass

OR = " |OR| "
STATE_CHECKS = ("url_match", "program_html")
#: Stored with the verdicts; change it when these rules change.
VERSION = "webarena-eval-1"
NAMES = {"url_match": "webarena:url_match", "program_html": "webarena:program_html"}


@dataclass
class Check:
    """One evaluator's outcome: verdict 1 / 0, or None when it cannot be evaluated here; what it compared."""
    name: str
    verdict: int | None
    detail: str


def eval_of(config: dict | None) -> dict | None:
    """A run config's WebArena ``eval`` dict (at the top, or under task / extra / task_extra), or None."""
    config = config if isinstance(config, dict) else {}
    for holder in (config, config.get("task"), config.get("extra"), config.get("task_extra")):
        ev = holder.get("eval") if isinstance(holder, dict) else None
        if isinstance(ev, dict):
            return ev
    return None


def state_checks(ev: dict | None) -> list[str]:
    """The state evaluators a task's ``eval_types`` asks for, in this module's order."""
    types = (ev or {}).get("eval_types") or []
    return [t for t in STATE_CHECKS if t in types]


# --------------------------------------------------------------------------- url_match


def _clean_url(url: str) -> str:
    return str(url).rstrip("/")


def _split(url: str) -> tuple[str, dict[str, list[str]]]:
    p = urllib.parse.urlparse(url)
    return p.netloc + p.path, urllib.parse.parse_qs(p.query)


def url_match(final_url: str, ev: dict) -> Check:
    refs_text = ev.get("reference_url") or ""
    rule = ev.get("url_note") or "GOLD in PRED"
    if rule != "GOLD in PRED":
        return Check("url_match", None, f"not evaluable here: url_note {rule!r} (WebArena knows only 'GOLD in PRED')")
    func = _func_name(refs_text)
    if func:
        return Check("url_match", None, f"not evaluable here: the reference URL calls WebArena's {func}()")
    refs = [_clean_url(u) for u in str(refs_text).split(OR) if u.strip()]
    if not refs:
        return Check("url_match", None, "not evaluable here: the task gives no reference_url")
    pred = _clean_url(final_url)
    pred_base, pred_query = _split(pred)
    ref_bases, ref_queries = [], collections.defaultdict(set)
    for u in refs:
        base, query = _split(u)
        ref_bases.append(base)
        for k, vs in query.items():
            ref_queries[k].update(vs)
    base_ok = any(b in pred_base for b in ref_bases)
    missing = [k for k, vs in ref_queries.items() if not any(v in pred_query.get(k, []) for v in vs)]
    ok = base_ok and not missing
    detail = f"final URL {pred!r} against {' or '.join(repr(r) for r in refs)}"
    if not base_ok:
        detail += ": no reference's host and path is part of it"
    elif missing:
        detail += f": query parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)} differ"
    return Check("url_match", int(ok), detail)


# --------------------------------------------------------------------------- program_html


_FUNC = re.compile(r"func:\s*([A-Za-z_][A-Za-z0-9_]*)")


def _func_name(text) -> str:
    m = _FUNC.search(str(text or ""))
    return m.group(1) if m else ""


@dataclass
class Target:
    """One program_html target as the browser must read it."""
    url: str  # "last": the page as the run left it
    kind: str  # "page" (whole HTML) | "expression" | "function"
    script: str
    prep: list[str]
    required: dict


def targets(ev: dict) -> tuple[list[Target], str]:
    """The targets to read, or ([], why not evaluable here)."""
    out = []
    for t in ev.get("program_html") or []:
        if not isinstance(t, dict):
            return [], "not evaluable here: a program_html target is not an object"
        url, locator = str(t.get("url") or "last"), str(t.get("locator") or "")
        for what, text in (("URL", url), ("locator", locator)):
            if func := _func_name(text):
                return [], f"not evaluable here: the target {what} calls WebArena's {func}()"
        if not locator.strip():
            kind, script = "page", ""
        elif locator.startswith("document.") or locator.startswith("[...document."):
            kind, script = "expression", locator
        elif locator.startswith("lambda:"):
            kind, script = "function", locator[len("lambda:"):].strip()
        else:
            return [], f"not evaluable here: unknown locator {locator[:60]!r}"
        required = t.get("required_contents") or {}
        if not any(k in required for k in ("exact_match", "must_include", "must_exclude")):
            return [], "not evaluable here: a target has no exact_match, must_include or must_exclude"
        prep = [str(p) for p in t.get("prep_actions") or []]
        out.append(Target(url, kind, script, prep, required))
    if not out:
        return [], "not evaluable here: the task lists no program_html targets"
    return out, ""


def _clean(text: str) -> str:
    text = str(text).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text.lower()


def content_ok(selected: str, required: dict) -> tuple[bool, str]:
    """Whether what a locator selected meets its required contents, and what failed."""
    got = _clean(html.unescape(selected or ""))
    if "exact_match" in required:
        want = _clean(required["exact_match"])
        return got == want, "" if got == want else f"{got[:80]!r} is not {want!r}"
    for item in _as_list(required.get("must_include")):
        alts = [_clean(a) for a in str(item).split(OR)]
        if not any(a in got for a in alts):
            return False, f"{' or '.join(repr(a) for a in alts)} not found"
    for item in _as_list(required.get("must_exclude")):
        if _clean(item) in got:
            return False, f"{_clean(item)!r} is there"
    return True, ""


def _as_list(value) -> list:
    return [] if value is None else value if isinstance(value, list) else [value]
