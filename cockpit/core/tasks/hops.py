"""Multihop tasks (MMInA): the hop tracker, and hop conditions from task configs.

MMInA (seed 002, section 3.5) evaluates a task of N hops with a queue of N
completion conditions followed by an END marker. A hop passes when the agent
reaches its required state (a URL containing given strings) or gives its
required answer; hops pass strictly in order (hop k+1 is only checked once hop
k passed), and the task succeeds when the queue is down to END. Two rates are
reported: hop success rate (hops passed / hops) and task success rate (tasks
with every hop passed / tasks), and MMInA Table 3 breaks the hop success down
by task length (rows: tasks of N hops; columns: hop 1..N).

A hop's condition is a :class:`~cockpit.core.tasks.hop_conditions.HopCondition`
(what it checks: see :mod:`cockpit.core.tasks.hop_conditions`); the report
over stored runs is :mod:`cockpit.core.tasks.hop_report`. Import them from
there. One update of the tracker may pass several hops in a row (a page that
satisfies hop k and hop k+1 passes both).

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

import re
from dataclasses import replace
from typing import Callable, Iterable, Mapping

from cockpit.core.tasks.hop_conditions import AND_SEP, OR_SEP, HopCondition, as_strs, split_ref

END = "end"

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
    for part in split_ref(reference_url, AND_SEP):
        alts = tuple(a for a in (_ref(x) for x in split_ref(part, OR_SEP)) if a)
        if alts:
            hops.append(HopCondition(url=alts, url_mode="any" if len(alts) > 1 else "all"))
    return hops


def _answer_part(ev: Mapping) -> HopCondition | None:
    ra = ev.get("reference_answers")
    if not isinstance(ra, Mapping):
        return None
    must = as_strs(ra.get("must_include"))
    exact = ra.get("exact_match")
    fuzzy = as_strs(ra.get("fuzzy_match"))
    if not (must or fuzzy or (isinstance(exact, (str, int, float)) and str(exact).strip())):
        return None
    return HopCondition(must_include=must, fuzzy_match=fuzzy,
                        exact_match=str(exact) if isinstance(exact, (str, int, float)) and str(exact).strip()
                        else None)


def _with_answer(cond: HopCondition, answer: HopCondition, *, with_url: bool) -> HopCondition:
    return replace(cond, must_include=answer.must_include, exact_match=answer.exact_match,
                   fuzzy_match=answer.fuzzy_match, answer_with_url=with_url)


def _ref(ref: str) -> str:
    """A reference URL as a containment string: no scheme, www. or trailing slash; placeholders to paths."""
    r = _PLACEHOLDER.sub("", ref.strip())
    r = _SCHEME.sub("", r)
    if r.lower().startswith("www."):
        r = r[4:]
    return r.rstrip("/") or r
