"""Procedural memory (MMInA section 4.4): past successful runs of similar tasks as prompt examples.

Before a run, :func:`retrieve` finds the K past runs most similar to the new
task and :func:`memory_text` turns their action sequences into a short section
of the first prompt. MMInA found K = 1 or 2 best; more history gave nothing.

Similarity: full-text search over the run store's task text (the ``runs_fts``
FTS5 table, porter stemming), ranked by ``bm25``. The query is the task's
words (lower-cased, de-duplicated, common English stop words and one-letter
words dropped) joined with OR, so a past task sharing only some words still
matches; the more rare words it shares, the better it ranks. Only the task
column is searched (not the answers).

Which past runs count as successful, in order of preference:

1. *confirmed*: the human consensus says success
   (:func:`cockpit.core.review.consensus.consensus`), or, for runs with no human
   consensus, the newest decided judge verdict is 1 (the same rule as
   :func:`cockpit.core.review.outcomes.run_outcomes`);
2. *answered*: runs that ended with an ANSWER (status ``answered``) and that no
   human and no judge has decided on. They fill the remaining places only when
   fewer than K confirmed runs match.

A run humans or a judge failed is never used, nor a run still going, nor the
run being made (``exclude``). Within each tier the order is bm25's.

A :class:`Memory` holds the run's agent steps that did something (status
``ok``), in their canonical action form (``Click [3]``, ``Type [2]; query``),
and the final ANSWER shortened. Element numbers belong to the pages of that
run; the prompt section says so. Qt-free.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cockpit.core.review.consensus import CODES, consensus

HEADER = "Examples of how similar tasks were done before:"
FOOTER = ("(Element numbers in these examples belong to the pages of those runs; "
          "use the numbers on the current screenshot.)")
MAX_ANSWER = 80  # characters of a memory's answer kept in its ANSWER action
MAX_ACTIONS = 30  # actions of one memory shown in the prompt
MAX_QUERY_WORDS = 32
_CANDIDATES = 50  # FTS matches looked at before filtering by success

STOP_WORDS = frozenset("""
a about above after again all also am an and any are as at be been before being below between both but by
can could did do does doing down during each few find for from further get give had has have having he her
here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only
or other our out over own please same she should show so some such tell than that the their them then there
these they this those through to too under until up very was we were what when where which while who whom
why will with would you your
""".split())


@dataclass(frozen=True)
class Memory:
    run_id: str
    task: str
    actions: tuple[str, ...]
    answer: str | None = None
    source: str = "answered"  # "human" | "judge" (confirmed) | "answered" (nobody judged it)
    score: float = 0.0  # bm25 (lower is more similar)

    def to_dict(self) -> dict:
        return {"run_id": self.run_id, "task": self.task, "actions": list(self.actions),
                "answer": self.answer, "source": self.source, "score": self.score}


def query_words(text: str) -> list[str]:
    seen: list[str] = []
    for w in re.findall(r"\w+", text.lower()):
        if len(w) > 1 and w not in STOP_WORDS and w not in seen:
            seen.append(w)
    return seen[:MAX_QUERY_WORDS]


def fts_query(text: str) -> str | None:
    """The FTS5 MATCH expression for a task text: its words, quoted, ORed, in the task column."""
    words = query_words(text)
    if not words:
        return None
    return "task : (" + " OR ".join('"' + w.replace('"', '""') + '"' for w in words) + ")"


def retrieve(store, task_text: str, k: int = 2, *, exclude=None) -> list[Memory]:
    """The `k` most similar past successful runs, most similar first (see the module doc)."""
    if k <= 0:
        return []
    query = fts_query(task_text)
    if query is None:
        return []
    excluded = {exclude} if isinstance(exclude, str) else set(exclude or ())
    rows = store.similar_runs(query, _CANDIDATES + len(excluded))
    rows = [r for r in rows if r["id"] not in excluded]
    if not rows:
        return []
    outcome = _outcomes(store, [r["id"] for r in rows])
    confirmed, answered = [], []
    for r in rows:
        ok, source = outcome.get(r["id"], (None, ""))
        if ok == 1:
            confirmed.append((r, source))
        elif ok is None and r["status"] == "answered":
            answered.append((r, "answered"))
    chosen = (confirmed + answered)[:k]
    return [Memory(r["id"], r["task"], tuple(_actions(store, r["id"])), r["answer"], source, r["score"])
            for r, source in chosen]


def _outcomes(store, run_ids: list[str]) -> dict[str, tuple[int | None, str]]:
    """(1 | 0 | None, source) per run: human consensus, else the newest decided judge verdict."""
    matrix: dict[str, dict] = {}
    for row in store.run_labels(run_ids):
        if row["verdict"] in CODES:  # a run found not executable has no consensus: not a confirmed memory
            matrix.setdefault(row["run_id"], {})[row["annotator"]] = CODES[row["verdict"]]
    cons = consensus(store, matrix)
    out: dict[str, tuple[int | None, str]] = {rid: (v, "human") for rid, v in cons.items()}
    newest: dict[str, tuple[float, int]] = {}
    for v in store.decided_verdicts(run_ids):
        t = v["created"] or 0.0
        if v["run_id"] not in newest or t >= newest[v["run_id"]][0]:
            newest[v["run_id"]] = (t, int(v["verdict"]))
    for rid, (_, verdict) in newest.items():
        out.setdefault(rid, (verdict, "judge"))
    return out


def _actions(store, run_id: str) -> list[str]:
    out = []
    for r in store.agent_actions(run_id):
        a = r["action"]
        if r["status"] == "answered" or a.upper().startswith("ANSWER"):
            a = _short_answer(a)
        out.append(a)
    return out


def _short_answer(action: str) -> str:
    text = action.split(";", 1)[1].strip() if ";" in action else ""
    if len(text) > MAX_ANSWER:
        text = text[:MAX_ANSWER - 3].rstrip() + "..."
    return f"ANSWER; {text}" if text else "ANSWER"


def memory_text(memories: list[Memory]) -> str:
    """The prompt section: the header, then each memory's task and numbered actions ("" for none)."""
    if not memories:
        return ""
    lines = [HEADER]
    for i, m in enumerate(memories, 1):
        lines.append(f"Example {i}. Task: {_clean(m.task)}")
        actions = list(m.actions[:MAX_ACTIONS])
        if len(m.actions) > MAX_ACTIONS:
            actions.append(f"... ({len(m.actions) - MAX_ACTIONS} more actions)")
        for n, a in enumerate(actions, 1):
            lines.append(f"  {n}. {_clean(a)}")
        if not actions:
            lines.append("  (no recorded actions)")
    lines.append(FOOTER)
    return "\n".join(lines)


def _clean(text: str) -> str:
    # One line each, and never the word the prompt uses to cut a clipped turn ("Observation:").
    return " ".join(str(text).split()).replace("Observation:", "Observation -")


def used_memories(store, run_id: str) -> list[str] | None:
    """The run ids a run was given as memories (None: memory was off for it)."""
    return store.used_memories(run_id)
