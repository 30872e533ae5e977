"""Reference answers of a task, and the string checks against them (MMInA / WebArena / WebVoyager).

A run's config may hold reference answers: a WebVoyager list of
``{"type": "golden"|"possible", "ans": ...}``, or a WebArena/MMInA ``eval``
dict with ``reference_answers`` (``exact_match``, ``must_include``,
``fuzzy_match``). :func:`references_of` finds them; :func:`check_exact_match`
and :func:`check_must_include` score an answer by string comparison. The
fuzzy check needs a model and lives in :mod:`cockpit.core.review.judge`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OR_SEPARATOR = " |OR| "  # WebArena: "a |OR| b" in must_include means either will do


def normalize(text: str | None) -> str:
    """What the string checks compare: stripped, lower-case, runs of white space made one space."""
    return " ".join((text or "").split()).lower()


@dataclass
class References:
    """Reference answers of one task, in the shape the checks need.

    exact_match: alternatives; the answer passes when it equals any of them.
    must_include: strings that must appear in the answer; with
        ``include_all`` every one must (WebArena), else any one will do
        (WebVoyager's golden answers are alternatives). An item may hold
        WebArena's ``" |OR| "`` alternatives.
    fuzzy_match: statements the judge model must find implied by the answer;
        ``fuzzy_all`` as for must_include.
    unachievable: WebArena's ``fuzzy_match: "N/A"``: the right answer says the
        task cannot be done (``note`` is the task file's explanation).
    """

    source: str  # "webvoyager" | "webarena"
    exact_match: list[str] = field(default_factory=list)
    must_include: list[str] = field(default_factory=list)
    include_all: bool = True
    fuzzy_match: list[str] = field(default_factory=list)
    fuzzy_all: bool = True
    unachievable: bool = False
    note: str = ""

    @property
    def checks(self) -> list[str]:
        """Which checks apply: a subset of exact_match, must_include, fuzzy_match, in that order."""
        out = []
        if self.exact_match:
            out.append("exact_match")
        if self.must_include:
            out.append("must_include")
        if self.fuzzy_match or self.unachievable:
            out.append("fuzzy_match")
        return out

    def fuzzy_statements(self) -> list[str]:
        if self.unachievable:
            why = f" ({self.note.strip()})" if self.note.strip() else ""
            return [f"the task cannot be completed{why}"]
        return list(self.fuzzy_match)


def references_of(config: dict | None) -> References | None:
    """The reference answers a run's config holds, or None.

    Looked for in ``config["reference_answers"]`` (a WebVoyager list of
    ``{"type": "golden"|"possible", "ans": ...}``, or a WebArena dict) and in
    an ``eval`` dict at the top of the config or under ``task``, ``extra`` or
    ``task_extra`` (how a WebArena/MMInA task's ``eval`` may be kept).

    WebVoyager: only "golden" answers are checked; "possible" answers are
    examples among many acceptable ones, so no string check can score them.
    """
    config = config if isinstance(config, dict) else {}
    candidates: list[Any] = [config.get("reference_answers")]
    for holder in (config, config.get("task"), config.get("extra"), config.get("task_extra")):
        ev = holder.get("eval") if isinstance(holder, dict) else None
        if isinstance(ev, dict):
            candidates.append((ev.get("reference_answers"), ev.get("string_note")))
    for cand in candidates:
        note = ""
        if isinstance(cand, tuple):
            cand, note = cand
        refs = _webvoyager_refs(cand) if isinstance(cand, list) else (
            _webarena_refs(cand, note) if isinstance(cand, dict) else None)
        if refs is not None and refs.checks:
            return refs
    return None


def _webvoyager_refs(items: list) -> References | None:
    golden = [str(a.get("ans", "")).strip() for a in items
              if isinstance(a, dict) and str(a.get("type", "")).lower() == "golden"]
    golden = [g for g in golden if g]
    if not golden:
        return None
    return References("webvoyager", exact_match=golden, must_include=golden, include_all=False,
                      fuzzy_match=golden, fuzzy_all=False)


def _webarena_refs(ref: dict, note: Any = "") -> References:
    out = References("webarena", note=str(note or ""))
    exact = ref.get("exact_match")
    if isinstance(exact, (str, int, float)) and not isinstance(exact, bool) and str(exact).strip():
        out.exact_match = [str(exact)]
    include = ref.get("must_include")
    if isinstance(include, str):
        include = [include]
    if isinstance(include, list):
        out.must_include = [str(s) for s in include if str(s).strip()]
    fuzzy = ref.get("fuzzy_match")
    if isinstance(fuzzy, str) and fuzzy.strip().upper() == "N/A":
        out.unachievable = True
    elif isinstance(fuzzy, str) and fuzzy.strip():
        out.fuzzy_match = [fuzzy]
    elif isinstance(fuzzy, list):
        out.fuzzy_match = [str(s) for s in fuzzy if str(s).strip()]
    return out


def check_exact_match(answer: str | None, refs: References) -> int:
    """1 when the normalised answer equals a normalised reference, else 0 (no answer: 0)."""
    if answer is None:
        return 0
    got = normalize(answer)
    return int(any(got == normalize(r) for r in refs.exact_match))


def check_must_include(answer: str | None, refs: References) -> int:
    """1 when the normalised answer contains the required strings (all, or any; see References)."""
    if answer is None or not refs.must_include:
        return 0
    got = normalize(answer)

    def present(item: str) -> bool:
        return any(normalize(alt) and normalize(alt) in got for alt in item.split(OR_SEPARATOR))

    hits = [present(item) for item in refs.must_include]
    return int(all(hits) if refs.include_all else any(hits))
