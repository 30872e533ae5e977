"""Export training data: the runs a filter selects, made into one kind of sample, written in one layout.

:func:`export` reads each selected run once (:func:`cockpit.core.training.supervision.read_run`), makes its
samples (:mod:`.samples`), hands them to the layout's sink (:mod:`.layouts`) and ends with the dataset
card (:mod:`.card`). :func:`preview` does the same without writing, for the counts the window shows
before anything is written. Both report progress as ``(runs done, runs)`` and stop early when `cancel`
(a threading.Event) is set, leaving nothing half-written behind but the folder's partial files.

The runs are Review's (:class:`cockpit.core.store.queries.RunFilter`, the very query its table and count
use), oldest first, so the card's run count is the count Review shows for the same filter.
"""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from cockpit.core.errors import CockpitError
from cockpit.core.review.outcomes import run_outcomes
from cockpit.core.store import Store
from cockpit.core.store.queries import RunFilter
from cockpit.core.training import card, parquet, samples
from cockpit.core.training.chat import Images
from cockpit.core.training.layouts import LAYOUTS, PARQUET, sink
from cockpit.core.training.samples import KEEP, KINDS, Tally
from cockpit.core.training.supervision import read_run

DEFAULT_LAYOUT = {"sft": "openai", "preference": "trl", "process": "trl", "grounding": "screenspot"}


class ExportError(CockpitError):
    """The export cannot start or finish; the message says why, in the user's terms."""


@dataclass
class ExportOptions:
    kind: str
    layout: str = ""
    keep: str = "default"
    filter: RunFilter = field(default_factory=RunFilter)
    run_ids: list[str] | None = None  # only these runs (still within the filter)

    def checked(self) -> "ExportOptions":
        if self.kind not in KINDS:
            raise ExportError(f"the kind of training data is one of {', '.join(KINDS)}, not {self.kind!r}")
        self.layout = self.layout or DEFAULT_LAYOUT[self.kind]
        if self.layout not in LAYOUTS[self.kind]:
            raise ExportError(f"{self.kind} is written as {' or '.join(LAYOUTS[self.kind])}, not {self.layout}")
        if self.keep not in KEEP:
            raise ExportError(f"the steps kept are one of {', '.join(KEEP)}, not {self.keep!r}")
        return self


@dataclass
class ExportResult:
    options: ExportOptions
    run_ids: list[str]
    tally: Tally
    files: list[str] = field(default_factory=list)
    notes: dict = field(default_factory=dict)  # the layout's: limits met, rows left out
    rows: int = 0  # rows written (a layout may leave some out: notes say why)
    bytes: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    out: Path | None = None


def selected_runs(store: Store, options: ExportOptions) -> list[str]:
    ids = store.filtered_run_ids(options.filter, "started", descending=False)
    if options.run_ids is not None:
        allowed = set(ids)
        ids = [r for r in options.run_ids if r in allowed]
    return ids


def _items(kind: str, facts, keep: str, tally: Tally) -> list:
    if kind == "sft":
        return samples.sft(facts, keep, tally)
    if kind == "preference":
        return samples.preference(facts, tally)
    if kind == "process":
        row = samples.process(facts, tally)
        return [row] if row else []
    return samples.grounding(facts, keep, tally)


def _walk(store: Store, options: ExportOptions, progress, cancel, each) -> tuple[list[str], Tally, bool]:
    ids = selected_runs(store, options)
    outcomes = run_outcomes(store, people=True)  # a person's own attempt is a demonstration too
    tally = Tally()
    step = max(1, len(ids) // 200)
    for n, rid in enumerate(ids):
        if cancel is not None and cancel.is_set():
            return ids, tally, True
        facts = read_run(store, rid, with_request=options.kind != "grounding", outcome=outcomes.get(rid, (None, "")))
        for item in _items(options.kind, facts, options.keep, tally):
            each(facts, item)
        if progress is not None and (n % step == 0 or n + 1 == len(ids)):
            progress(n + 1, len(ids))
    return ids, tally, False


def preview(store: Store, options: ExportOptions, progress: Callable[[int, int], None] | None = None,
            cancel=None) -> ExportResult:
    """What :func:`export` would make, counted, nothing written."""
    options = options.checked()
    t0 = time.perf_counter()
    ids, tally, stopped = _walk(store, options, progress, cancel, lambda facts, item: None)
    return ExportResult(options, ids, tally, seconds=time.perf_counter() - t0, cancelled=stopped)


def export(store: Store, options: ExportOptions, out: Path, progress: Callable[[int, int], None] | None = None,
           cancel=None) -> ExportResult:
    """Write the training data into the folder `out` (made if missing; it must hold no earlier export of
    another kind: files of this export are written over)."""
    options = options.checked()
    if options.layout in PARQUET:
        parquet.require()
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out} is a file; give a folder to write the training data into")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for old in ("images", "data"):
            if (out / old).is_dir() and card.is_card(out / "README.md"):  # an earlier export here: written over
                shutil.rmtree(out / old)
    except OSError as e:
        raise ExportError(f"cannot write into {out}: {e.strerror or e}") from e
    t0 = time.perf_counter()
    images = Images(out)
    rows = sink(options.layout, out, options.kind, images)
    ids, tally, stopped = _walk(store, options, progress, cancel, rows.add)
    files = rows.close()
    result = ExportResult(options, ids, tally, files, dict(rows.notes), rows.rows, cancelled=stopped, out=out)
    result.files.append(card.write(store, result, out))
    result.bytes = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    result.seconds = time.perf_counter() - t0
    return result
