"""Bringing others' runs and labels in, every kind through one call: what `cockpit import` and the window's
File → Import runs… both do, and the report both show.

:func:`run_import` runs the importer of the request's kind (WebVoyager run folders, Online-Mind2Web result
folders, browser-use histories, a bundle, a label export) and returns an :class:`ImportResult`: what was
imported, what was skipped and why, what could not be imported and why, the problems of what was imported
anyway, and the report's lines in words. Folder kinds report progress after each folder and can be cancelled
between two folders (each folder is imported whole or not at all, so what is done stays done and importing
again goes on where it stopped); a bundle or a label file is one transaction and cannot be.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cockpit.core.review.label_import import import_label_file
from cockpit.core.review.om2w_labels import ANNOTATOR as OM2W_ANNOTATOR
from cockpit.core.review.om2w_labels import import_human_labels
from cockpit.core.store.bundle_import import import_bundle
from cockpit.core.store.db import Store
from cockpit.core.store.detect import KINDS
from cockpit.core.store.exchange import import_folders
from cockpit.core.store.m2w_import import import_browser_use, import_mind2web, load_task_file
from cockpit.core.tasks.taskfile import load_reference_answers, load_tasks
from cockpit.core.words import plural

#: The kinds imported folder by folder: with progress, and cancellable between folders.
FOLDER_KINDS = ("webvoyager", "mind2web", "browser-use")


@dataclass
class ImportRequest:
    kind: str  # one of detect.KINDS
    path: Path
    tasks: Path | None = None  # webvoyager: the task JSONL; mind2web: Online_Mind2Web.json
    answers: Path | None = None  # webvoyager: reference answers JSON
    agent: str = ""  # mind2web, browser-use: the agent that made the runs
    annotator: str = ""  # labels from Online-Mind2Web's human_label.json: stored under this name
    task: str = ""  # browser-use: the task the histories were for


@dataclass
class ImportResult:
    kind: str
    imported: list[str] = field(default_factory=list)  # run ids
    skipped: list[str] = field(default_factory=list)  # "<what>: <why>"
    failed: list[str] = field(default_factory=list)  # "<what>: not imported: <why>"
    problems: list[str] = field(default_factory=list)  # "<what>: <problem>" of things imported all the same
    headline: str = ""  # the report in one line (what the command line prints on stdout)
    details: list[str] = field(default_factory=list)  # lines after it: labels merged, conflicts, added runs
    cancelled: bool = False
    done: int = 0  # folders (or files) gone through
    total: int = 0
    tasks: dict[str, str] = field(default_factory=dict)  # run id -> its task, of the runs imported

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def lines(self) -> list[str]:
        """The whole report in words, in the order a person reads it."""
        out = [self.headline, *self.details]
        if self.cancelled:
            out.append(f"cancelled after {self.done} of {self.total}: the rest were not imported; "
                       "importing the same path again goes on with them")
        for title, items in (("not imported", self.failed), ("skipped", self.skipped),
                             ("problems (imported all the same)", self.problems)):
            if items:
                out.append(f"{title}:")
                out += [f"  {x}" for x in items]
        if self.imported:
            out.append("imported:")
            out += [f"  {rid}" + (f": {self.tasks[rid]}" if self.tasks.get(rid) else "") for rid in self.imported]
        return out


def run_import(store: Store, req: ImportRequest, *, progress=None, cancel=None, warn=None) -> ImportResult:
    """Import what `req` names into `store`. `progress(done, total, path)` after each folder of a folder kind;
    `cancel()` true stops it between folders; `warn(text)` for problems of the task file given. Raises
    CockpitError (NothingToImport, StoreError, a bad task file...) when nothing could be imported."""
    if req.kind not in KINDS:
        raise ValueError(f"unknown import kind {req.kind!r}")
    result = ImportResult(req.kind)

    def counted(i: int, n: int, path) -> None:
        result.done, result.total = i, n
        if progress:
            progress(i, n, path)
    if req.kind == "webvoyager":
        _webvoyager(store, req, result, counted, cancel, warn)
    elif req.kind in ("mind2web", "browser-use"):
        _mind2web(store, req, result, counted, cancel)
    else:
        _bundle_or_labels(store, req, result)
    result.tasks = {rid: store.run(rid)["task"] for rid in result.imported}
    return result


def _webvoyager(store, req, result, progress, cancel, warn) -> None:
    tf = load_tasks(req.tasks) if req.tasks else None
    for pr in tf.problems[:20] if tf and warn else []:
        warn(f"{req.tasks}: {pr.message}")
    tasks = {t.id: t for t in tf.tasks} if tf else {}
    answers = load_reference_answers(req.answers) if req.answers else {}
    report = import_folders(store, req.path, tasks=tasks, answers=answers, progress=progress, cancel=cancel)
    result.imported, result.failed, result.problems = report.imported, report.failed, report.problems
    result.skipped = list(report.skipped)  # "<path>: already imported as run <id>"
    result.cancelled = report.cancelled
    result.headline = (f"imported {plural(len(report.imported), 'run')}, skipped {len(report.skipped)} already "
                       f"imported, {plural(len(report.problems), 'problem')}" + _not_imported(report.failed))
    if report.from_tasks:  # news, not a problem: --tasks supplied the task the folder's messages lack
        result.details = [f"{plural(len(report.from_tasks), 'task')} taken from {req.tasks.name} (the run "
                          f"folder{'s' if len(report.from_tasks) > 1 else ''} did not hold "
                          f"{'them' if len(report.from_tasks) > 1 else 'it'}):",
                          *(f"  {line}" for line in report.from_tasks)]


def _mind2web(store, req, result, progress, cancel) -> None:
    if req.kind == "browser-use":
        report = import_browser_use(store, req.path, task=req.task.strip(), agent=req.agent.strip() or "browser-use",
                                    progress=progress, cancel=cancel)
    else:
        tasks = load_task_file(req.tasks) if req.tasks else {}
        report = import_mind2web(store, req.path, tasks=tasks, agent=req.agent.strip(), progress=progress,
                                 cancel=cancel)
    result.imported, result.failed, result.problems = report.imported, report.failed, report.problems
    result.skipped = list(report.skipped)  # "<path>: already imported as run <id>"
    result.cancelled = report.cancelled
    result.headline = (f"imported {plural(len(report.imported), 'run')}, skipped {len(report.skipped)} already "
                       f"imported, {plural(report.missing_screenshots, 'step')} without a screenshot, "
                       f"{plural(report.unparsed_actions, 'action')} kept verbatim only"
                       + _not_imported(report.failed))


def _not_imported(failed: list[str]) -> str:
    return (f", {plural(len(failed), 'folder')} NOT imported (see above; importing again retries "
            f"{'it' if len(failed) == 1 else 'them'})" if failed else "")


def _bundle_or_labels(store, req, result) -> None:
    if req.kind == "bundle":
        report = import_bundle(store, req.path)
        merge, adj, kp = report.labels, report.adjudications, report.key_points
        result.imported = list(report.imported)
        result.skipped = [f"{rid}: already here, same content" for rid in report.skipped]
        result.headline = (f"imported {plural(len(report.imported), 'run')}, skipped {len(report.skipped)} "
                           "already here (same content)")
        result.details += [f"  added {rid}" for rid in report.imported]
        result.details += [f"  skipped {rid}: already here, same content" for rid in report.skipped]
    elif req.path.suffix.lower() == ".json":  # Online-Mind2Web's human_label.json
        merge, adj, kp = _human_labels(store, req, result), None, None
    else:
        merge, adj, kp = import_label_file(store, req.path), None, None
    result.done = result.total = 1
    labels = (f"labels: {merge.added} added, {merge.same} already here, "
              f"{plural(len(merge.conflicts), 'conflicting relabel')} (the newer kept)")
    if req.kind == "labels":
        result.headline = labels + (f"; {result.headline}" if result.headline else "")
    else:
        result.details.append(labels)
    result.details += [f"  conflict: {c}" for c in merge.conflicts]
    if kp and (kp.added or kp.same or kp.conflicts):
        result.details.append(f"key points (ticks and typed ones): {kp.added} added, {kp.same} already here, "
                              f"{len(kp.conflicts)} conflicting (the newer kept)")
        result.details += [f"  conflict: {c}" for c in kp.conflicts]
    if adj and (adj.added or adj.same or adj.conflicts):
        result.details.append(f"adjudicated verdicts: {adj.added} added, {adj.same} already here, "
                              f"{len(adj.conflicts)} conflicting (the newer kept)")
        result.details += [f"  conflict: {c}" for c in adj.conflicts]


def _human_labels(store, req, result):
    """Online-Mind2Web's human_label.json: its labels on the runs they match; the entries no run matches listed."""
    rep = import_human_labels(store, req.path, annotator=req.annotator or OM2W_ANNOTATOR)
    result.headline = (f"{plural(rep.entries, 'Online-Mind2Web label')} for {plural(rep.runs, 'run')} here, "
                       f"under {req.annotator or OM2W_ANNOTATOR}; {len(rep.unmatched)} unmatched")
    result.details += [f"  unmatched: {u}" for u in rep.unmatched]
    result.details += [f"  blank (no label given): {b}" for b in rep.blank]
    return rep.merge
