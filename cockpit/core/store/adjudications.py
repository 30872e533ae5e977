"""Adjudicated verdicts: one per run, settling a disagreement, with its rationale and who decided.

Adjudicating a run again replaces its verdict. The reports (cockpit.core.review.to_adjudicate) let an
adjudicated verdict stand in for the annotators' consensus.
"""
from __future__ import annotations

import time

from cockpit.core.store.db import Store, StoreError, where_equal

VERDICTS = ("success", "fail")
COLUMNS = ("run_id", "verdict", "reason", "by", "created")


def set_adjudication(store: Store, run_id: str, verdict: str, reason: str, by: str,
                     *, created: float | None = None) -> None:
    if verdict not in VERDICTS:
        raise StoreError(f"an adjudicated verdict is success or fail, not {verdict!r}")
    if not reason.strip():
        raise StoreError("an adjudicated verdict needs its reason (the rationale)")
    if not by.strip():
        raise StoreError("say who adjudicated (a name)")
    row = {"run_id": run_id, "verdict": verdict, "reason": reason.strip(), "by": by.strip(),
           "created": time.time() if created is None else created}
    with store.atomic():
        if store.missing_runs([run_id]):
            raise StoreError(f"no run {run_id!r} in {store.path}")
        store.db["adjudications"].insert(row, replace=True)


def adjudications(store: Store, run_id: str | None = None) -> list[dict]:
    """Adjudicated verdicts (run_id, verdict, reason, by, created), by run id."""
    where, params = where_equal(run_id=run_id)
    return store._rows(f"SELECT {', '.join(COLUMNS)} FROM adjudications{where} ORDER BY run_id", params)
