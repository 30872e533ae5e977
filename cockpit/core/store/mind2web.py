"""A run in Online-Mind2Web's submission layout, for its judges (WebJudge and the others in its ``src/run.py``).

    OUT/<task_id>/result.json        {"task_id", "task", "final_result_response", "action_history",
                                      "thoughts", "cockpit_run"}
    OUT/<task_id>/trajectory/<k>_screenshot.png   the page action_history[k] was taken on, k = 0, 1, ...;
                                                  k = len(action_history): the page the answer was given on

``action_history`` holds the agent's actions as strings (its final ``ANSWER`` is not an action on the
site: the answer is ``final_result_response``); human steps of a take-over are included, marked
"(human)". The screenshots are the clean ones, as Online-Mind2Web's agents record them (the marked one
where no clean one was kept). Another run of the same task goes to ``<task_id>-<run id>``; a folder
this run was exported to before is written over.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from cockpit.core.errors import CockpitError
from cockpit.core.store import webvoyager
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


def export_mind2web(store: Store, run_id: str, out: Path, problems: list[str]) -> Path:
    """Write run `run_id` under `out`; returns its folder. Missing screenshots are named in `problems`."""
    run, steps = store.run(run_id), store.step_records(run_id)
    if not steps:
        raise CockpitError(f"run {run_id} has no steps to export")
    folder = _target(Path(out), run)
    shutil.rmtree(folder / "trajectory", ignore_errors=True)
    (folder / "trajectory").mkdir(parents=True, exist_ok=True)
    imported = run.get("source") == "mind2web"  # written back as it came: the harness's strings and file names
    actions, thoughts, files = (_as_imported if imported else _as_run)(run, steps)
    for name, s in files.items():
        try:
            data = webvoyager.as_png(store.read_file(s.screenshot_clean or s.screenshot,
                                                     f"screenshot of step {s.step}"), s.step)
        except CockpitError as e:
            problems.append(f"{e}; not exported")
            continue
        (folder / "trajectory" / (name if name.lower().endswith(".png") else f"{Path(name).stem}.png")).write_bytes(data)
    harness = (run.get("config") or {}).get("harness") or {} if imported else {}
    result = {"task_id": str(run["task_id"] or run["id"]), "task": run["task"],
              "final_result_response": run["answer"] or "", "action_history": actions, "thoughts": thoughts,
              **harness, "cockpit_run": run["id"]}
    (folder / RESULT).write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    return folder


def _as_run(run: dict, steps: list) -> tuple[list[str], list[str], dict]:
    """A run of Cockpit's: its actions, their thoughts and {file name: step}. Screenshot k is the page action k was
    taken on, and len(actions) the page the run ended on (its answer's): the importer and Online-Mind2Web's
    judges pair action k with screenshot k, so the steps with no action (format errors, the answer) give none
    of their own in between (walkthrough 9: every step after a format error showed an earlier page)."""
    actions, thoughts, files = [], [], {}
    for s in steps:
        action = s.action or s.action_text or ""
        action_taken = bool(action) and not action.upper().startswith("ANSWER")  # the answer is not one on the site
        if action_taken:
            actions.append(action + (" (human)" if s.actor == "human" else ""))
            thoughts.append(s.thought or "")
        if s.screenshot_clean or s.screenshot:  # else a format error's just before it (the same page) stands
            files[f"{len(actions) - 1 if action_taken else len(actions)}_screenshot.png"] = s
    return actions, thoughts, files


def _as_imported(run: dict, steps: list) -> tuple[list[str], list[str], dict]:
    """A run imported from Online-Mind2Web, as it came: the harness's strings, lists and file names."""
    config = run.get("config") or {}
    names, lists = config.get("trajectory_names") or {}, config.get("lists") or {}
    actions, thoughts, files, k = [], [], {}, 0
    seen = 0  # its steps before its answer: its actions first, then thoughts it had no action for
    for s in steps:
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
    return actions, thoughts, files
