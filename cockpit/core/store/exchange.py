"""Moving runs between the store and WebVoyager run folders.

Export writes WebVoyager's layout exactly (``task<id>/screenshot{k}.png``,
``screenshot{k}_no_box.png``, ``interact_messages.json``, ``agent.log``) so
WebVoyager's own judge script scores our runs. Import reads such folders,
ours or WebVoyager's, into the store as runs like any other (source
'webvoyager'). The folder format itself lives in :mod:`cockpit.core.webvoyager`.
"""
from __future__ import annotations

import copy
import datetime as dt
import hashlib
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import prompt, webvoyager
from ..actions.grammar import parse_action
from ..errors import ActionParseError, CockpitError
from ..tasks import Task
from .db import Store


def export_run(store: Store, run_id: str, out_root: Path) -> Path:
    """Write one run as ``out_root/task<id>/``; returns the folder."""
    run, steps = store.run(run_id), store.steps(run_id)
    if not steps:
        raise CockpitError(f"run {run_id} has no steps to export")
    shots, clean = {}, {}
    for s in steps:
        if s["screenshot"] and store.file(s["screenshot"]).exists():
            shots[s["step"]] = store.read_file(s["screenshot"], f"screenshot of step {s['step']}")
        if s["screenshot_clean"] and store.file(s["screenshot_clean"]).exists():
            clean[s["step"]] = store.read_file(s["screenshot_clean"])
    return webvoyager.write_run_folder(out_root, run["task_id"] or run_id, _final_messages(steps), shots, clean,
                                       _log_lines(run, steps))


def _final_messages(steps: list[dict]) -> list:
    """The conversation as it stood at the end: the last request plus the last reply."""
    last = steps[-1]
    msgs = copy.deepcopy(last["request"] or [])
    if last["reply"] is not None:
        reply = last["reply"]
        if last["status"] == "answered" and "Action: ANSWER" not in reply:
            # We parse "**action:** answer [x]" too; WebVoyager's judge only finds "Action: ANSWER".
            reply = f"Thought: {last['thought'] or ''}\n\nAction: {last['action']}"
        msgs.append({"role": "assistant", "content": reply})
    for m in msgs:
        for part in m["content"] if isinstance(m.get("content"), list) else []:
            if part.get("type") == "image_url" and part["image_url"]["url"].startswith(prompt.IMAGE_REF):
                part["image_url"]["url"] = webvoyager.PLACEHOLDER
    return msgs


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
    skipped: list[str] = field(default_factory=list)  # folders already in the store
    problems: list[str] = field(default_factory=list)  # "<folder>: <problem>"


def import_folders(store: Store, root: Path, *, tasks: dict[str, Task] | None = None,
                   answers: dict[str, list] | None = None, progress=None) -> ImportReport:
    """Import every run folder under `root`; folders already imported are skipped."""
    report = ImportReport()
    folders = webvoyager.find_run_folders(root)
    for i, folder in enumerate(folders, 1):
        fr = webvoyager.read_run_folder(folder)
        report.problems += [f"{folder}: {p}" for p in fr.problems]
        run_id = _import_id(folder)
        try:
            store.run(run_id)
            report.skipped.append(str(folder))
        except CockpitError:
            _import_one(store, fr, run_id, tasks or {}, answers or {})
            report.imported.append(run_id)
        if progress:
            progress(i, len(folders), folder)
    return report


def _import_id(folder: Path) -> str:
    digest = hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:10]
    return f"wv-{digest}"


def _import_one(store: Store, fr, run_id: str, tasks: dict, answers: dict) -> None:
    known = tasks.get(fr.task_id)
    task = fr.task or (known.task if known else "")
    url = fr.url or (known.url if known else "")
    started = _started(fr)
    config = {"imported_from": str(fr.path), "problems": fr.problems}
    if fr.task_id in answers:
        config["reference_answers"] = answers[fr.task_id]
    store.new_run(task, url, task_id=fr.task_id, site=known.site if known else "", model="(imported)",
                  config=config, source="webvoyager", run_id=run_id, started=started, status="running")
    for st in fr.steps:
        _import_step(store, run_id, st, fr, started)
    status = "answered" if fr.answer is not None else "ended"
    store.finish_run(run_id, status, answer=fr.answer)
    store.set_run(run_id, finished=started)


def _started(fr) -> float:
    if fr.started:
        try:
            return dt.datetime.fromisoformat(fr.started).timestamp()
        except ValueError:
            pass
    return fr.path.stat().st_mtime if fr.path.exists() else time.time()


def _import_step(store: Store, run_id: str, st, fr, started: float) -> None:
    d = store.step_dir(run_id, st.index)
    d.mkdir(parents=True, exist_ok=True)
    files = {}
    for key, src, name in (("screenshot", st.screenshot, "marked.png"),
                           ("screenshot_clean", st.screenshot_clean, "screenshot.png")):
        if src is not None:
            shutil.copyfile(src, d / name)
            files[key] = str((d / name).relative_to(store.root))
    try:
        action = parse_action(st.action) if st.action else None
    except ActionParseError:
        action = None
    status = "format_error" if action is None else ("answered" if action.kind == "answer" else "ok")
    store.commit_step(run_id, dict(
        step=st.index, reply=st.reply, thought=st.thought, action_text=st.action,
        action=str(action) if action else None, target=action.target if action else None,
        status=status, request=_request_before(fr.messages, st.index), started=started, finished=started,
        **files))


def _request_before(messages: list, k: int) -> list:
    """The messages up to (not including) the k-th assistant reply."""
    seen = 0
    for i, m in enumerate(messages):
        if isinstance(m, dict) and m.get("role") == "assistant":
            seen += 1
            if seen == k:
                return messages[:i]
    return []
