"""Multihop tasks (MMInA): the completion condition of one hop (:class:`HopCondition`).

A :class:`HopCondition` has an optional URL part and an optional answer part;
a hop passes when every part it has is met while it is the current hop:

* URL part: the page URL contains all (``url_mode="all"``) or any
  (``"any"``) of ``url``, and none of ``not_url``. Matching ignores case and
  is tried on the URL as is and percent/plus-decoded. A reference that is a
  whole URL is compared without its scheme, ``www.`` and trailing slash; a
  WebArena placeholder host (``__SHOPPING__/path``) is reduced to its path.
  Once met while the hop is current the URL part stays met, so an agent that
  found the page and went on to answer elsewhere keeps the credit.
* Answer part (checked only on ANSWER): ``must_include`` (every keyword in
  the answer, case-insensitive), ``exact_match`` (equal after trimming,
  lower-casing and dropping a final full stop), ``fuzzy_match`` (MMInA asks an
  LLM "Given the statement {pred}, would it be correct to infer {reference}?";
  pass ``fuzzy=`` to :class:`HopTracker` to do that; offline the stand-in is
  "every reference appears in the answer"). With ``answer_with_url`` the
  text checked is the answer followed by the URL it was given on, as MMInA's
  evaluator does.

See :mod:`cockpit.core.tasks.hops` for the tracker that checks the hops in
order, and where conditions come from. Qt-free.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping
from urllib.parse import unquote, unquote_plus

AND_SEP = "|AND|"
OR_SEP = "|OR|"


@dataclass(frozen=True)
class HopCondition:
    """What one hop needs: a URL part, an answer part, or both (see the module doc)."""
    name: str = ""
    url: tuple[str, ...] = ()
    url_mode: str = "all"  # "all" | "any"
    not_url: tuple[str, ...] = ()
    must_include: tuple[str, ...] = ()
    exact_match: str | None = None
    fuzzy_match: tuple[str, ...] = ()
    answer_with_url: bool = False

    def __post_init__(self):
        if self.url_mode not in ("all", "any"):
            raise ValueError(f"url_mode is 'all' or 'any', not {self.url_mode!r}")

    @property
    def has_url(self) -> bool:
        return bool(self.url or self.not_url)

    @property
    def has_answer(self) -> bool:
        return bool(self.must_include or self.exact_match is not None or self.fuzzy_match)

    def url_ok(self, url: str) -> bool:
        forms = _url_forms(url)
        if any(_contains(forms, s) for s in self.not_url):
            return False
        if not self.url:
            return True
        hits = [_contains(forms, s) for s in self.url]
        return all(hits) if self.url_mode == "all" else any(hits)

    def answer_ok(self, answer: str, url: str = "",
                  fuzzy: Callable[[str, str], bool] | None = None) -> bool:
        text = f"{answer}\n{url}" if self.answer_with_url and url else answer
        low = text.lower()
        if any(k.lower() not in low for k in self.must_include):
            return False
        if self.exact_match is not None and _norm_answer(answer) != _norm_answer(self.exact_match):
            return False
        for ref in self.fuzzy_match:
            ok = fuzzy(text, ref) if fuzzy else _norm_answer(ref) in _norm_answer(text)
            if not ok:
                return False
        return True

    def describe(self) -> str:
        parts = []
        if self.url:
            joiner = " and " if self.url_mode == "all" else " or "
            parts.append("URL contains " + joiner.join(repr(s) for s in self.url))
        if self.not_url:
            parts.append("URL without " + ", ".join(repr(s) for s in self.not_url))
        if self.must_include:
            parts.append("answer includes " + ", ".join(repr(s) for s in self.must_include))
        if self.exact_match is not None:
            parts.append(f"answer is {self.exact_match!r}")
        if self.fuzzy_match:
            parts.append("answer implies " + ", ".join(repr(s) for s in self.fuzzy_match))
        return "; ".join(parts) or "(nothing to check: never passes)"

    def to_dict(self) -> dict:
        d: dict = {"name": self.name}
        if self.url:
            d["url"] = list(self.url)
            d["url_mode"] = self.url_mode
        if self.not_url:
            d["not_url"] = list(self.not_url)
        if self.must_include:
            d["must_include"] = list(self.must_include)
        if self.exact_match is not None:
            d["exact_match"] = self.exact_match
        if self.fuzzy_match:
            d["fuzzy_match"] = list(self.fuzzy_match)
        if self.answer_with_url:
            d["answer_with_url"] = True
        return d

    @classmethod
    def from_dict(cls, d: Mapping | str, name: str = "") -> HopCondition:
        """From :meth:`to_dict`'s shape; a bare string is "URL contains it"."""
        if isinstance(d, str):
            return cls(name=name, url=(d,))
        url = d.get("url", ())
        mode = d.get("url_mode", "all")
        if isinstance(url, str):  # a WebArena-style "a |OR| b" string is welcome here too
            alts = split_ref(url, OR_SEP)
            url, mode = tuple(alts), ("any" if len(alts) > 1 else mode)
        exact = d.get("exact_match")
        return cls(name=str(d.get("name") or name), url=tuple(str(s) for s in url), url_mode=mode,
                   not_url=as_strs(d.get("not_url")), must_include=as_strs(d.get("must_include")),
                   exact_match=str(exact) if exact is not None else None,
                   fuzzy_match=as_strs(d.get("fuzzy_match")), answer_with_url=bool(d.get("answer_with_url")))


def split_ref(text: str, sep: str) -> list[str]:
    return [p.strip() for p in re.split(rf"\s*{re.escape(sep)}\s*", text) if p.strip()]


def as_strs(value) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value if v is not None and str(v).strip())
    return (str(value),)


def _url_forms(url: str) -> tuple[str, ...]:
    low = url.lower()
    forms = {low, unquote(low), unquote_plus(low)}
    return tuple(forms)


def _contains(forms: tuple[str, ...], s: str) -> bool:
    s = s.lower()
    variants = {s, unquote(s), unquote_plus(s)}
    return any(v and v in f for v in variants for f in forms)


def _norm_answer(text: str) -> str:
    return " ".join(str(text).strip().lower().split()).rstrip(".")
