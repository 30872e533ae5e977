"""Merging a bundle (see :mod:`cockpit.core.store.bundle`) into the store, whole or not at all.

Runs the store lacks are added with their files; a run it holds already (same id) is skipped when its
content hash is the same, and the whole import is refused when it differs. Labels merge per (run,
annotator) (:mod:`cockpit.core.store.labelmerge`), adjudicated verdicts per run, key-point ticks per (run,
annotator, key point), typed key points per task. The bundle is checked completely first; files are
written to a staging folder and moved into place inside the database transaction, so any failure
leaves the database and the run folders as they were.
"""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from cockpit.core.store.bundle import BundleError, BundleRun, read_bundle, store_hash
from cockpit.core.store.db import Store
from cockpit.core.store.labelmerge import LabelMerge, merge_adjudications, merge_key_points, merge_labels
from cockpit.core.store.staging import staging_dir, sweep
from cockpit.core.words import noun


@dataclass
class BundleReport:
    imported: list[str] = field(default_factory=list)  # run ids added
    skipped: list[str] = field(default_factory=list)  # run ids already here with the same content
    labels: LabelMerge = field(default_factory=LabelMerge)
    adjudications: LabelMerge = field(default_factory=LabelMerge)  # adjudicated verdicts, merged like labels
    key_points: LabelMerge = field(default_factory=LabelMerge)  # key-point ticks and typed key points


def import_bundle(store: Store, path: Path | str) -> BundleReport:
    """Merge the bundle at ``path``; BundleError (nothing changed) when it is bad or a run clashes."""
    path = Path(path)
    runs = read_bundle(path)
    report = BundleReport()
    new = _plan(store, runs, report, path)
    sweep(store)  # files a killed import left behind
    staging = staging_dir(store, "bundle")
    moved: list[Path] = []
    try:
        shutil.rmtree(staging, ignore_errors=True)
        for run in new:
            _stage_files(staging / run.id, run.files)
        with store.atomic():
            for run in new:
                _insert_rows(store, run)
            store.db["imports"].insert_all([{"run_id": r.id, "kind": "bundle", "origin": str(path), "created": time.time()}
                                            for r in new], replace=True)  # where they came from (Review says)
            report.labels = merge_labels(store, [x for r in runs for x in r.labels],
                                         [x for r in runs for x in r.step_labels], source=path.name)
            report.adjudications = merge_adjudications(store, [x for r in runs for x in r.adjudications],
                                                       source=path.name)
            report.key_points = merge_key_points(store, [x for r in runs for x in r.ticks],
                                                 [x for r in runs for x in r.key_points], source=path.name)
            for run in new:  # last, just before the commit; undone below if the commit fails
                if (staging / run.id).is_dir():
                    store.files.mkdir(parents=True, exist_ok=True)
                    os.rename(staging / run.id, store.run_dir(run.id))
                    moved.append(store.run_dir(run.id))
    except BaseException:
        for d in moved:
            shutil.rmtree(d, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    report.imported = [r.id for r in new]
    return report


def _plan(store: Store, runs: list[BundleRun], report: BundleReport, path: Path) -> list[BundleRun]:
    """The runs to add; the ones already here (same content) go to report.skipped. BundleError for a run
    here with other content, a run folder without rows in the way, or rows this store has no columns for."""
    new, clash = [], []
    for run in runs:
        if not store.missing_runs([run.id]):
            (report.skipped if store_hash(store, run.id) == run.content_hash else clash).append(run.id)
            continue
        if store.run_dir(run.id).exists():
            raise BundleError(f"{store.run_dir(run.id)} exists but the store has no run {run.id}; move that "
                              f"folder away and import again; nothing was imported")
        _check_columns(store, run, path)
        new.append(run)
    if clash:
        raise BundleError(f"{path}: this store already holds {noun(len(clash), 'run')} {', '.join(clash)} with different content "
                          "(steps or files differ): the same id names two different runs; nothing was imported")
    return new


def _check_columns(store: Store, run: BundleRun, path: Path) -> None:
    for table, rows in (("runs", [run.content["run"]]), ("steps", run.content.get("steps", [])),
                        ("decisions", run.content.get("decisions", []))):
        known = set(store.db[table].columns_dict)
        for row in rows:
            unknown = set(row) - known if isinstance(row, dict) else {"(not a row)"}
            if unknown:
                raise BundleError(f"{path}: run {run.id} has {table} columns this store lacks "
                                  f"({', '.join(sorted(unknown))}); nothing was imported")


def _stage_files(folder: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def _insert_rows(store: Store, run: BundleRun) -> None:
    """The run's rows as they were in the store it came from (decisions get new ids here)."""
    store.db["runs"].insert(run.content["run"])
    for table in ("steps", "decisions"):
        rows = run.content.get(table) or []
        if rows:
            store.db[table].insert_all(rows)
