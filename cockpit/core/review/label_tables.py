"""The labels tables: human labels and judge verdicts as rows, written as JSONL or CSV.

One row per run and per annotator (:func:`labels_rows`), for a spreadsheet or a
statistics script. A run nobody has labelled still gets one row, with an empty
annotator, verdict, category, comment, seconds, blind and labelled_at (empty
cells in CSV, ``null`` in JSONL), so the table lists every run exported. Judge
verdicts are a separate table (:func:`verdict_rows`). verdict is success, fail, unsure or not_executable;
category is a failure's category, or why a not-executable run could not be attempted. key_points: the run's task's
key points as that annotator ticked them, in order, each ``{"point", "met", "step"}`` (met at that step, or not
met: step null; on a run nobody labelled met is null), [] when the task has none; a JSON cell in CSV. Cell values
are written as
they are stored: a comment or a model's answer starting with ``=`` is not
defused against spreadsheet formulas (that would break the round trip); open the
CSV as data, not by double-click, if the answers may come from hostile pages.
The other exports are :mod:`cockpit.core.review.exports` (HTML, GIF) and
:mod:`cockpit.core.review.coco_marks`. Never changes the store.
"""
from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

from cockpit.core.review import interventions
from cockpit.core.review.key_points import of_run
from cockpit.core.store import key_points as KP
from cockpit.core.store import labels as labels_mod
from cockpit.core.store.db import Store

#: Columns of the labels table, in order.
LABEL_FIELDS = ("run_id", "task_id", "task", "site", "model", "status", "answer", "steps", "assisted",
                "interventions", "annotator", "verdict", "category", "side_effects", "repetition", "key_points", "comment",
                "seconds", "blind", "labelled_at")
#: Columns of the judge-verdicts table, in order. verdict is "success", "not success" or "" (undecided).
VERDICT_FIELDS = ("run_id", "task_id", "judge", "k", "prompt_version", "verdict", "judged_at")


def iso_time(t: float | None) -> str:
    """A store timestamp as ISO 8601 in UTC; '' for none."""
    if not t:
        return ""
    return dt.datetime.fromtimestamp(t, tz=dt.timezone.utc).isoformat(timespec="seconds")


def run_ids_or_all(store: Store, run_ids) -> list[str]:
    """The given ids, or every run oldest first."""
    if run_ids is None:
        return [r["id"] for r in reversed(store.runs(limit=10**9))]
    return list(run_ids)


def labels_rows(store: Store, run_ids=None) -> list[dict]:
    """One row per (run, annotator) with the columns of :data:`LABEL_FIELDS`; a run without
    labels gives one row with empty label columns (None). Runs in the given order
    (all runs oldest first when run_ids is None), annotators alphabetically. ``assisted``: whether people
    intervened in the run, ``interventions`` what they did ("2 approvals, 1 rejection"; "none"), see
    :mod:`cockpit.core.review.interventions`."""
    ids = run_ids_or_all(store, run_ids)
    helped = interventions.of_runs(store)
    by_run: dict[str, list[dict]] = {}
    for lab in (labels_mod.labels(store) if run_ids is None or len(ids) > 50
                else [x for rid in ids for x in labels_mod.labels(store, rid)]):
        by_run.setdefault(lab["run_id"], []).append(lab)
    rows = []
    for rid in ids:
        run = store.run(rid)
        base = {"run_id": rid, "task_id": run["task_id"] or "", "task": run["task"] or "",
                "site": run["site"] or "", "model": run["model"] or "", "status": run["status"] or "",
                "answer": run["answer"], "steps": run["steps"] or 0, "assisted": rid in helped,
                "interventions": helped[rid].describe() if rid in helped else "none"}
        labs = by_run.get(rid) or [None]
        points = of_run(store, run).points
        ticks = {(t["annotator"], t["position"]): t["step"] for t in KP.ticks(store, rid)} if points else {}
        for lab in labs:
            row = dict(base)
            if lab is None:
                row.update(annotator=None, verdict=None, category=None, side_effects=None, repetition=None,
                           comment=None, seconds=None, blind=None, labelled_at=None)
            else:
                row.update(annotator=lab["annotator"], verdict=lab["verdict"], category=lab["category"] or "",
                           side_effects=lab.get("side_effects"), repetition=lab.get("repetition"),
                           comment=lab["comment"] or "", seconds=lab["seconds"], blind=bool(lab["blind"]),
                           labelled_at=iso_time(lab["created"]))
            row["key_points"] = key_point_cells(points, ticks, lab["annotator"] if lab else None)
            rows.append({f: row[f] for f in LABEL_FIELDS})
    return rows


def key_point_cells(points: list[str], ticks: dict[tuple[str, int], int], annotator: str | None) -> list[dict]:
    """The key points as `annotator` ticked them: point, met, step (None: not met; met None when nobody labelled)."""
    out = []
    for i, point in enumerate(points):
        step = ticks.get((annotator, i)) if annotator else None
        out.append({"point": point, "met": None if annotator is None else step is not None, "step": step})
    return out


def verdict_rows(store: Store, run_ids=None) -> list[dict]:
    """Judge verdicts, one row per (run, judge, k, prompt version), columns :data:`VERDICT_FIELDS`.
    Runs no judge has seen are left out."""
    ids = run_ids_or_all(store, run_ids)
    rows = []
    for rid in ids:
        task_id = store.run(rid)["task_id"] or ""
        for v in labels_mod.verdicts(store, rid):
            rows.append({"run_id": rid, "task_id": task_id, "judge": v["judge"], "k": v["k"],
                         "prompt_version": v["prompt_version"] or "", "verdict": verdict_text(v["verdict"]),
                         "judged_at": iso_time(v["created"])})
    return rows


def verdict_text(v) -> str:
    return {1: "success", 0: "not success"}.get(v, "")


def write_labels_jsonl(rows: list[dict], path: Path | str) -> Path:
    """One JSON object per line, UTF-8, non-ASCII kept as is."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def write_labels_csv(rows: list[dict], path: Path | str, fields=None) -> Path:
    """A CSV with a header row (UTF-8, no BOM). None is an empty cell, booleans are
    True/False; newlines and quotes inside a cell are quoted by the csv module."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fields = list(fields or (rows[0].keys() if rows else LABEL_FIELDS))
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows({k: json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v
                     for k, v in row.items()} for row in rows)  # key points: a JSON cell
    return path
