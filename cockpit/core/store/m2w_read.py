"""Reading Online-Mind2Web result folders, as its evaluation script (``src/run.py``) reads them and as other
harnesses write them. Pure: reads files, touches no store.

    <task_id>/result.json
    <task_id>/trajectory/<k>_screenshot.png | <k>_full_screenshot.png | step_<k>.png | 0000.png ...

Two layouts of ``result.json``:

* v1 (the original; SeeAct, ABP, browser-use's harness): ``task``, ``final_result_response``,
  ``action_history`` (strings), ``thoughts`` (strings). Screenshots are every image in ``trajectory/``,
  numbered by the first number in the name (as ``run.py`` orders them). Action i (from 0) is paired with
  screenshot number i and with ``thoughts[i]``: a harness numbering from 0 (SeeAct, browser-use's) shoots
  the page before each action; one numbering from 1 (ABP) shoots the page after each action, which is the
  page the next action acted on, so the same rule holds (ABP's first action has no screenshot). The final
  ANSWER step (when ``final_result_response`` is given) gets the screenshot numbered len(actions), else the
  last one left. The lists may differ in length: an action without a thought gets none; thoughts past the
  last action become steps with no action. Images paired with no step are named in the problems. Where
  both ``k_screenshot`` and ``k_full_screenshot`` exist, the viewport one is the step's screenshot.
* v2 (``"schema_version": "online-mind2web-v2"``): ``action_history`` is a list of steps, each with its
  ``action``, ``thought``, ``url`` and ``screenshot`` file name; the final ``TASK_COMPLETE -> ANSWER: …``
  step and ``agent_final_answer`` give the answer.

A screenshot that is missing, a Git LFS pointer, or not an image leaves its step without one (counted in
``missing``). A harness's own verdict (``judge: {score, reasoning}``, ``Online_Mind2Web_evaluation``,
``result_status``) is kept in ``verdicts``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from cockpit.core.actions.grammar import Action
from cockpit.core.errors import CockpitError
from cockpit.core.store import m2w_own
from cockpit.core.words import plural

RESULT = "result.json"
V2 = "online-mind2web-v2"
_IMAGE = (".png", ".jpg", ".jpeg", ".webp")
_LFS = b"version https://git-lfs"


@dataclass
class M2WStep:
    """One step of an imported run (Online-Mind2Web's, or browser-use's: see bu_read)."""
    action: str  # as the harness wrote it ("" for a thought without an action)
    thought: str = ""
    screenshot: Path | None = None
    url: str = ""
    answer: bool = False  # the final answer, not an action on the site
    image: bytes | None = None  # the screenshot itself, when the harness kept it inline (base64)
    canonical: Action | None = None  # the action in Cockpit's grammar when the reader knows it (else parsed)
    error: str = ""  # what the harness said went wrong
    title: str = ""
    actor: str = "agent"  # "human": a person's step, in a folder Cockpit exported (see m2w_own)
    action_plain: str = ""  # the action without Cockpit's " (human)" mark, to read it with
    status: str = ""  # a step Cockpit exported whose action never ran: refused, error, changed, stopped
    outcome: str = ""
    decision: dict | None = None  # the gate's decision on it
    not_run: bool = False  # not in action_history: kept in the folder Cockpit exported beside it


@dataclass
class M2WRun:
    path: Path
    task_id: str
    task: str
    answer: str | None
    steps: list[M2WStep]
    schema: str = "v1"
    missing: int = 0  # steps whose screenshot is missing, an LFS pointer or no image
    verdicts: list[tuple[str, int | None, str]] = field(default_factory=list)  # (name, 1/0/None, reasoning)
    extra: dict = field(default_factory=dict)  # the harness's other fields, kept as they were
    problems: list[str] = field(default_factory=list)
    started: float | None = None  # when the run began, where the harness recorded it
    extra_lists: dict = field(default_factory=dict)  # v1: how long its lists were (for writing it back)


def find_result_folders(root: Path) -> list[Path]:
    """Folders holding a result.json: `root` itself, or its subfolders (sorted, as run.py lists them)."""
    root = Path(root)
    if (root / RESULT).is_file():
        return [root]
    if not root.is_dir():
        raise CockpitError(f"{root} is not a folder")
    found = _result_children(root)
    if not found:  # one level too high (a repository holding <run>/<task_id>/): look one level down
        for sub in sorted(p for p in _children(root)):
            found += _result_children(sub)
    return found


def _children(root: Path) -> list[Path]:
    try:
        return [p for p in root.iterdir() if p.is_dir()]
    except OSError:
        return []


def _result_children(root: Path) -> list[Path]:
    out = []
    for p in _children(root):
        try:
            if (p / RESULT).is_file():
                out.append(p)
        except OSError:  # an unreadable folder: read_result_folder reports it
            out.append(p)
    return sorted(out)


def read_result_folder(folder: Path) -> M2WRun:
    """The run in one task folder; CockpitError (with the reason) when result.json cannot be used."""
    folder = Path(folder)
    try:
        data = json.loads((folder / RESULT).read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as e:
        raise CockpitError(f"cannot read {RESULT}: {getattr(e, 'strerror', None) or e}") from None
    except ValueError as e:
        raise CockpitError(f"{RESULT} is not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise CockpitError(f"{RESULT} is not a JSON object")
    task = data.get("task") or data.get("confirmed_task")
    if not isinstance(task, str) or not task.strip():
        raise CockpitError(f"{RESULT} has no task")
    task_id = folder.name  # run.py's rule: the folder names the task
    run = (_read_v2 if data.get("schema_version") == V2 else _read_v1)(folder, data, task_id, task)
    run.verdicts = _verdicts(data)
    run.started = own_time(data)
    known = {"task", "final_result_response", "action_history", "thoughts", "schema_version",
             "agent_final_answer"}  # the rest (its own task_id too) is kept, and written back on export
    run.extra = {k: v for k, v in data.items() if k not in known}
    return run


#: Keys some harnesses write into result.json saying when the run began (Online-Mind2Web's own has none).
_TIME_KEYS = ("start_time", "started_at", "started", "start_timestamp", "timestamp", "created_at")


def own_time(data: dict) -> float | None:
    """When the run began, where its result.json says (seconds since 1970, or an ISO date); else None."""
    for key in _TIME_KEYS:
        value = data.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value) / (1000 if value > 1e11 else 1)  # milliseconds too
        if isinstance(value, str) and value.strip():
            try:
                return datetime.fromisoformat(value.strip().replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return None


def _strings(data: dict, key: str) -> list[str]:
    value = data.get(key) or []
    if not isinstance(value, list):
        raise CockpitError(f"{RESULT}: {key} is not a list")
    return ["" if v is None else str(v) for v in value]


def _read_v1(folder: Path, data: dict, task_id: str, task: str) -> M2WRun:
    actions, thoughts = _strings(data, "action_history"), _strings(data, "thoughts")
    answer = data.get("final_result_response")
    answer = None if answer is None else str(answer)
    shots, problems = _numbered_images(folder / "trajectory")
    steps = [M2WStep(a, thoughts[i] if i < len(thoughts) else "", shots.get(i)) for i, a in enumerate(actions)]
    steps += [M2WStep("", t) for t in thoughts[len(actions):]]
    used = set(range(len(actions)))
    if answer is not None:
        rest = [k for k in sorted(shots) if k >= len(actions)]
        last = len(actions) if len(actions) in shots else rest[-1] if rest else None
        steps.append(M2WStep(f"ANSWER; {answer}", "", shots.get(last) if last is not None else None, answer=True))
        used.add(last)
    steps = m2w_own.restore(folder, data, steps, len(actions), lambda p: _usable(p, problems), M2WStep)
    if unpaired := sorted(shots[k].name for k in shots if k not in used):
        problems.append(f"{plural(len(unpaired), 'screenshot')} paired with no step (not imported): {', '.join(unpaired[:5])}")
    run = M2WRun(folder, task_id, task, answer, steps, "v1", problems=problems)
    run.extra_lists = {"actions": len(actions), "thoughts": len(thoughts)}
    run.missing = _count_missing(run)
    if len(thoughts) != len(actions) and thoughts:
        run.problems.append(f"{plural(len(actions), 'action')} and {plural(len(thoughts), 'thought')}: paired in order")
    return run


def _read_v2(folder: Path, data: dict, task_id: str, task: str) -> M2WRun:
    history = data.get("action_history") or []
    if not isinstance(history, list) or not all(isinstance(s, dict) for s in history):
        raise CockpitError(f"{RESULT}: a v2 action_history is a list of step objects")
    answer = data.get("agent_final_answer")
    steps, problems = [], []
    for s in history:
        action = str(s.get("action") or "")
        name = Path(str(s.get("screenshot") or "").replace("\0", "")).name  # a file in trajectory/, nowhere else
        shot = _usable(folder / "trajectory" / name, problems) if name else None
        final = action.upper().startswith("TASK_COMPLETE")
        if final and answer is None:
            answer = action.split("ANSWER:", 1)[-1].strip() if "ANSWER:" in action else ""
        failed = str(s.get("action_status") or "").upper() == "FAILED" or action.rstrip().endswith("| FAILED")
        steps.append(M2WStep(f"ANSWER; {answer}" if final else action, str(s.get("thought") or ""), shot,
                             str(s.get("url") or ""), answer=final, error="the harness says it failed" if failed else ""))
    run = M2WRun(folder, task_id, task, None if answer is None else str(answer), steps, "v2", problems=problems)
    run.missing = _count_missing(run)
    return run


def _count_missing(run: M2WRun) -> int:
    return sum(1 for s in run.steps if s.screenshot is None and not s.answer)  # the answer needs none


def _numbered_images(folder: Path) -> tuple[dict[int, Path], list[str]]:
    """number -> the image to use (a viewport screenshot over a full-page one), and what was wrong."""
    problems: list[str] = []
    found: dict[int, Path] = {}
    try:
        names = sorted(p for p in folder.iterdir() if p.suffix.lower() in _IMAGE)
    except OSError:
        return {}, ([] if not folder.exists() else [f"cannot list {folder}"])
    for p in names:
        m = re.search(r"\d+", p.name)
        if m is None:
            problems.append(f"{p.name}: no step number in the name; left out")
            continue
        k = int(m.group(0))
        if k in found and "full" in p.name and "full" not in found[k].name:
            continue  # the viewport screenshot is the step's
        if k in found and not ("full" in found[k].name and "full" not in p.name):
            problems.append(f"{p.name}: number {k} again (after {found[k].name}); left out")
            continue
        if (shot := _usable(p, problems)) is not None:
            found[k] = shot
    return found, problems


def _usable(path: Path, problems: list[str]) -> Path | None:
    """`path` when it is an image file; None (and why, in `problems`) for a missing file or an LFS pointer."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        problems.append(f"{path.name}: missing")
        return None
    if head.startswith(_LFS):
        problems.append(f"{path.name}: a Git LFS pointer, not the image")
        return None
    if not (head.startswith(b"\x89PNG") or head.startswith(b"\xff\xd8") or head[8:12] == b"WEBP"):
        problems.append(f"{path.name}: not a PNG, JPEG or WebP image")
        return None
    return path


def _verdicts(data: dict) -> list[tuple[str, int | None, str]]:
    """A harness's own verdicts: (name, 1 success / 0 not / None undecided, reasoning)."""
    out = []
    judge = data.get("judge")
    if isinstance(judge, dict) and isinstance(judge.get("score"), bool):
        out.append(("judge", int(judge["score"]), str(judge.get("reasoning") or "")))
    elif isinstance(judge, dict) and judge.get("score") is not None:
        try:
            score = float(judge["score"])
            out.append(("judge", 1 if score >= 50 else 0, str(judge.get("reasoning") or "")))
        except (TypeError, ValueError):
            pass
    ev = data.get("Online_Mind2Web_evaluation")
    if isinstance(ev, dict) and isinstance(ev.get("success"), bool):
        out.append(("Online_Mind2Web_evaluation", int(ev["success"]), str(ev.get("judgement") or "")))
    status = data.get("result_status")
    if isinstance(status, str) and status.strip():
        out.append(("result_status", 1 if status.strip().lower() == "success" else 0, status))
    return out
