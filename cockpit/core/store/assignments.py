"""Annotation batches: a named set of runs, N annotators per run, a guideline; each annotator's queue.

A batch is made once (:func:`assign`) and not changed after. Runs are dealt to the annotators in the
order given, each run to the ``per_run`` annotators with the fewest runs so far (ties: the order the
annotators were named in), so every annotator gets the same number of runs, give or take one, and the
same call always deals the same way. An annotator's queue is their assigned runs they have not
labelled yet, in batch order; a label counts however it came (the window, an import), ``unsure`` too.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from cockpit.core.store.db import Store, StoreError, where_equal


@dataclass(frozen=True)
class Progress:
    """One annotator's progress in a batch (or in all batches): done / assigned, median seconds per run."""
    annotator: str
    done: int
    assigned: int
    median_seconds: float | None  # over their labels of assigned runs that record the time spent


def assign(store: Store, batch: str, run_ids: list[str], annotators: list[str], per_run: int,
           guideline: str = "", *, blind: bool = False, qa: str = "") -> dict[str, list[str]]:
    """Make batch `batch` and deal its runs; returns each annotator's runs, in batch order. `qa`: the batch's
    QA reviewer, who sees every annotator's labels and key-point ticks and adjudicates (:func:`set_qa`)."""
    batch = batch.strip()
    names = list(dict.fromkeys(a.strip() for a in annotators if a.strip()))
    runs = list(dict.fromkeys(run_ids))
    if not batch:
        raise StoreError("a batch needs a name")
    if not names:
        raise StoreError("a batch needs at least one annotator")
    if not 1 <= per_run <= len(names):
        raise StoreError(f"--per-run must be between 1 and the number of annotators ({len(names)}), not {per_run}")
    if not runs:
        raise StoreError("a batch needs at least one run")
    if store.rows("SELECT 1 FROM batches WHERE name = ?", [batch]):
        raise StoreError(f"there is a batch {batch!r} already; give the new one another name")
    missing = store.missing_runs(runs)
    if missing:
        raise StoreError(f"no run {missing[0]!r} in {store.path}")
    dealt = _deal(runs, names, per_run)
    with store.atomic():
        store.db["batches"].insert({"name": batch, "guideline": guideline, "per_run": per_run,
                                    "blind": int(blind), "created": time.time(),
                                    "qa": qa.strip()})
        for name in names:
            store.db["annotators"].insert({"name": name, "created": time.time()}, ignore=True)
        store.db["assignments"].insert_all(
            {"batch": batch, "run_id": run, "annotator": a, "position": i}
            for i, (run, who) in enumerate(dealt) for a in who)
    return {a: [run for run, who in dealt if a in who] for a in names}


def _deal(runs: list[str], names: list[str], per_run: int) -> list[tuple[str, list[str]]]:
    load = dict.fromkeys(names, 0)
    order = {a: i for i, a in enumerate(names)}
    out = []
    for run in runs:
        who = sorted(names, key=lambda a: (load[a], order[a]))[:per_run]
        for a in who:
            load[a] += 1
        out.append((run, sorted(who, key=order.get)))
    return out


def batches(store: Store) -> list[dict]:
    """Every batch, oldest first: name, guideline, per_run, blind, created, runs (how many)."""
    return store.rows("SELECT b.*, (SELECT COUNT(DISTINCT run_id) FROM assignments a WHERE a.batch = b.name) "
                       "AS runs FROM batches b ORDER BY created, name")


def get_batch(store: Store, name: str) -> dict:
    rows = [b for b in batches(store) if b["name"] == name]
    if not rows:
        known = ", ".join(b["name"] for b in batches(store)) or "none yet"
        raise StoreError(f"no batch {name!r} (batches: {known}; see `cockpit annotate assign`)")
    return rows[0]


def set_qa(store: Store, batch: str, name: str) -> None:
    """Name the batch's QA reviewer (replacing the one named before; '' names none)."""
    get_batch(store, batch)
    with store.atomic():
        store.db.execute("UPDATE batches SET qa = ? WHERE name = ?", [name.strip(), batch])
        if name.strip():
            store.db["annotators"].insert({"name": name.strip(), "created": time.time()}, ignore=True)


def qa_batches(store: Store, name: str | None) -> list[str]:
    """The batches `name` is the QA reviewer of, oldest first."""
    return [b["name"] for b in batches(store) if name and (b.get("qa") or "") == name.strip()]


def assignments(store: Store, batch: str | None = None, annotator: str | None = None) -> list[dict]:
    """Assignment rows (batch, run_id, annotator, position, labelled: 0/1, seconds), in queue order."""
    where, params = where_equal(a__batch=batch, a__annotator=annotator)
    return store.rows("SELECT a.batch, a.run_id, a.annotator, a.position, l.id IS NOT NULL AS labelled, l.seconds "
                       "FROM assignments a JOIN batches b ON b.name = a.batch "
                       "LEFT JOIN labels l ON l.run_id = a.run_id AND l.annotator = a.annotator"
                       f"{where} ORDER BY b.created, a.batch, a.position", params)


def queue(store: Store, annotator: str, batch: str | None = None) -> list[str]:
    """The annotator's assigned runs they have not labelled yet, in batch order (each run once)."""
    return list(dict.fromkeys(r["run_id"] for r in assignments(store, batch, annotator) if not r["labelled"]))


def next_run(store: Store, annotator: str, batch: str | None = None) -> str | None:
    """The annotator's next unlabelled assigned run; None when they are done (or have none)."""
    q = queue(store, annotator, batch)
    return q[0] if q else None


def progress(store: Store, batch: str | None = None) -> list[Progress]:
    """Per annotator (by name): runs done / assigned, median seconds per labelled run (labels without a time
    spent, such as some imports, are left out of the median; None when no label has one)."""
    seen: dict[str, dict[str, dict]] = {}
    for r in assignments(store, batch):
        seen.setdefault(r["annotator"], {})[r["run_id"]] = r
    out = []
    for name in sorted(seen):
        rows = seen[name].values()
        secs = [r["seconds"] for r in rows if r["labelled"] and r["seconds"]]
        out.append(Progress(name, sum(1 for r in rows if r["labelled"]), len(rows),
                            statistics.median(secs) if secs else None))
    return out


# Runs of a blind batch assigned to an annotator who has not labelled them yet.
_BLIND = ("SELECT a.run_id FROM assignments a JOIN batches b ON b.name = a.batch WHERE b.blind = 1 "
          "AND a.annotator = ? AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.run_id = a.run_id "
          "AND l.annotator = a.annotator)")


def blind_for(store: Store, run_id: str, annotator: str | None) -> bool:
    """True when `annotator` must not yet see the judge's verdict or the agent's own claim on this run:
    a blind batch assigns it to them and they have not labelled it."""
    return bool(annotator) and bool(store.rows(_BLIND + " AND a.run_id = ?", [annotator, run_id]))


def blind_runs(store: Store, annotator: str | None) -> set[str]:
    """The runs `annotator` must not yet see verdicts or claims of (see :func:`blind_for`), all at once."""
    return {r["run_id"] for r in store.rows(_BLIND, [annotator])} if annotator else set()
