"""Merging labels made elsewhere (a bundle, a label export) into the store.

Labels merge per (run, annotator), step labels per (run, step, annotator). A label the store lacks is
added; one it holds already is left alone. When the same annotator labelled the same run differently
on two machines, the newer label (by when it was made) is kept and the conflict is reported.
"""
from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import NamedTuple

from cockpit.core.store.adjudications import VERDICTS
from cockpit.core.store.db import Store, StoreError
from cockpit.core.store.labels import AXIS_ANSWERS
from cockpit.core.words import plural


class _Kind(NamedTuple):
    """A kind of row that merges: its table, the columns naming one row, the columns it holds, and those of
    them older bundles and exports do not have (absent is "not answered", or for an adjudication "not settled")."""
    table: str
    keys: tuple[str, ...]
    fields: tuple[str, ...]
    optional: tuple[str, ...] = ()


_RUN_LABEL = _Kind("labels", ("run_id", "annotator"), ("verdict", "category", "comment", "seconds", "blind",
                                                       "side_effects", "repetition"), ("side_effects", "repetition"))
_STEP_LABEL = _Kind("step_labels", ("run_id", "step", "annotator"), ("judgement", "corrected_target", "comment"))
_ADJUDICATION = _Kind("adjudications", ("run_id",), ("verdict", "reason", "by", "category", "key_points"),
                      ("category", "key_points"))
_TICK = _Kind("key_point_ticks", ("run_id", "annotator", "position"), ("step", "point"))


@dataclass
class LabelMerge:
    added: int = 0  # labels the store did not have
    same: int = 0  # labels it had already, as they are
    newer_kept: list[str] = field(default_factory=list)  # conflicts: the incoming label was newer, it replaced ours
    ours_kept: list[str] = field(default_factory=list)  # conflicts: ours was newer (or as old), it stays

    @property
    def conflicts(self) -> list[str]:
        return self.newer_kept + self.ours_kept


def merge_labels(store: Store, labels: list[dict], step_labels: list[dict] = (), *,
                 source: str = "the import") -> LabelMerge:
    """Merge label rows (the columns of the labels table, ``created`` a timestamp) in one transaction.
    Every run they name must be in the store (StoreError otherwise, and nothing is changed)."""
    runs = {r["run_id"] for r in [*labels, *step_labels]}
    missing = sorted(store.missing_runs(runs))
    if missing:
        raise StoreError(f"{source} has labels for {plural(len(missing), 'run')} this store does not hold "
                         f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}); import the runs "
                         "first (`cockpit import bundle`); nothing was imported")
    for row in labels:
        for axis in _RUN_LABEL.optional:  # the run's side effects and repetition
            if row.get(axis) not in (None, *AXIS_ANSWERS):
                raise StoreError(f"{source}: run {row.get('run_id')}, {row.get('annotator')}: {axis.replace('_', ' ')} "
                                 f"must be one of {', '.join(AXIS_ANSWERS)}, not {row.get(axis)!r}; "
                                 "nothing was imported")
    merge = LabelMerge()
    with store.atomic():
        for name in sorted({r["annotator"] for r in [*labels, *step_labels]}):
            store.db["annotators"].insert({"name": name, "created": time.time()}, ignore=True)
        for row in labels:
            _merge_one(store, merge, _RUN_LABEL, row, source)
        for row in step_labels:
            _merge_one(store, merge, _STEP_LABEL, row, source)
    return merge


def merge_adjudications(store: Store, rows: list[dict], *, source: str = "the import") -> LabelMerge:
    """Merge adjudicated verdicts (one per run) the same way, inside the caller's transaction if any:
    one the store lacks is added; where both have one and they differ, the newer is kept and reported."""
    for row in rows:
        if not isinstance(row, dict) or row.get("verdict") not in VERDICTS or not all(
                k in row for k in ("run_id", "reason", "by", "created")):
            raise StoreError(f"{source}: an adjudicated verdict is damaged ({str(row)[:80]}); nothing was imported")
    merge = LabelMerge()
    with store.atomic():
        for row in rows:
            _merge_one(store, merge, _ADJUDICATION, row, source)
    return merge


def merge_key_points(store: Store, ticks: list[dict], typed: list[dict], *,
                     source: str = "the import") -> LabelMerge:
    """Merge key-point ticks per (run, annotator, key point), like labels, and typed key points per task: a task
    the store has none for gets them; where both have some and they differ, the newer list is kept and reported."""
    for row in ticks:
        if not all(k in row for k in ("run_id", "annotator", "position", "step", "created")):
            raise StoreError(f"{source}: a key-point tick is damaged ({str(row)[:80]}); nothing was imported")
    for row in typed:
        if not all(k in row for k in ("task_key", "position", "text")):
            raise StoreError(f"{source}: a typed key point is damaged ({str(row)[:80]}); nothing was imported")
    merge = LabelMerge()
    with store.atomic():
        for row in ticks:
            _merge_one(store, merge, _TICK, row, source)
        tasks: dict[str, dict[int, dict]] = {}
        for row in typed:
            tasks.setdefault(str(row["task_key"]), {})[row["position"]] = row  # a task once, however many runs
        for key, rows in tasks.items():
            _merge_typed(store, merge, key, [rows[p] for p in sorted(rows)], source)
    return merge


def _merge_typed(store: Store, merge: LabelMerge, key: str, rows: list[dict], source: str) -> None:
    have = store.rows("SELECT * FROM key_points WHERE task_key = ? ORDER BY position", [key])
    theirs = [r["text"] for r in rows]
    if [r["text"] for r in have] == theirs:
        merge.same += 1
        return
    newer = max((r.get("created") or 0) for r in rows) > max([(r["created"] or 0) for r in have] or [-1])
    what = f"task {key[:60]!r}, its typed key points"
    if not have or newer:
        store.db.execute("DELETE FROM key_points WHERE task_key = ?", [key])
        store.db["key_points"].insert_all([{"task_key": key, "position": i, "text": r["text"], "by": r.get("by") or "",
                                            "created": r.get("created")} for i, r in enumerate(rows)])
        if have:
            merge.newer_kept.append(f"{what}: those in {source} replace ours, the newer is kept")
        else:
            merge.added += 1
    else:
        merge.ours_kept.append(f"{what}: ours stay over those in {source}, the newer is kept")


def _merge_one(store: Store, merge: LabelMerge, kind: _Kind, row: dict, source: str) -> None:
    table, keys, fields, optional = kind
    lacking = [k for k in (*keys, *fields, "created") if k not in row and k not in optional]
    if lacking:
        raise StoreError(f"{source}: a row of {table.replace('_', ' ')} has no {', '.join(lacking)} "
                         f"({str(row)[:80]}); nothing was imported")
    where = " AND ".join(f"[{k}] = ?" for k in keys)
    have = store.rows(f"SELECT * FROM {table} WHERE {where}", [row[k] for k in keys])
    absent = [f for f in optional if f not in row]  # a file from before the question was asked: no answer given
    row = {k: row.get(k) for k in (*keys, *fields, "created")}
    if not have:
        store.db[table].insert(row)
        merge.added += 1
        return
    old = have[0]
    for f in absent:  # keeps what this store knows
        if f in old:
            row[f] = old[f]
    differ = [f for f in fields if _norm(old[f]) != _norm(row[f])]
    if not differ:
        merge.same += 1
        return
    who = row["annotator"] if "annotator" in row else "adjudicated verdict"
    what = (f"run {row['run_id']}" + (f" step {row['step']}" if "step" in row else "")
            + f", {who} (differing in {', '.join(differ)})")
    ours, theirs = (f"{_says(old, fields)} here ({_when(old['created'])})",
                    f"{_says(row, fields)} in {source} ({_when(row['created'])})")
    if (row["created"] or 0) > (old["created"] or 0):
        store.db.execute(f"DELETE FROM {table} WHERE {where}", [row[k] for k in keys])
        store.db[table].insert(row)
        merge.newer_kept.append(f"{what}: {theirs} replaces {ours}, the newer is kept")
    else:
        merge.ours_kept.append(f"{what}: {ours} stays over {theirs}, the newer is kept")


def _norm(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return "" if v is None else v


def _says(row: dict, fields: tuple) -> str:
    main = row[fields[0]]
    extra = row.get("category") or ""
    return repr(f"{main}: {extra}" if extra else main)


def _when(t: float | None) -> str:
    if not t:
        return "no time"
    return dt.datetime.fromtimestamp(t, tz=dt.timezone.utc).isoformat(timespec="seconds")
