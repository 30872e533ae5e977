"""Moving runs between the store and WebVoyager run folders.

Export writes WebVoyager's layout exactly (``task<id>/screenshot{k}.png``,
``screenshot{k}_no_box.png``, ``interact_messages.json``, ``agent.log``) so
WebVoyager's own judge script scores our runs. Import reads such folders,
ours or WebVoyager's, into the store as runs like any other (source
'webvoyager'). The folder format itself lives in :mod:`cockpit.core.store.webvoyager`.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from cockpit.core.errors import CockpitError
from cockpit.core.store import webvoyager, wv_steps
from cockpit.core.store.db import STEP_FILES, Store, StoreError
from cockpit.core.store.detect import nothing_found
from cockpit.core.store.newrun import NewRun
from cockpit.core.store.staging import staging_dir, sweep
from cockpit.core.tasks.task import Task


def export_run(store: Store, run_id: str, out_root: Path, problems: list[str] | None = None,
               notes: list[str] | None = None) -> Path:
    """Write one run as ``out_root/task<id>/``; returns the folder.

    When ``task<id>`` already holds another run (a second run of the same task, or a folder
    Cockpit did not write), the run goes to ``task<id>-<run id>`` instead; a folder this run was
    exported to before is written over (see :func:`export_folder`).
    A screenshot file that is missing or unreadable leaves a gap (WebVoyager's layout allows
    them, as where a step errored) and a line in ``problems`` naming the file; the rest is written.
    What WebVoyager's format cannot hold (human steps, refusals, a pixel model's dialect) is written as
    :mod:`cockpit.core.store.wv_steps` says, kept in its side file, and said in ``notes``.
    """
    run, steps = store.run(run_id), store.steps(run_id)
    if not steps:
        raise CockpitError(f"run {run_id} has no steps to export")
    name, again = export_folder(Path(out_root), run)
    problems = [] if problems is None else problems
    shots, clean = {}, {}
    for s in steps:
        for key, into, what in (("screenshot", shots, "screenshot"), ("screenshot_clean", clean, "clean screenshot")):
            if not s[key]:
                continue
            try:
                data = store.read_file(s[key], f"{what} of step {s['step']}")  # the error names the file
            except CockpitError as e:
                problems.append(f"{e}; not exported")
                continue
            try:
                into[s["step"]] = webvoyager.as_png(data, s["step"])
            except CockpitError as e:
                problems.append(f"the {what} of step {s['step']} {store.file(s[key])} is damaged ({e}); "
                                "not exported")
    side = wv_steps.side_file(run, steps)
    if notes is not None:
        notes += side["notes"]
    extra = {wv_steps.SIDE_FILE: json.dumps(side, ensure_ascii=False, indent=2).encode("utf-8")}
    return webvoyager.write_run_folder(out_root, name, wv_steps.conversation(run, steps), shots, clean,
                                       _log_lines(run, steps), extra_files=extra, overwrite=again)


#: The first line of the agent.log Cockpit writes, naming the run (see :func:`_log_lines`).
_EXPORTED_RUN = re.compile(r"^[\d-]+ [\d:,]+ - INFO - Cockpit run (\S+) model ")


def exported_run(folder: Path) -> str | None:
    """The id of the Cockpit run exported into ``folder`` (the first line of its agent.log says it), else None."""
    try:
        with open(Path(folder) / webvoyager.LOG_FILE, encoding="utf-8", errors="replace") as f:
            m = _EXPORTED_RUN.match(f.readline(4096))
    except OSError:
        return None
    return m.group(1) if m else None


def export_folder(out_root: Path, run: dict) -> tuple[str, bool]:
    """(the id part of the folder name the run is exported under, whether that folder is this run's own
    earlier export, to be written over). ``task<id>`` when it is free or this run's; else
    ``task<id>-<run id>`` (a second run of the task); CockpitError when both hold something else."""
    task_id = run["task_id"] or run["id"]
    names = [task_id] if not run["task_id"] else [task_id, f"{task_id}-{run['id']}"]
    for name in names:
        folder = out_root / webvoyager.run_folder_name(name)
        if not folder.exists() or (folder.is_dir() and not any(folder.iterdir())):
            return name, False
        if folder.is_dir() and exported_run(folder) == run["id"]:
            return name, True
    taken = " and ".join(str(out_root / webvoyager.run_folder_name(n)) for n in names)
    raise CockpitError(f"{taken} already exist and hold something else; not writing over them "
                       "(export to another folder)")


def task_id_of(fr) -> str:
    """The task id of a read folder: ``task<id>-<run id>`` (a second run of a task, as Cockpit exports it)
    is task ``<id>``."""
    m = _EXPORTED_RUN.match(fr.log_text.split("\n", 1)[0]) if fr.log_text else None
    if m and fr.task_id.endswith(f"-{m.group(1)}") and len(fr.task_id) > len(m.group(1)) + 1:
        return fr.task_id[:-len(m.group(1)) - 1]
    return fr.task_id


def missing_step_files(store: Store, run_id: str) -> list[str]:
    """One line per screenshot a step of the run recorded that is no longer on disk, naming the file."""
    out = []
    for s in store.steps(run_id, with_request=False):
        for key, what in (("screenshot", "screenshot"), ("screenshot_clean", "clean screenshot")):
            if s.get(key) and not store.file(s[key]).is_file():
                out.append(f"step {s['step']}: the {what} {store.file(s[key])} is missing")
    return out


def _log_lines(run: dict, steps: list[dict]) -> list[str]:
    def stamp(t):
        return dt.datetime.fromtimestamp(t or 0).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
    lines = [f"{stamp(run['started'])} - INFO - Cockpit run {run['id']} model {run['model']}",
             f"{stamp(run['started'])} - INFO - Task: {run['task']}"]
    for s in steps:
        lines.append(f"{stamp(s['started'])} - INFO - Iter: {s['step']}")
        if s["reply"]:
            lines.append(f"{stamp(s['started'])} - INFO - {s['reply']}")
        if s["decision"]:
            d = s["decision"]
            lines.append(f"{stamp(s['finished'])} - INFO - approval: {'approved' if d['approved'] else 'refused'}"
                         f" by {d['by']}")
        if s["error"]:
            lines.append(f"{stamp(s['finished'])} - ERROR - {s['error']}")
    lines.append(f"{stamp(run['finished'])} - INFO - finished: {run['status']}"
                 + (f" - {run['answer']}" if run["answer"] is not None else ""))
    return lines


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)  # run ids
    skipped: list[str] = field(default_factory=list)  # "<folder>: already imported as run <id>"
    problems: list[str] = field(default_factory=list)  # "<folder>: <problem>" (imported all the same)
    failed: list[str] = field(default_factory=list)  # "<folder>: <why>": not imported at all
    from_tasks: list[str] = field(default_factory=list)  # "<folder>: <task id>": its task from the task file
    cancelled: bool = False  # stopped before the last folder (those done are kept)


def import_folders(store: Store, root: Path, *, tasks: dict[str, Task] | None = None,
                   answers: dict[str, list] | None = None, progress=None, cancel=None) -> ImportReport:
    """Import every run folder under `root`; folders already imported are skipped.

    Each folder is imported whole or not at all: a disk error while copying its files (disk full,
    a file that cannot be read) leaves no trace of it in the store, is listed in ``failed``, and the
    next folders are still imported; importing again retries it. A store that cannot be written
    (locked, read-only) stops the import with StoreError. `cancel()` true stops it between two folders
    (``cancelled``); NothingToImport when `root` holds no run folder.
    """
    report = ImportReport()
    folders = webvoyager.find_run_folders(root)
    if not folders:
        raise nothing_found("webvoyager", Path(root))
    sweep(store)  # files a killed import left behind
    for i, folder in enumerate(folders, 1):
        if cancel is not None and cancel():
            report.cancelled = True
            break
        fr = webvoyager.read_run_folder(folder)
        fr.task_id = task_id_of(fr)
        filled = not fr.task and fr.task_id in (tasks or {})  # the task file says it: what --tasks is for
        if filled:
            fr.problems = [p for p in fr.problems if p != webvoyager.NO_TASK]
        report.problems += [f"{folder}: {p}" for p in fr.problems]
        run_id = _import_id(folder)
        if not store.missing_runs([run_id]):
            report.skipped.append(f"{folder}: already imported as run {run_id}")
        else:
            try:
                _import_one(store, fr, run_id, tasks or {}, answers or {})
                report.imported.append(run_id)
                report.from_tasks += [f"{folder}: {fr.task_id}"] if filled else []
            except StoreError:
                raise
            except OSError as e:
                where = f" ({e.filename})" if e.filename else ""
                report.failed.append(f"{folder}: not imported: {e.strerror or e}{where}; nothing of it was kept")
            except CockpitError as e:
                report.failed.append(f"{folder}: not imported: {e}; nothing of it was kept")
        if progress:
            progress(i, len(folders), folder)
    return report


def _import_id(folder: Path) -> str:
    digest = hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:10]
    return f"wv-{digest}"


def _import_one(store: Store, fr, run_id: str, tasks: dict, answers: dict) -> None:
    """Files are copied to a staging folder first; the rows go in one transaction, and the folder is
    moved into place just before it commits. Any failure removes both: no half-imported run."""
    known = tasks.get(fr.task_id)
    task = fr.task or (known.task if known else "")
    url = fr.url or (known.url if known else "")
    side = wv_steps.read_side(fr.path)
    started = own_start(fr, side)
    config = {"imported_from": str(fr.path), "problems": fr.problems}
    if started is None:  # the folder does not say when the run began: Review says when it was imported
        started, config["started_known"] = time.time(), False
    if fr.task_id in answers:
        config["reference_answers"] = answers[fr.task_id]
    final, staging = store.run_dir(run_id), staging_dir(store, run_id)
    moved = False
    try:
        shutil.rmtree(staging, ignore_errors=True)
        sides = wv_steps.side_steps(side)
        rows = [_stage_step(store, staging, run_id, st, fr, started, sides) for st in fr.steps]
        answer = fr.answer
        if answer is None and rows and rows[-1]["status"] == "answered":  # a pixel dialect's answer (finished(...))
            answer = wv_steps.answer_of(rows[-1]["action"])
        with store.atomic():
            store.new_run(NewRun(task, url, task_id=fr.task_id, site=known.site if known else "",
                                 model=str((side or {}).get("model") or "(imported)"),
                                 config=config, source="webvoyager", run_id=run_id, started=started, status="running"))
            for row in rows:
                store.commit_step(run_id, row)
            ended = (side or {}).get("status")
            store.finish_run(run_id, ended if ended in wv_steps.ENDINGS else "answered" if answer is not None
                             else "ended", answer=answer)
            store.set_run(run_id, finished=_number((side or {}).get("finished")) or started)
            shutil.rmtree(final, ignore_errors=True)  # files of an earlier failed attempt, with no rows
            staging.mkdir(parents=True, exist_ok=True)
            os.replace(staging, final)
            moved = True
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if moved:  # the files were in place but the rows did not commit
            shutil.rmtree(final, ignore_errors=True)
        raise


#: The time at the head of an agent.log line, as WebVoyager's logging writes it.
_LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:,(\d{1,6}))? - ")


def own_start(fr, side: dict | None) -> float | None:
    """When the run in a WebVoyager folder began, from what the folder records: Cockpit's side file, else the
    first time in agent.log, else the timestamp folder above it. None when it records none (the files' own
    times say when they were copied, not when the run was made)."""
    if (t := _number((side or {}).get("started"))) is not None:
        return t
    for line in fr.log_text.splitlines()[:5]:
        if m := _LOG_TIME.match(line):
            return dt.datetime.fromisoformat(m.group(1)).timestamp() + float(f"0.{m.group(2) or 0}")
    if fr.started:
        try:
            return dt.datetime.fromisoformat(fr.started).timestamp()
        except ValueError:
            pass
    return None


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def _stage_step(store: Store, staging: Path, run_id: str, st, fr, started: float, sides: dict) -> dict:
    """Copy a step's screenshots into the staging folder; the step's row, with the files' final paths."""
    final = store.step_dir(run_id, st.index)
    d = staging / final.name
    d.mkdir(parents=True, exist_ok=True)
    files = {}
    for key, src in (("screenshot", st.screenshot), ("screenshot_clean", st.screenshot_clean)):
        if src is not None:
            shutil.copyfile(src, d / STEP_FILES[key])
            files[key] = store.step_file(run_id, st.index, key)
    side = sides.get(st.index)
    action, pointer = wv_steps.read_action(st.action, st.reply, side)
    status = "format_error" if action is None else ("answered" if action.kind == "answer" else "ok")
    row = dict(step=st.index, reply=st.reply, thought=st.thought, action_text=st.action,
               action=str(action) if action else None, target=action.target if action else None,
               status=status, request=_request_before(fr.messages, st.index), started=started,
               finished=started, **files)
    if side:  # exported by Cockpit: who acted, and what became of the action (refused at the gate, failed...)
        row.update({k: side[k] for k in wv_steps.KEPT_STEP_FIELDS if k in side})
        row.update(actor=side.get("actor") or "agent", outcome=side.get("outcome"), error=side.get("error"),
                   decision=side.get("decision"), pointer=pointer)
        if action is not None and side.get("status") in RECORDED_STATUSES:
            row["status"] = side["status"]
        edited = wv_steps.edited_action(side)
        if edited is not None and action is not None:  # the person's edit ran; the reply keeps the model's
            row.update(action=str(edited), target=edited.target)
        if row["actor"] == "human":
            row.update(reply=None, thought=None, action_text=row["action"], request=[])
    return row


#: The statuses of an exported step that its side file restores (the others follow from its action).
RECORDED_STATUSES = ("ok", "answered", "refused", "error", "changed")


def _request_before(messages: list, k: int) -> list:
    """The messages up to (not including) the k-th assistant reply."""
    seen = 0
    for i, m in enumerate(messages):
        if isinstance(m, dict) and m.get("role") == "assistant":
            seen += 1
            if seen == k:
                return messages[:i]
    return []
