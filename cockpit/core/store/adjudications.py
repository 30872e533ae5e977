"""Adjudicated verdicts: one per run, settling a disagreement (or a QA reviewer's pass over a batch), with its
rationale and who decided; a not-executable verdict with why the task could not be attempted; and the final key
points, each met at a step or not met.

Adjudicating a run again replaces its verdict. The reports (cockpit.core.review.to_adjudicate) let an
adjudicated verdict stand in for the annotators' consensus.
"""
from __future__ import annotations

import json
import time

from cockpit.core.store.db import Store, StoreError, where_equal
from cockpit.core.store.labels import NOT_EXECUTABLE

VERDICTS = ("success", "fail", NOT_EXECUTABLE)
COLUMNS = ("run_id", "verdict", "reason", "by", "created", "category", "key_points")


def set_adjudication(store: Store, run_id: str, verdict: str, reason: str, by: str, *, category: str = "",
                     key_points: list[dict] | None = None, created: float | None = None) -> None:
    """`category`: with not_executable, why the task could not be attempted (required). `key_points`: the final
    key points, ``[{"position": 0.., "point": text, "step": n or None (not met)}]``; None leaves them unsettled."""
    if verdict not in VERDICTS:
        raise StoreError(f"an adjudicated verdict is success, fail or not_executable, not {verdict!r}")
    if not reason.strip():
        raise StoreError("an adjudicated verdict needs its reason (the rationale)")
    if not by.strip():
        raise StoreError("say who adjudicated (a name)")
    category = category.strip() if verdict == NOT_EXECUTABLE else ""
    if verdict == NOT_EXECUTABLE and not category:
        raise StoreError("say why the task could not be attempted (CAPTCHA, Site down, Login wall, Blocked "
                         "region or your own words)")
    row = {"run_id": run_id, "verdict": verdict, "reason": reason.strip(), "by": by.strip(),
           "created": time.time() if created is None else created, "category": category,
           "key_points": None if key_points is None else json.dumps(_checked(key_points), ensure_ascii=False)}
    with store.atomic():
        if store.missing_runs([run_id]):
            raise StoreError(f"no run {run_id!r} in {store.path}")
        store.db["adjudications"].insert(row, replace=True)


def _checked(points: list[dict]) -> list[dict]:
    out = []
    for i, p in enumerate(points):
        step = p.get("step")
        if step is not None and (not isinstance(step, int) or step < 0):
            raise StoreError(f"key point {i + 1}: the step where it was met is a step number, not {step!r}")
        out.append({"position": int(p.get("position", i)), "point": str(p.get("point") or ""), "step": step})
    return out


def adjudications(store: Store, run_id: str | None = None) -> list[dict]:
    """Adjudicated verdicts (run_id, verdict, reason, by, created, category, key_points: JSON text or None),
    by run id."""
    where, params = where_equal(run_id=run_id)
    return store.rows(f"SELECT {', '.join(COLUMNS)} FROM adjudications{where} ORDER BY run_id", params)


def final_key_points(row: dict | None) -> list[dict] | None:
    """An adjudication's final key points as a list (see :func:`set_adjudication`); None when not settled."""
    text = (row or {}).get("key_points")
    if not text:
        return None
    try:
        points = json.loads(text)
    except ValueError:
        return None
    return points if isinstance(points, list) else None
