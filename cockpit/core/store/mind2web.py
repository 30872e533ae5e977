"""A run in Online-Mind2Web's submission layout, for its judges (WebJudge and the others in its ``src/run.py``).

    OUT/<task_id>/result.json        {"task_id", "task", "final_result_response", "action_history",
                                      "thoughts", "cockpit_run"}
    OUT/<task_id>/trajectory/<k>_screenshot.png   the page action_history[k] was taken on, k = 0, 1, ...;
                                                  k = len(action_history): the page the answer was given on

``action_history`` holds the actions done on the site as strings (its final ``ANSWER`` is not one: the
answer is ``final_result_response``); human steps of a take-over are included, marked "(human)". Actions
that never ran (refused at the gate, dropped by a take-over, failed) are left out, and kept for Cockpit's
own import in ``cockpit_not_executed`` (see :mod:`cockpit.core.store.m2w_own`). The screenshots are the clean ones, as Online-Mind2Web's agents record them (the marked one
where no clean one was kept). Another run of the same task goes to ``<task_id>-<run id>``; a folder
this run was exported to before is written over.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from cockpit.core.errors import CockpitError
from cockpit.core.store import m2w_own, webvoyager
from cockpit.core.store.db import Store

RESULT = "result.json"


def _folder_name(run: dict) -> str:
    name = re.sub(r"[^\w.-]+", "_", str(run["task_id"] or run["id"])).strip("._") or run["id"]
    return name


def _target(out: Path, run: dict) -> Path:
    """The task's folder, unless it holds another run's export: then <task_id>-<run id>."""
    plain = out / _folder_name(run)
    if not plain.exists():
        return plain
    try:
        there = json.loads((plain / RESULT).read_text(encoding="utf-8")).get("cockpit_run")
    except (OSError, ValueError, AttributeError):
        there = ""
    # Only a folder this run was exported to is written over: another run's, or a harness's own (a folder
    # a run was imported from), is left as it is.
    return plain if there == run["id"] else out / f"{_folder_name(run)}-{run['id']}"


def export_mind2web(store: Store, run_id: str, out: Path, problems: list[str], notes: list[str] | None = None) -> Path:
    """Write run `run_id` under `out`; returns its folder. Missing screenshots are named in `problems`; what the
    format cannot hold (actions that never ran, a person's steps) is said in `notes`."""
    run, steps = store.run(run_id), store.step_records(run_id)
    if not steps:
        raise CockpitError(f"run {run_id} has no steps to export")
    folder = _target(Path(out), run)
    for sub in ("trajectory", m2w_own.FOLDER):
        shutil.rmtree(folder / sub, ignore_errors=True)
    (folder / "trajectory").mkdir(parents=True, exist_ok=True)
    imported = run.get("source") == "mind2web"  # written back as it came: the harness's strings and file names
    actions, thoughts, files, kept = (_as_imported if imported else _as_run)(run, steps)
    _write_screenshots(store, folder, files, problems)
    harness = (run.get("config") or {}).get("harness") or {} if imported else {}
    result = {"task_id": str(run["task_id"] or run["id"]), "task": run["task"],
              "final_result_response": run["answer"] or "", "action_history": actions, "thoughts": thoughts,
              **harness, **({m2w_own.KEY: kept} if kept else {}), "cockpit_run": run["id"]}
    if notes is not None and not imported:
        notes += m2w_own.notes(steps)
    (folder / RESULT).write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    return folder


def _write_screenshots(store: Store, folder: Path, files: dict, problems: list[str]) -> None:
    """Each {name: step} as a PNG: in trajectory/, or where a name with a folder says (m2w_own.FOLDER)."""
    for name, s in files.items():
        try:
            data = webvoyager.as_png(store.read_file(s.screenshot_clean or s.screenshot,
                                                     f"screenshot of step {s.step}"), s.step)
        except CockpitError as e:
            problems.append(f"{e}; not exported")
            continue
        path = folder / name if "/" in name else folder / "trajectory" / name
        path = path if path.suffix.lower() == ".png" else path.with_suffix(".png")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _as_run(run: dict, steps: list) -> tuple[list[str], list[str], dict, list[dict]]:
    """A run of Cockpit's: its actions, their thoughts and {file name: step}. Screenshot k is the page action k was
    taken on, and len(actions) the page the run ended on (its answer's): the importer and Online-Mind2Web's
    judges pair action k with screenshot k, so the steps with no action (format errors, the answer) give none
    of their own in between (walkthrough 9: every step after a format error showed an earlier page)."""
    actions, thoughts, files, kept = [], [], {}, []
    for s in steps:
        action_taken = m2w_own.ran(s)  # the answer is not one on the site, nor an action that never ran
        if action_taken:
            actions.append((s.action or s.action_text) + (m2w_own.HUMAN if s.actor == "human" else ""))
            thoughts.append(s.thought or "")
        shot = bool(s.screenshot_clean or s.screenshot)
        if shot:  # else a format error's just before it (the same page) stands
            files[f"{len(actions) - 1 if action_taken else len(actions)}_screenshot.png"] = s
        if m2w_own.not_run(s):  # refused, dropped by a take-over, failed: kept beside, for Cockpit (m2w_own)
            name = f"{m2w_own.FOLDER}/step{s.step}.png" if shot else None
            files.update({name: s} if name else {})
            kept.append(m2w_own.entry(s, len(actions), name))
    return actions, thoughts, files, kept


def _as_imported(run: dict, steps: list) -> tuple[list[str], list[str], dict, list[dict]]:
    """A run imported from Online-Mind2Web, as it came: the harness's strings, lists and file names (the steps a
    folder Cockpit exported kept beside action_history go back beside it, under the key it came with)."""
    config = run.get("config") or {}
    names, lists = config.get("trajectory_names") or {}, config.get("lists") or {}
    beside = config.get("not_executed") or {}
    actions, thoughts, files, k = [], [], {}, 0
    seen = 0  # its steps before its answer: its actions first, then thoughts it had no action for
    for s in steps:
        if str(s.step) in beside:
            if (s.screenshot_clean or s.screenshot) and not beside[str(s.step)].endswith("/"):
                files[beside[str(s.step)]] = s
            continue
        action = s.action_text or ""
        if s.status != "answered":
            if seen < lists.get("actions", 10 ** 9) and (action or "actions" in lists):
                actions.append(action)
            if seen < lists.get("thoughts", 10 ** 9):
                thoughts.append(s.thought or "")
            seen += 1
        elif action and not action.upper().startswith("ANSWER"):
            actions.append(action + (" (human)" if s.actor == "human" else ""))
            thoughts.append(s.thought or "")
        if s.screenshot_clean or s.screenshot:
            files[names.get(str(s.step)) or f"{k}_screenshot.png"] = s
            k += 1
    return actions, thoughts, files, []
