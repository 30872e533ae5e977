"""Multihop tasks (MMInA): per-hop completion conditions, a tracker, and the hop report.

MMInA (seed 002, section 3.5) evaluates a task of N hops with a queue of N
completion conditions followed by an END marker. A hop passes when the agent
reaches its required state (a URL containing given strings) or gives its
required answer; hops pass strictly in order (hop k+1 is only checked once hop
k passed), and the task succeeds when the queue is down to END. Two rates are
reported: hop success rate (hops passed / hops) and task success rate (tasks
with every hop passed / tasks), and MMInA Table 3 breaks the hop success down
by task length (rows: tasks of N hops; columns: hop 1..N).

Conditions
----------
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

One update may pass several hops in a row (a page that satisfies hop k and
hop k+1 passes both).

Where conditions come from (:func:`conditions_for` / :func:`tracker_for`)
-----------------------------------------------------------------------
From a task's ``extra`` (the task-file fields Cockpit keeps, see
:mod:`cockpit.core.tasks.taskfile`), first match wins:

1. ``hops``: Cockpit's explicit form, a list of hop conditions as
   :meth:`HopCondition.to_dict` writes them (a bare string means "URL
   contains it").
2. ``procedure`` (MMInA): hop names, ending in ``"end"`` (case-insensitive;
   everything from the first ``"end"`` on is the END marker, and a list
   without it is taken whole). The number of hops is the number of names.
   MMInA also has ``cnt_hop``; in its released configs it does not always
   equal the names before "end" (task 17: ``cnt_hop`` 3, ``procedure``
   ``["kiwix", "event", "end"]``), so the procedure decides and ``cnt_hop``
   is only kept in :meth:`HopTracker.to_dict` as ``declared_hops``.
   Each hop's condition, in order of preference:

   a. per-hop eval: a procedure item that is an object ``{"name": ...,
      "eval": {...}}`` (or that carries the condition fields directly), or an
      ``eval`` that is a list with one WebArena-style eval object per hop;
      each eval object gives ``reference_url`` (the URL part; ``" |OR| "``
      alternatives, and ``" |AND| "`` parts that must all be in the one URL)
      and ``reference_answers`` (the answer part, ``answer_with_url``);
   b. the task's single ``eval``: when its ``reference_url`` has exactly one
      ``" |AND| "`` part per hop, part k is hop k's URL part;
   c. the hop's name, read as MMInA's website kinds (see
      :data:`SITE_MARKERS`): the URL must contain the site's marker and the
      task's keyword for that site (``flight``: the airport code in
      ``extra["flight"]``; ``shop``: ``extra["shop"]``; other sites:
      ``extra["city"]``). A Wikipedia hop (``kiwix``/``wiki``) is an
      information hop: it passes when the agent has left Wikipedia for a page
      naming ``extra["city"]`` (or any non-Wikipedia page without a city).
      A name Cockpit does not know is its own marker.

   The task's ``eval.reference_answers`` (when ``eval`` is one object) is
   added to the last hop as its answer part, read MMInA's way (answer and
   final URL together).
3. No procedure, but ``hops``-like information in a WebArena eval:
   ``eval.reference_url`` split on ``" |AND| "`` gives one hop per part, in
   order (a single page cannot be several different URLs at once, so AND
   means "visited in turn", MMInA's "all required websites visited in
   order"); within a part ``" |OR| "`` separates alternatives (any of). The
   ``reference_answers`` become the last hop's answer part. A task with
   ``cnt_hop`` but nothing to check, or with only reference answers and no
   ``reference_url``/``procedure``/``cnt_hop`` (a plain WebArena QA task),
   gets no tracker.

Stored as: ``runs.hops`` (the tracker's :meth:`HopTracker.to_dict` at the end
of the run) and ``steps.hops`` (:meth:`HopTracker.snapshot` after each step).
Qt-free.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Mapping
from urllib.parse import unquote, unquote_plus

END = "end"
AND_SEP = "|AND|"
OR_SEP = "|OR|"

#: MMInA's website kinds (hop names in ``procedure``) -> (URL marker, keyword field of the task).
#: Markers come from the reference websites every MMInA intent lists (paper Table A2); a keyword
#: field names the task field whose value must also be in the URL ("" = none).
SITE_MARKERS: dict[str, tuple[str, str]] = {
    "kiwix": ("kiwix", "city"), "wiki": ("kiwix", "city"), "wikipedia": ("kiwix", "city"),
    "flight": ("momondo", "flight"),
    "shop": (":7770", "shop"), "shopping": (":7770", "shop"),
    "hotel": ("trip.com/hotels", "city"),
    "car": ("trip.com/carhire", "city"),
    "event": ("eventbrite", "city"),
    "food": ("timeout.com", "city"),
    "travel": ("nomadicmatt", "city"),
    "exchange": ("xe.com", ""),
    "twitter": ("twitter.com", ""),
    "youtube": ("youtube.com", ""),
}
_WIKI = ("kiwix", "wiki", "wikipedia")
_PLACEHOLDER = re.compile(r"^__[A-Z0-9_]+__")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)


# ---------------------------------------------------------------- conditions

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
            alts = _split(url, OR_SEP)
            url, mode = tuple(alts), ("any" if len(alts) > 1 else mode)
        exact = d.get("exact_match")
        return cls(name=str(d.get("name") or name), url=tuple(str(s) for s in url), url_mode=mode,
                   not_url=_strs(d.get("not_url")), must_include=_strs(d.get("must_include")),
                   exact_match=str(exact) if exact is not None else None,
                   fuzzy_match=_strs(d.get("fuzzy_match")), answer_with_url=bool(d.get("answer_with_url")))


# ---------------------------------------------------------------- the tracker

class HopTracker:
    """The queue of hop conditions ending in END; hops pass in order.

    Hops are numbered from 1. ``update(url, answer)`` is called after each
    observation (with the page URL) and on ANSWER (with the answer and the URL
    it was given on); it returns the hops that passed with it.
    """

    def __init__(self, conditions: Iterable[HopCondition], *,
                 fuzzy: Callable[[str, str], bool] | None = None, declared: int | None = None):
        self.conditions: tuple[HopCondition, ...] = tuple(conditions)
        self.fuzzy = fuzzy
        self.declared = declared  # MMInA's cnt_hop, when the task gave one (informative only)
        self.passed = 0
        self.steps: list[int | None] = []  # step at which each passed hop passed
        self._url_met = False  # the current hop's URL part was met while it was current

    # ---------- state ----------
    @property
    def total(self) -> int:
        return len(self.conditions)

    @property
    def done(self) -> bool:
        """The queue is down to END: every hop passed."""
        return self.passed >= self.total

    @property
    def progress(self) -> tuple[int, int]:
        """(hops passed, hops)."""
        return self.passed, self.total

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    @property
    def current(self) -> HopCondition | None:
        """The hop to pass next; None once END is reached."""
        return None if self.done else self.conditions[self.passed]

    def name(self, hop: int) -> str:
        """Hop `hop`'s name (1-based); "hop k" when it has none."""
        return self.conditions[hop - 1].name or f"hop {hop}"

    def names(self) -> list[str]:
        return [self.name(k) for k in range(1, self.total + 1)]

    def fresh(self) -> HopTracker:
        """The same queue with nothing passed (one tracker per run)."""
        return HopTracker(self.conditions, fuzzy=self.fuzzy, declared=self.declared)

    # ---------- progress ----------
    def update(self, url: str | None, answer: str | None = None, *, step: int | None = None) -> list[int]:
        """Check the current hop (and the next, while they pass) against a page URL and maybe an answer."""
        url = url or ""
        new: list[int] = []
        while not self.done:
            cond = self.conditions[self.passed]
            if cond.has_url and not self._url_met and url and cond.url_ok(url):
                self._url_met = True
            url_ok = self._url_met or not cond.has_url
            answer_ok = (not cond.has_answer) or (answer is not None and cond.answer_ok(answer, url, self.fuzzy))
            if not (cond.has_url or cond.has_answer) or not (url_ok and answer_ok):
                break
            self.passed += 1
            self.steps.append(step)
            self._url_met = False
            new.append(self.passed)
        return new

    def snapshot(self, new: Iterable[int] = ()) -> dict:
        """A step's record: progress after it and the hops it passed."""
        return {"passed": self.passed, "total": self.total, "new": list(new)}

    def to_dict(self) -> dict:
        return {
            "total": self.total, "passed": self.passed, "done": self.done,
            "declared_hops": self.declared,
            "hops": [dict(c.to_dict(), hop=k, name=self.name(k), condition=c.describe(),
                          passed=k <= self.passed, step=self.steps[k - 1] if k <= self.passed else None)
                     for k, c in enumerate(self.conditions, 1)],
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> HopTracker:
        """Restore a tracker from :meth:`to_dict` (the conditions and how far it got)."""
        t = cls([HopCondition.from_dict(h) for h in d.get("hops", [])], declared=d.get("declared_hops"))
        t.passed = min(int(d.get("passed") or 0), t.total)
        t.steps = [h.get("step") for h in d.get("hops", [])[:t.passed]]
        return t

    def __repr__(self) -> str:
        return f"HopTracker({self.passed}/{self.total}: {', '.join(self.names())})"


# ---------------------------------------------------------------- from task configs

def tracker_for(task_extra: Mapping | None, *, fuzzy: Callable[[str, str], bool] | None = None
                ) -> HopTracker | None:
    """A tracker for a task whose extra fields carry hop information, else None (see the module doc)."""
    conditions = conditions_for(task_extra)
    if not conditions:
        return None
    declared = (task_extra or {}).get("cnt_hop")
    declared = declared if isinstance(declared, int) and not isinstance(declared, bool) else None
    return HopTracker(conditions, fuzzy=fuzzy, declared=declared)


def has_hops(task_extra: Mapping | None) -> bool:
    return bool(conditions_for(task_extra))


def conditions_for(task_extra: Mapping | None) -> list[HopCondition]:
    """The hop conditions a task's extra fields describe, in order (empty: not a hop task)."""
    extra = task_extra or {}
    explicit = extra.get("hops")
    if isinstance(explicit, list) and explicit:
        return [HopCondition.from_dict(h, f"hop {k}") for k, h in enumerate(explicit, 1)
                if isinstance(h, (str, Mapping))]
    ev = extra.get("eval")
    procedure = extra.get("procedure")
    if isinstance(procedure, list) and procedure:
        return _from_procedure(procedure, ev, extra)
    if isinstance(ev, Mapping):
        hops = _url_hops(ev.get("reference_url"))
        answer = _answer_part(ev)
        if not hops:
            return []
        named = [replace(h, name=f"hop {k}") for k, h in enumerate(hops, 1)]
        if answer is not None:
            named[-1] = _with_answer(named[-1], answer, with_url=False)
        return named
    return []


def _from_procedure(procedure: list, ev, extra: Mapping) -> list[HopCondition]:
    items = []
    for item in procedure:
        name = item.get("name", "") if isinstance(item, Mapping) else str(item)
        if str(name).strip().lower() == END:
            break
        items.append(item)
    if not items:
        return []
    names = [str(i.get("name") or f"hop {k}") if isinstance(i, Mapping) else str(i).strip()
             for k, i in enumerate(items, 1)]
    per_hop_evals = ev if isinstance(ev, list) and len(ev) == len(items) else None
    task_eval = ev if isinstance(ev, Mapping) else {}
    url_parts = _url_hops(task_eval.get("reference_url"))
    if len(url_parts) != len(items):
        url_parts = []
    out = []
    for k, (item, name) in enumerate(zip(items, names)):
        cond = None
        if isinstance(item, Mapping):
            if isinstance(item.get("eval"), Mapping):
                cond = _from_eval(item["eval"], name)
            elif any(key in item for key in ("url", "not_url", "must_include", "exact_match", "fuzzy_match")):
                cond = HopCondition.from_dict(item, name)
        if cond is None and per_hop_evals is not None and isinstance(per_hop_evals[k], Mapping):
            cond = _from_eval(per_hop_evals[k], name)
        if cond is None and url_parts:
            cond = replace(url_parts[k], name=name)
        if cond is None:
            nxt = names[k + 1] if k + 1 < len(names) else None
            cond = _from_name(name, extra, nxt)
        out.append(cond)
    answer = _answer_part(task_eval) if task_eval else None
    if answer is not None and per_hop_evals is None:
        out[-1] = _with_answer(out[-1], answer, with_url=True)
    return out


def _from_eval(ev: Mapping, name: str) -> HopCondition:
    hops = _url_hops(ev.get("reference_url"))
    url = hops[0] if len(hops) == 1 else HopCondition()
    if len(hops) > 1:
        # " |AND| " inside one hop's own eval: every part on the page (each part's first alternative)
        url = HopCondition(url=tuple(h.url[0] for h in hops), url_mode="all")
    cond = replace(url, name=name)
    answer = _answer_part(ev)
    return _with_answer(cond, answer, with_url=True) if answer is not None else cond


def _from_name(name: str, extra: Mapping, next_name: str | None) -> HopCondition:
    key = _site_key(name)
    city = _kw(extra.get("city"))
    if key in _WIKI:
        if next_name is None:  # the only/last hop is on Wikipedia: being there is all a URL can say
            return HopCondition(name=name, url=(SITE_MARKERS[key][0],))
        return HopCondition(name=name, url=(city,) if city else (), not_url=(SITE_MARKERS[key][0],))
    marker, field_name = SITE_MARKERS.get(key, (name.strip().lower(), ""))
    keyword = _kw(extra.get(field_name)) if field_name else ""
    return HopCondition(name=name, url=(marker, keyword) if keyword else (marker,))


def _site_key(name: str) -> str:
    low = name.strip().lower()
    if low in SITE_MARKERS:
        return low
    for key in SITE_MARKERS:  # "book a flight" -> flight
        if re.search(rf"\b{re.escape(key)}", low):
            return key
    return low


def _kw(value) -> str:
    return value.strip().lower() if isinstance(value, str) else ""


def _url_hops(reference_url) -> list[HopCondition]:
    """WebArena's reference_url: " |AND| " parts are hops in turn, " |OR| " alternatives within one."""
    if isinstance(reference_url, list):
        reference_url = f" {AND_SEP} ".join(str(u) for u in reference_url if u)
    if not isinstance(reference_url, str) or not reference_url.strip():
        return []
    hops = []
    for part in _split(reference_url, AND_SEP):
        alts = tuple(a for a in (_ref(x) for x in _split(part, OR_SEP)) if a)
        if alts:
            hops.append(HopCondition(url=alts, url_mode="any" if len(alts) > 1 else "all"))
    return hops


def _answer_part(ev: Mapping) -> HopCondition | None:
    ra = ev.get("reference_answers")
    if not isinstance(ra, Mapping):
        return None
    must = _strs(ra.get("must_include"))
    exact = ra.get("exact_match")
    fuzzy = _strs(ra.get("fuzzy_match"))
    if not (must or fuzzy or (isinstance(exact, (str, int, float)) and str(exact).strip())):
        return None
    return HopCondition(must_include=must, fuzzy_match=fuzzy,
                        exact_match=str(exact) if isinstance(exact, (str, int, float)) and str(exact).strip()
                        else None)


def _with_answer(cond: HopCondition, answer: HopCondition, *, with_url: bool) -> HopCondition:
    return replace(cond, must_include=answer.must_include, exact_match=answer.exact_match,
                   fuzzy_match=answer.fuzzy_match, answer_with_url=with_url)


def _split(text: str, sep: str) -> list[str]:
    return [p.strip() for p in re.split(rf"\s*{re.escape(sep)}\s*", text) if p.strip()]


def _ref(ref: str) -> str:
    """A reference URL as a containment string: no scheme, www. or trailing slash; placeholders to paths."""
    r = _PLACEHOLDER.sub("", ref.strip())
    r = _SCHEME.sub("", r)
    if r.lower().startswith("www."):
        r = r[4:]
    return r.rstrip("/") or r


def _strs(value) -> tuple[str, ...]:
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


# ---------------------------------------------------------------- reading back and reporting

def run_hops(store, run_id: str) -> dict | None:
    """A run's final hop result (``runs.hops``), or None when it was not tracked."""
    return store.run_hops(run_id)


def step_hops(store, run_id: str) -> dict[int, dict]:
    """Each tracked step's hop progress: ``{step: {"passed", "total", "new"}}``."""
    return store.step_hops(run_id)


def _bucket(n: int) -> str:
    return "1 hop" if n == 1 else ("2-4 hops" if n <= 4 else "5+ hops")


def _rate(ok: int, n: int) -> float | None:
    return ok / n if n else None


def hop_report(store, run_ids: Iterable[str] | None = None, *, batch: str | None = None) -> dict:
    """Hop and task success over runs with a hop result (running runs left out).

    * ``hop_success_rate``: hops passed / hops, over all runs;
    * ``task_success_rate``: runs with every hop passed / runs;
    * ``by_length``: MMInA Table 3's shape, one row per task length N (hops),
      ``per_hop[j]`` = share of those runs that passed hop j+1 (hops pass in
      order, so a run that passed k hops passed hops 1..k);
    * ``by_bucket``: MMInA Table 2's columns (1 hop, 2-4 hops, 5+ hops).
    Rates are None where there is nothing to divide by.
    """
    ids = None if run_ids is None else list(run_ids)
    if ids is not None and not ids:
        return _empty_report()
    rows = store.hop_results(ids, batch)
    results = []
    for r in rows:
        try:
            d = json.loads(r["hops"])
            total, passed = int(d["total"]), int(d["passed"])
        except (ValueError, KeyError, TypeError):
            continue
        if total > 0:
            results.append((r["id"], r["task_id"], total, min(passed, total)))
    rep = _empty_report()
    if not results:
        return rep
    hops = sum(t for _, _, t, _ in results)
    hops_ok = sum(p for _, _, _, p in results)
    tasks_ok = sum(1 for _, _, t, p in results if p == t)
    rep.update(runs=len(results), hops=hops, hops_passed=hops_ok, hop_success_rate=_rate(hops_ok, hops),
               tasks_passed=tasks_ok, task_success_rate=_rate(tasks_ok, len(results)))
    lengths: dict[int, list[int]] = {}
    for _, _, t, p in results:
        lengths.setdefault(t, []).append(p)
    rep["by_length"] = [{
        "hops": n, "runs": len(ps),
        "tasks_passed": sum(1 for p in ps if p == n), "task_success_rate": _rate(sum(1 for p in ps if p == n), len(ps)),
        "hop_success_rate": _rate(sum(ps), n * len(ps)),
        "per_hop": [_rate(sum(1 for p in ps if p >= j), len(ps)) for j in range(1, n + 1)],
    } for n, ps in sorted(lengths.items())]
    buckets: dict[str, list[tuple[int, int]]] = {}
    for _, _, t, p in results:
        buckets.setdefault(_bucket(t), []).append((t, p))
    rep["by_bucket"] = [{
        "bucket": b, "runs": len(tp),
        "hop_success_rate": _rate(sum(p for _, p in tp), sum(t for t, _ in tp)),
        "task_success_rate": _rate(sum(1 for t, p in tp if p == t), len(tp)),
    } for b in ("1 hop", "2-4 hops", "5+ hops") if (tp := buckets.get(b))]
    rep["runs_list"] = [{"run_id": i, "task_id": tid, "hops": t, "passed": p} for i, tid, t, p in results]
    return rep


def _empty_report() -> dict:
    return {"runs": 0, "hops": 0, "hops_passed": 0, "hop_success_rate": None, "tasks_passed": 0,
            "task_success_rate": None, "by_length": [], "by_bucket": [], "runs_list": []}
