"""Key points of a task and each annotator's ticks (Online-Mind2Web's human evaluation: the task's key points,
ticked one by one, each with the step where it was met).

Typed key points belong to the task (its task id, or its text when it has none), so every run of the task
shares them; typing them again replaces them. A tick belongs to one run and one annotator: the key point's
place in the run's list, its text then, and the step shown when it was ticked. Where the key points come from
when none were typed (WebJudge's first stage) is :mod:`cockpit.core.review.key_points`.
"""
from __future__ import annotations

import time

from cockpit.core.store.db import Store, StoreError


def task_key(run: dict) -> str:
    """What key points are kept under: the run's task id, else its task text."""
    return (run.get("task_id") or "").strip() or (run.get("task") or "").strip()


def typed(store: Store, key: str) -> list[str]:
    """The key points typed for a task, in order ([] when none were)."""
    rows = store.rows("SELECT text FROM key_points WHERE task_key = ? ORDER BY position", [key])
    return [r["text"] for r in rows]


def set_typed(store: Store, key: str, points: list[str], by: str) -> list[str]:
    """Replace a task's typed key points (blank lines dropped); [] removes them. Returns what was kept."""
    if not key:
        raise StoreError("key points need a task (the run has no task id and no task text)")
    kept = [p.strip() for p in points if p.strip()]
    now = time.time()
    with store.atomic():
        store.db.execute("DELETE FROM key_points WHERE task_key = ?", [key])
        if kept:
            store.db["key_points"].insert_all([{"task_key": key, "position": i, "text": t, "by": by, "created": now}
                                               for i, t in enumerate(kept)])
    return kept


def tick(store: Store, run_id: str, annotator: str, position: int, point: str, step: int) -> None:
    """This annotator saw key point `position` met at `step` (ticking it again moves it to that step)."""
    if not annotator.strip():
        raise StoreError("a tick needs the annotator's name")
    with store.atomic():
        store.db["key_point_ticks"].insert({"run_id": run_id, "annotator": annotator, "position": position,
                                            "point": point, "step": step, "created": time.time()}, replace=True)


def untick(store: Store, run_id: str, annotator: str, position: int) -> None:
    with store.atomic():
        store.db.execute("DELETE FROM key_point_ticks WHERE run_id = ? AND annotator = ? AND position = ?",
                         [run_id, annotator, position])


def ticks(store: Store, run_id: str, annotator: str | None = None) -> list[dict]:
    """A run's ticks (this annotator's when given): run_id, annotator, position, point, step, created."""
    sql, params = "SELECT * FROM key_point_ticks WHERE run_id = ?", [run_id]
    if annotator is not None:
        sql += " AND annotator = ?"
        params.append(annotator)
    return store.rows(sql + " ORDER BY annotator, position", params)
