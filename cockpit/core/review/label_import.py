"""Reading the labels table back (`cockpit import labels`): the JSONL or CSV that
:mod:`cockpit.core.review.label_tables` writes (`cockpit export --format labels-jsonl|labels-csv`).

Rows without an annotator (a run nobody labelled) carry no label and are passed over. A row's key_points
(the points as that annotator ticked them) come back as their ticks, merged as a bundle's are. The run's own
columns (task, model, ...) are not read: the run must be in the store already. A file that is not
such a table, or a row with a bad value, raises CockpitError naming the line; nothing is imported.
"""
from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

from cockpit.core.errors import CockpitError
from cockpit.core.store.db import Store
from cockpit.core.store.detect import nothing_found
from cockpit.core.store.labelmerge import LabelMerge, merge_key_points, merge_labels
from cockpit.core.store.labels import AXIS_ANSWERS, NOT_EXECUTABLE, VERDICTS

#: Columns a label export must have to be read back.
REQUIRED = ("run_id", "annotator", "verdict", "labelled_at")


def import_label_file(store: Store, path: Path | str) -> LabelMerge:
    """Merge the labels of a label export into the store (see :func:`merge_labels`), and their key-point ticks,
    all or none."""
    path = Path(path)
    rows = [(line, row) for line, row in _file_rows(path) if row.get("annotator")]
    labels = [_label(row, line, path) for line, row in rows]
    ticks = [t for (line, row), lab in zip(rows, labels) for t in _ticks(row, lab, f"{path}, line {line}")]
    with store.atomic():
        merge = merge_labels(store, labels, source=path.name)
        merge_key_points(store, ticks, [], source=path.name)
    return merge


def _ticks(row: dict, label: dict, where: str) -> list[dict]:
    """The row's key points that were met, as the annotator's ticks (an export without the column: none)."""
    points = row.get("key_points")
    if isinstance(points, str):  # CSV: a JSON cell
        try:
            points = json.loads(points) if points.strip() else []
        except ValueError:
            raise CockpitError(f"{where}: key_points is not JSON ({points[:60]!r})") from None
    if points is None:
        return []
    if not isinstance(points, list) or not all(isinstance(p, dict) for p in points):
        raise CockpitError(f"{where}: key_points must be a list of {{point, met, step}}")
    out = []
    for i, p in enumerate(points):
        step = p.get("step")
        if p.get("met") and not (isinstance(step, int) and step >= 0):
            raise CockpitError(f"{where}: key point {i + 1} is met at step {step!r}, not a step number")
        if p.get("met"):
            out.append({"run_id": label["run_id"], "annotator": label["annotator"], "position": i,
                        "point": str(p.get("point") or ""), "step": step, "created": label["created"]})
    return out


def _file_rows(path: Path) -> list[tuple[int, dict]]:
    kind = path.suffix.lower()
    if kind not in (".jsonl", ".csv"):
        raise CockpitError(f"{path}: give a .jsonl or .csv label export (as `cockpit export --format "
                           "labels-jsonl` or `labels-csv` writes), or Online-Mind2Web's human_label.json")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise CockpitError(f"{path} is not UTF-8 text: not a Cockpit label export") from None
    except OSError as e:
        raise CockpitError(f"cannot read {path}: {e.strerror or e}") from e
    rows = _csv_rows(text, path) if kind == ".csv" else _jsonl_rows(text, path)
    if not rows:
        raise nothing_found("labels", path)
    return rows


def _jsonl_rows(text: str, path: Path) -> list[tuple[int, dict]]:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as e:
            raise CockpitError(f"{path}, line {n}: not JSON ({e})") from None
        if not isinstance(row, dict):
            raise CockpitError(f"{path}, line {n}: not an object")
        _require(row.keys(), f"{path}, line {n}")
        rows.append((n, row))
    return rows


def _csv_rows(text: str, path: Path) -> list[tuple[int, dict]]:
    reader = csv.DictReader(text.splitlines(keepends=True))
    _require(reader.fieldnames or (), f"{path} (its header)")
    try:
        return [(reader.line_num, row) for row in reader]
    except csv.Error as e:
        raise CockpitError(f"{path}, line {reader.line_num}: {e}") from None


def _require(columns, where: str) -> None:
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise CockpitError(f"{where}: not a Cockpit label export (no {', '.join(missing)} column)")


def _label(row: dict, line: int, path: Path) -> dict:
    where = f"{path}, line {line}"
    verdict = row.get("verdict")
    if verdict not in VERDICTS:
        raise CockpitError(f"{where}: verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    try:
        created = dt.datetime.fromisoformat(str(row["labelled_at"])).timestamp()
    except ValueError:
        raise CockpitError(f"{where}: labelled_at {row['labelled_at']!r} is not an ISO 8601 time") from None
    try:
        seconds = float(row.get("seconds") or 0)
    except ValueError:
        raise CockpitError(f"{where}: seconds {row.get('seconds')!r} is not a number") from None
    blind = row.get("blind")
    if isinstance(blind, str):  # CSV: True / False, as csv writes booleans
        if blind.strip().lower() not in ("true", "false", "1", "0", ""):
            raise CockpitError(f"{where}: blind {blind!r} is not True or False")
        blind = blind.strip().lower() in ("true", "1")
    axes = {}
    for axis in ("side_effects", "repetition"):  # exports from before schema 10 have no such columns: left out,
        if axis not in row:                        # so the merge keeps what the store has
            continue
        answer = row.get(axis) or None
        if answer is not None and answer not in AXIS_ANSWERS:
            raise CockpitError(f"{where}: {axis} must be one of {', '.join(AXIS_ANSWERS)} or empty, not {answer!r}")
        axes[axis] = answer
    return {**axes, "run_id": str(row["run_id"]), "annotator": str(row["annotator"]), "verdict": verdict,
            "category": (row.get("category") or "") if verdict in ("fail", NOT_EXECUTABLE) else "",  # or the reason
            "comment": row.get("comment") or "", "seconds": seconds, "blind": int(bool(blind)),
            "created": created}
