"""`cockpit import mind2web DIR`: Online-Mind2Web result folders (any harness's) into the store.

Each folder (see :mod:`cockpit.core.store.m2w_read`) becomes one run, imported whole or not at all
(files staged, rows in one transaction), with the id ``m2w-<hash of the folder and the agent>``: importing
again skips it. Action strings are kept verbatim (``action_text``); those in a form Cockpit's grammar
reads also get their canonical action (``Click at (963, 72)`` is ``Click (963, 72)``, drawn as a point in
Review): the plain forms of the pixel grammar, v2's ``CLICK coords(x, y) -> …`` and ``click_at(x=…, y=…)``.
Element-description forms (``<button> Search -> CLICK``) are kept as written. A harness's own verdicts
become judge verdicts named ``<agent>:<name>`` (``browser-use:judge``), for `cockpit agreement`.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from PIL import Image

from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.errors import ActionParseError, CockpitError
from cockpit.core.store import labels, m2w_own
from cockpit.core.store.bu_read import NO_TASK, find_histories, read_history, sibling_task
from cockpit.core.store.db import STEP_FILES, Store, StoreError
from cockpit.core.store.detect import nothing_found
from cockpit.core.store.m2w_read import M2WRun, M2WStep, find_result_folders, read_result_folder
from cockpit.core.store.newrun import NewRun
from cockpit.core.store.staging import staging_dir, sweep

SOURCE = "mind2web"
BU_SOURCE = "browser-use"
_SUFFIX = re.compile(r"_\d{6}$")  # a replaced task's date suffix: <task_id>_110325


@dataclass
class M2WReport:
    imported: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # "<folder>: <why>": nothing of it kept
    problems: list[str] = field(default_factory=list)  # "<folder>: <what>": imported all the same
    missing_screenshots: int = 0
    unparsed_actions: int = 0
    cancelled: bool = False  # stopped before the last folder (those done are kept)
    existing: dict[str, str] = field(default_factory=dict)  # path -> the run it was already imported as (skipped)


def load_task_file(path: Path) -> dict[str, dict]:
    """Online_Mind2Web.json: task id -> {task_id, confirmed_task, website, reference_length, level}."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CockpitError(f"cannot read the task file {path}: {e}") from None
    if not isinstance(data, list) or not all(isinstance(t, dict) and t.get("task_id") for t in data):
        raise CockpitError(f"{path} is not Online-Mind2Web's task list (a JSON array of objects with task_id)")
    return {str(t["task_id"]): t for t in data}


def base_task_id(task_id: str) -> str:
    """A task id without a replaced task's date suffix (<id>_110325 is <id>)."""
    return _SUFFIX.sub("", task_id)


def task_of(task_id: str, tasks: dict[str, dict]) -> dict | None:
    """The task a folder's id names; a suffixed id (<id>_110325) matches its task either way round."""
    return tasks.get(task_id) or tasks.get(_SUFFIX.sub("", task_id)) or next(
        (t for k, t in tasks.items() if _SUFFIX.sub("", k) == _SUFFIX.sub("", task_id)), None)


def normalise(text: str) -> str:
    """A harness's action string in the form the grammar reads, where there is one (else as it was)."""
    t = text.strip()
    t = re.sub(r"\s*\|\s*(SUCCESS|FAILED)\s*$", "", t)  # v2's status suffix
    if m := re.match(r"^(CLICK|HOVER)\s+coords\((-?\d+(?:\.\d+)?),\s*(-?\d+(?:\.\d+)?)\)", t, re.I):
        return f"{m.group(1).title()} ({m.group(2)}, {m.group(3)})"
    if m := re.match(r"^(click|hover)_at\(\s*x\s*=\s*(-?[\d.]+)\s*,\s*y\s*=\s*(-?[\d.]+)\s*\)$", t, re.I):
        return f"{m.group(1).title()} ({m.group(2)}, {m.group(3)})"
    if m := re.match(r"""^type_at\(\s*x\s*=\s*(-?[\d.]+)\s*,\s*y\s*=\s*(-?[\d.]+)\s*,\s*text\s*=\s*(["'])(.*)\3\s*\)$""",
                     t, re.I | re.S):
        return f"Type ({m.group(1)}, {m.group(2)}); {m.group(4)}"
    if m := re.match(r"""^navigate\(\s*url\s*=\s*(["'])(.*)\1\s*\)$""", t, re.I):
        return f"Goto [{m.group(2)}]"
    if m := re.match(r"^(drag)\s+from\s+(.*)$", t, re.I):
        return f"Drag {m.group(2)}"
    return t


def parse_harness_action(text: str) -> Action | None:
    """The canonical action of a harness's action string; None when the grammar cannot read it."""
    if not text or "->" in text and not re.match(r"^(CLICK|HOVER)\s+coords\(|^ANSWER", text.strip(), re.I):
        return None  # "<button> Search -> CLICK": an element description, kept verbatim
    if re.match(r"^navigate\s+(forward|reload|refresh)\b", text.strip(), re.I):
        return None  # no counterpart in the grammar (and not "Goto [forward]")
    try:
        return parse_action(normalise(text))
    except ActionParseError:
        return None


def import_mind2web(store: Store, root: Path, *, tasks: dict[str, dict] | None = None, agent: str = "",
                    progress=None, cancel=None) -> M2WReport:
    """Import every result folder under `root` (see the module doc); StoreError stops it (locked, read-only)."""
    folders = find_result_folders(Path(root))
    if not folders:
        raise nothing_found("mind2web", Path(root))
    return import_runs(store, folders, read_result_folder, "m2w", SOURCE, tasks=tasks, agent=agent,
                       progress=progress, cancel=cancel)


def import_browser_use(store: Store, root: Path, *, task: str = "", agent: str = "browser-use",
                       progress=None, cancel=None) -> M2WReport:
    """Import browser-use history files (one, or every one below a folder); see cockpit.core.store.bu_read."""
    paths = find_histories(Path(root))
    if not paths:
        raise nothing_found("browser-use", Path(root))
    report = import_runs(store, paths, lambda p: read_history(p, task), "bu", BU_SOURCE, agent=agent,
                         progress=progress, cancel=cancel)
    if task:
        _give_task(store, report, task)
    if task and len(paths) > 1:
        report.problems.append(f"--task was given for {len(paths)} histories: each without a result.json beside "
                               "it got that task")
    return report


def _give_task(store: Store, report: M2WReport, task: str) -> None:
    """Histories already imported without a task (none in the file, none given then) get `task` now: said on their
    skipped line (walkthrough 5: a taskless run could not be mended)."""
    for path, run_id in report.existing.items():
        if not store.run(run_id)["task"].startswith(NO_TASK) or sibling_task(Path(path)):
            continue
        store.set_run(run_id, task=task)
        line = next(i for i, s in enumerate(report.skipped) if s.endswith(f"already imported as run {run_id}"))
        report.skipped[line] += "; it had no task, and now has the one given"


def import_runs(store: Store, paths: list[Path], read, prefix: str, source: str, *, tasks: dict | None = None,
                agent: str = "", progress=None, cancel=None) -> M2WReport:
    """Import each of `paths` with `read(path) -> M2WRun` as a run of `source` (``<prefix>-<hash>`` ids);
    `cancel()` true stops it between two of them (``cancelled``)."""
    report = M2WReport()
    sweep(store)
    seen = _imported_contents(store, source)
    for i, folder in enumerate(paths, 1):
        if cancel is not None and cancel():
            report.cancelled = True
            break
        shown = _printable(str(folder))
        try:
            content, with_agent = _content_ids(folder, agent)
            run_id = f"{prefix}-{with_agent}"
            before = run_id if not store.missing_runs([run_id]) else seen.get(content)
            if before:
                report.skipped.append(f"{shown}: already imported as run {before}")
                report.existing[str(folder)] = before
            else:
                run = read(folder)
                _import_one(store, run, run_id, tasks or {}, agent, report, source, content)
                report.imported.append(run_id)
                if source == BU_SOURCE:
                    seen[content] = run_id
                where = _printable(folder.parent.name + "/" + folder.name if folder.is_file() else folder.name)
                report.problems += [f"{where}: {p}" for p in run.problems]
                report.missing_screenshots += run.missing
        except StoreError:
            raise
        except OSError as e:
            report.failed.append(f"{shown}: not imported: {e.strerror or e} ({e.filename}); nothing of it was kept")
        except CockpitError as e:
            report.failed.append(f"{shown}: not imported: {e}; nothing of it was kept")
        except Exception as e:  # odd but possible input (a huge image, a field of an unexpected type): this one only
            report.failed.append(f"{shown}: not imported: {type(e).__name__}: {_printable(str(e))[:300]}; "
                                 "nothing of it was kept")
        if progress:
            progress(i, len(paths), folder)
    return report


def _imported_contents(store: Store, source: str) -> dict[str, str]:
    """{content id: run id} of the runs already imported from `source`, read once per import. Only for browser-use:
    a history is the same run whatever --agent said (a second import without it must not duplicate the run); an
    Online-Mind2Web folder imported under another agent is that agent's run (its labels are matched by agent)."""
    if source != BU_SOURCE:
        return {}
    rows = store.rows("SELECT id, json_extract(config, '$.content') AS content FROM runs WHERE source = ? AND "
                      "json_valid(config)", [source])
    return {r["content"]: r["id"] for r in rows if r["content"]}


def _import_one(store: Store, run: M2WRun, run_id: str, tasks: dict, agent: str, report: M2WReport,
                source: str = SOURCE, content: str = "") -> None:
    known = task_of(run.task_id, tasks) or {}
    url = str(known.get("website") or next((s.url for s in run.steps if s.url), ""))
    started = run.started or time.time()  # no time in the source: the import's, and Review says so
    run.task_id = _printable(run.task_id)
    config = {"imported_from": _printable(str(run.path)), "schema": run.schema, "agent": agent, "content": content,
              **({} if run.started else {"started_known": False}),
              "problems": run.problems, "lists": run.extra_lists,
              "missing_screenshots": run.missing, **({"harness": run.extra} if run.extra else {}),
              "trajectory_names": {str(k): s.screenshot.name for k, s in enumerate(run.steps, 1)
                                   if s.screenshot and not s.not_run},
              **_not_executed(run.steps),
              **{k: known[k] for k in ("level", "reference_length") if k in known}}
    final, staging = store.run_dir(run_id), staging_dir(store, run_id)
    moved = False
    try:
        shutil.rmtree(staging, ignore_errors=True)
        rows = [_stage_step(store, staging, run_id, k, s, started, report) for k, s in enumerate(run.steps, 1)]
        with store.atomic():
            store.new_run(NewRun(run.task, url, task_id=run.task_id, site=_site(url), model=agent or "(imported)",
                                 config=config, source=source, run_id=run_id, started=started, status="running"))
            for row in rows:
                store.commit_step(run_id, row)
            gave_up = str(run.extra.get("result_status") or "").lower() == "error" and not run.answer
            store.finish_run(run_id, "answered" if run.answer is not None and not gave_up else "ended",
                             answer=run.answer)
            store.set_run(run_id, finished=started)
            for name, verdict, reasoning in run.verdicts:
                labels.set_verdict(store, run_id, f"{agent or source}:{name}", 0, "harness", verdict, reply=reasoning)
            shutil.rmtree(final, ignore_errors=True)
            staging.mkdir(parents=True, exist_ok=True)
            os.replace(staging, final)
            moved = True
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if moved:
            shutil.rmtree(final, ignore_errors=True)
        raise


def _stage_step(store: Store, staging: Path, run_id: str, k: int, s: M2WStep, started: float,
                report: M2WReport) -> dict:
    files = {}
    if s.screenshot is not None or s.image is not None:
        d = staging / store.step_dir(run_id, k).name
        d.mkdir(parents=True, exist_ok=True)
        data = s.image if s.image is not None else s.screenshot.read_bytes()
        if not data.startswith(b"\x89PNG"):  # JPEG or WebP: the store keeps PNG
            with Image.open(io.BytesIO(data)) as im:
                buf = io.BytesIO()
                im.save(buf, "PNG")
                data = buf.getvalue()
        (d / STEP_FILES["screenshot_clean"]).write_bytes(data)  # no marks to draw: one file serves both
        files["screenshot"] = files["screenshot_clean"] = store.step_file(run_id, k, "screenshot_clean")
    text = s.action_plain or s.action  # without Cockpit's " (human)" mark: Goto [url], not Goto [[url] (human)]
    action = s.canonical if s.canonical is not None else parse_harness_action(text) if text else None
    if s.action and action is None:
        report.unparsed_actions += 1
    status = s.status or ("answered" if s.answer else "error" if s.error else "ok")
    return dict(step=k, thought=s.thought, action_text=s.action, action=str(action) if action else None,
                target=action.target if action else None, status=status, url=s.url or None, title=s.title or None,
                error=s.error or None, reply=s.thought, started=started, finished=started, actor=s.actor,
                outcome=s.outcome or None, decision=s.decision, **files)


def _not_executed(steps: list[M2WStep]) -> dict:
    """{"not_executed": {step: its screenshot's path in the folder}}: the steps a folder Cockpit exported kept beside
    action_history (m2w_own), written back there (not into trajectory/) when the run is exported again."""
    kept = {str(k): f"{m2w_own.FOLDER}/{s.screenshot.name if s.screenshot else ''}"
            for k, s in enumerate(steps, 1) if s.not_run}
    return {"not_executed": kept} if kept else {}


def _content_ids(path: Path, agent: str) -> tuple[str, str]:
    """What identifies an imported run, without and with the agent: the folder's content (its result or history
    file and its screenshots' names and sizes, read once), so a copy is skipped and a folder whose files changed
    (an LFS pull) is new."""
    main = path if path.is_file() else path / "result.json"
    content = main.read_bytes()
    shots = main.parent / ("trajectory" if not path.is_file() else "screenshots")
    names = b"".join(os.fsencode(p.name) + str(p.stat().st_size).encode()
                     for p in sorted(shots.iterdir())) if shots.is_dir() else b""

    def digest(who: str) -> str:
        return hashlib.sha1(who.encode() + b"\0" + content + names).hexdigest()[:12]
    return digest(""), digest(agent)


def _printable(text: str) -> str:
    """A path or message with undecodable bytes of file names replaced, fit for the store and the terminal."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _site(url: str) -> str:
    host = urlparse(url).hostname or ""
    return host[4:] if host.startswith("www.") else host
