"""Online-Mind2Web's published human labels, ``human_label.json``, read into the store and written from it, so
the benchmark's own human judgements can be set against any judge in Cockpit.

The file is a JSON array with one object per task: ``task_id``, ``confirmed_task`` and, per agent, a key
``<agent>_human_label`` (``Operator_human_label``, ``Browser_Use_human_label``...) holding 0 (fail), 1 (success)
or 2 (not executable: the task could not be attempted), written as a string ("1") in the published file.

Reading: each (task, agent) entry is matched to the store's runs of that task id (a replaced task's date
suffix, ``<id>_110325``, matches either way round) whose model is that agent, as `cockpit import mind2web
--agent NAME` records it; agent names match ignoring case, spaces, ``_`` and ``-`` ("Browser_Use" is
"browser-use"). Every run matched gets the label, under one annotator (default ``online-mind2web``), merged
as label files merge (:mod:`cockpit.core.store.labelmerge`). Entries no run matches are reported, never
dropped in silence. A not-executable label has no reason in the file: it is stored without one.

Writing: one object per task id, ``<model>_human_label`` for each run's model (spaces as ``_``), the value the
human consensus after adjudication gives (or one annotator's label); runs without one are left out and
counted. Importing what was written gives the same labels back.
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from cockpit.core.errors import CockpitError
from cockpit.core.review.consensus import CODES, adjudicated_consensus, not_executable
from cockpit.core.store.db import Store
from cockpit.core.store.labelmerge import LabelMerge, merge_labels
from cockpit.core.store.labels import NOT_EXECUTABLE
from cockpit.core.store.labels import labels as _labels
from cockpit.core.store.m2w_import import base_task_id

#: The key suffix of an agent's label in human_label.json.
SUFFIX = "_human_label"
#: Online-Mind2Web's codes: 0 fail, 1 success, 2 not executable.
VERDICT_OF = {0: "fail", 1: "success", 2: NOT_EXECUTABLE}
#: The annotator published labels are stored under unless another is named.
ANNOTATOR = "online-mind2web"


@dataclass
class HumanLabelImport:
    merge: LabelMerge = field(default_factory=LabelMerge)
    entries: int = 0  # (task, agent) labels in the file
    runs: int = 0  # runs labelled (an entry may match several runs of its task and agent)
    unmatched: list[str] = field(default_factory=list)  # "task <id>, agent <name>: <why>"
    blank: list[str] = field(default_factory=list)  # entries with no label ("" or null)


@dataclass
class HumanLabelExport:
    path: Path
    tasks: int = 0
    labels: int = 0
    without: list[str] = field(default_factory=list)  # run ids left out: no human verdict
    doubled: list[str] = field(default_factory=list)  # "task <id>, agent <name>: runs a, b": the newest written


def agent_key(name: str) -> str:
    """How agent names match: lower case, without spaces, '_' and '-' ("Browser_Use" and "browser-use" alike)."""
    return re.sub(r"[\s_\-]+", "", name).lower()


def looks_like_human_labels(data) -> bool:
    """A JSON value read from a file is Online-Mind2Web's human_label.json (its shape, not its values)."""
    return isinstance(data, list) and bool(data) and all(
        isinstance(e, dict) and "task_id" in e and any(str(k).endswith(SUFFIX) for k in e) for e in data)


def read_human_labels(path: Path | str) -> list[tuple[str, str, int | None]]:
    """The file's entries: ``(task_id, agent, code)``, code 0/1/2 or None (a blank entry). CockpitError naming
    the entry for a file of another shape or a value other than 0, 1, 2 (or blank); nothing is read then."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError:
        raise CockpitError(f"{path} is not UTF-8 text: not Online-Mind2Web's human_label.json") from None
    except ValueError as e:
        raise CockpitError(f"{path}: not JSON ({e})") from None
    if not looks_like_human_labels(data):
        raise CockpitError(f"{path} is not Online-Mind2Web's human_label.json: expected a JSON array of objects "
                           f"with task_id and <agent>{SUFFIX} keys (0 fail, 1 success, 2 not executable)")
    out = []
    for n, entry in enumerate(data, 1):
        for key, value in entry.items():
            if not str(key).endswith(SUFFIX):
                continue
            agent = str(key)[:-len(SUFFIX)]
            code = _code(value)
            if code is False:
                raise CockpitError(f"{path}, task {entry['task_id']} (entry {n}), {key}: {value!r} is not 0 (fail), "
                                   "1 (success) or 2 (not executable); nothing was imported")
            out.append((str(entry["task_id"]), agent, code))
    return out


def _code(value) -> int | None | bool:
    """0, 1 or 2; None for a blank entry; False for anything else."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return False
    try:
        code = int(str(value).strip())
    except ValueError:
        return False
    return code if code in VERDICT_OF and str(value).strip() == str(code) else False


def import_human_labels(store: Store, path: Path | str, *, annotator: str = ANNOTATOR) -> HumanLabelImport:
    """Store the file's labels on the runs they match (all in one transaction; nothing when the file is bad)."""
    annotator = annotator.strip() or ANNOTATOR
    entries = read_human_labels(path)
    report = HumanLabelImport(entries=len(entries))
    runs = _runs_by_task_and_agent(store)
    now, rows = time.time(), []
    for task_id, agent, code in entries:
        where = f"task {task_id}, agent {agent}"
        if code is None:
            report.blank.append(where)
            continue
        matched = runs.get((base_task_id(task_id), agent_key(agent)), [])
        if not matched:
            others = sorted({r["model"] for (t, _a), rs in runs.items() if t == base_task_id(task_id) for r in rs})
            report.unmatched.append(f"{where}: no run of this task by this agent in the store" + (
                f" (its runs here are by {', '.join(others)})" if others else " (no run of this task here)"))
            continue
        for run in matched:
            rows.append({"run_id": run["id"], "annotator": annotator, "verdict": VERDICT_OF[code], "category": "",
                         "comment": f"Online-Mind2Web human label {code} ({Path(path).name})", "seconds": 0.0,
                         "blind": 0, "created": now})
    report.runs = len({r["run_id"] for r in rows})
    report.merge = merge_labels(store, rows, source=Path(path).name)
    return report


def _runs_by_task_and_agent(store: Store) -> dict[tuple[str, str], list[dict]]:
    out: dict[tuple[str, str], list[dict]] = {}
    for run in store.run_summaries():
        if run["task_id"] and run["model"]:
            out.setdefault((base_task_id(str(run["task_id"])), agent_key(run["model"])), []).append(run)
    return out


def human_codes(store: Store, annotator: str | None = None) -> dict[str, int]:
    """Each run's human label as Online-Mind2Web codes it (0, 1, 2): the consensus after adjudication, not
    executable included; or, with `annotator`, that annotator's own label (unsure left out)."""
    if annotator:
        return {x["run_id"]: CODES[x["verdict"]] for x in _labels(store, annotator=annotator) if x["verdict"] in CODES}
    codes = dict(adjudicated_consensus(store))
    codes.update(dict.fromkeys(not_executable(store), CODES[NOT_EXECUTABLE]))
    return codes


def write_human_labels(store: Store, run_ids: list[str] | None, path: Path | str, *,
                       annotator: str | None = None) -> HumanLabelExport:
    """Write the runs' human labels (all runs when `run_ids` is None) as human_label.json."""
    path = Path(path)
    report = HumanLabelExport(path)
    codes = human_codes(store, annotator)
    runs = store.run_summaries()
    wanted = None if run_ids is None else set(run_ids)
    tasks: dict[str, dict] = {}
    chosen: dict[tuple[str, str], dict] = {}
    for run in sorted(runs, key=lambda r: r["started"] or 0):  # the newest run of a task and agent last: it wins
        if wanted is not None and run["id"] not in wanted:
            continue
        if run["id"] not in codes or not run["task_id"]:
            report.without.append(run["id"])
            continue
        key = (str(run["task_id"]), (run["model"] or "(imported)").replace(" ", "_") + SUFFIX)
        if key in chosen:
            report.doubled.append(f"task {key[0]}, agent {key[1][:-len(SUFFIX)]}: runs {chosen[key]['id']}, "
                                  f"{run['id']} (the newest written)")
        chosen[key] = run
        tasks.setdefault(key[0], {"task_id": key[0], "confirmed_task": run["task"] or ""})
    for (task_id, agent), run in chosen.items():
        tasks[task_id][agent] = str(codes[run["id"]])
    report.tasks, report.labels = len(tasks), len(chosen)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps([tasks[t] for t in sorted(tasks)], ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return report
