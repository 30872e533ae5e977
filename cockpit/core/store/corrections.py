"""Human corrections kept as data for training and for better marking: a mark on nothing ('spurious'), a
missed element ('missing', with the box drawn), or where a pixel action should have landed ('point').
Withdrawn corrections stay in the table, marked, and are left out of what is read."""
from __future__ import annotations

import json
import time

from cockpit.core.store.db import Store, StoreError, where_equal

KINDS = ("spurious", "missing", "point")


def add(store: Store, run_id: str, step: int, kind: str, *, mark_id: int | None = None, bbox: tuple | None = None,
        label: str = "", element: dict | None = None, by: str = "", point: tuple | None = None) -> int:
    """Keep a correction of step `step`; returns its id. A 'point' needs the point (or a box)."""
    if kind not in KINDS:
        raise StoreError(f"unknown correction kind {kind!r}")
    if kind == "point" and point is None and not bbox:
        raise StoreError("a point correction needs the point (or a box) where the action should have been")
    row = {"run_id": run_id, "step": step, "kind": kind, "mark_id": mark_id,
           "point": json.dumps([int(v) for v in point]) if point is not None else None,
           "bbox": json.dumps(list(bbox)) if bbox else None, "label": label,
           "element": json.dumps(element) if element else None, "by": by, "created": time.time()}
    with store.atomic():
        return store.db["corrections"].insert(row).last_pk


def withdraw(store: Store, correction_id: int) -> None:
    with store.atomic():
        store.db["corrections"].update(correction_id, {"withdrawn": 1})


def of(store: Store, run_id: str | None = None, step: int | None = None) -> list[dict]:
    """The corrections kept (not withdrawn), of a run and step when given, oldest first."""
    cond, params = where_equal(run_id=run_id, step=step)
    rows = store.rows(f"SELECT * FROM corrections{cond}{' AND' if cond else ' WHERE'} withdrawn = 0 ORDER BY id",
                       params)
    for r in rows:
        for key in ("bbox", "element", "point"):
            r[key] = json.loads(r[key]) if r.get(key) else None
    return rows
