"""Reading browser-use's saved agent history (``AgentHistoryList``, written by ``Agent.save_history()`` /
``AgentHistoryList.save_to_file()``). Pure: reads files, touches no store.

    {"history": [{"model_output": {...} | null, "result": [ActionResult...], "state": {...}, "metadata": {...}}]}

Both shapes browser-use has written are read:

* older (0.1.x–0.2.x): ``model_output.current_state`` holds ``evaluation_previous_goal``, ``memory`` and
  ``next_goal``; ``state.screenshot`` is the screenshot inline (base64 PNG); actions are named
  ``click_element`` / ``click_element_by_index``, ``input_text``, ``go_to_url``, ``scroll_down`` /
  ``scroll_up``, ``send_keys``, ``go_back``, ``done``...; ``interacted_element`` entries carry
  ``viewport_coordinates.center``;
* newer (0.3 and later): those fields sit in ``model_output`` itself (with ``thinking``);
  ``state.screenshot_path`` names a PNG file (``.../screenshots/step_<n>.png``; looked for as written, then
  beside the history file); actions are ``click``, ``input``, ``navigate``, ``scroll {down, pages}``...;
  ``interacted_element`` entries carry ``bounds``, and a click's result ``metadata`` its ``click_x/click_y``.

One browser-use step (one model output, possibly several actions) is one Cockpit step: the screenshot is
the page the step saw; ``action_text`` lists every action as written (``click_element_by_index(index=12);
input_text(index=15, text='x')``); a step with one action also gets it in Cockpit's grammar, at its point
where the element's coordinates are known (``Click (963, 72)``), else on browser-use's own element number
(``Click [12]``, the number on browser-use's highlighted screenshot). ``done`` is the answer (its ``success``
kept as the agent's self-report verdict); an action's ``error`` marks the step.
"""
from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path

from cockpit.core.actions.grammar import Action
from cockpit.core.errors import CockpitError
from cockpit.core.store.m2w_read import M2WRun, M2WStep

_CLICK = ("click_element", "click_element_by_index", "click")
_INPUT = ("input_text", "input")
_GOTO = ("go_to_url", "navigate", "open_tab")

#: The task of a history imported without one (a task given on a later import replaces it).
NO_TASK = "(no task recorded: "


def find_histories(root: Path) -> list[Path]:
    """History files: `root` itself, or the *.json files below it holding a "history" list."""
    root = Path(root)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise CockpitError(f"{root} is neither a file nor a folder")
    out = []
    for p in sorted(root.rglob("*.json")):
        try:
            with open(p, "rb") as f:
                if b'"history"' in f.read(4096):
                    out.append(p)
        except OSError:
            continue
    return out


def read_history(path: Path, task: str = "") -> M2WRun:
    """The run in one history file; CockpitError (with the reason) when it is not a browser-use history.
    The file holds no task: `task`, else a ``task`` in a result.json beside it, else one naming the file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise CockpitError(f"cannot read it: {getattr(e, 'strerror', None) or e}") from None
    except ValueError as e:
        raise CockpitError(f"not valid JSON ({e})") from None
    history = data.get("history") if isinstance(data, dict) else None
    if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
        raise CockpitError('not a browser-use history: no "history" list of steps')
    steps, problems, answer, verdicts = [], [], None, []
    for n, h in enumerate(history, 1):
        step, done = _step(h, path, problems, n)
        steps.append(step)
        if done is not None:
            answer = _done_text(done, h)
            if isinstance(done.get("success"), bool):
                verdicts = [("self_report", int(done["success"]), "the agent's own done(success=...)")]
    generic = path.stem.lower().startswith(("agenthistory", "agent_history", "history"))
    task_id = path.parent.name if generic else path.stem  # one folder per task, each with its AgentHistory.json
    given = sibling_task(path) or task
    if not given:  # walkthrough 5: imported without a word, the run stayed taskless
        problems.append("the history holds no task and none was given: give it (the Task field, --task) and import "
                        "it again to set it")
    run = M2WRun(path, task_id, given or f"{NO_TASK}{path.name})", answer, steps,
                 "browser-use", problems=problems, verdicts=verdicts)
    run.missing = sum(1 for s in steps if s.screenshot is None and s.image is None and not s.answer)
    starts = [(h.get("metadata") or {}).get("step_start_time") if isinstance(h.get("metadata"), dict) else None
              for h in history]
    run.started = next((float(t) for t in starts if isinstance(t, (int, float))), None)  # None: it has no time
    return run


def _done_text(done: dict, h: dict) -> str:
    """The answer a done action gave: its text, else its structured data (as JSON), else what its result says."""
    if done.get("text"):
        return str(done["text"])
    if done.get("data") is not None:
        return json.dumps(done["data"], ensure_ascii=False)
    results = [r for r in (h.get("result") or []) if isinstance(r, dict) and r.get("is_done")]
    return str(results[-1].get("extracted_content") or "") if results else ""


def _step(h: dict, path: Path, problems: list[str], n: int) -> tuple[M2WStep, dict | None]:
    out = h.get("model_output") if isinstance(h.get("model_output"), dict) else {}
    actions = [a for a in (out.get("action") or []) if isinstance(a, dict) and a] \
        if isinstance(out.get("action"), list) else []
    results = [r for r in (h.get("result") or []) if isinstance(r, dict)] if isinstance(h.get("result"), list) else []
    state = h.get("state") if isinstance(h.get("state"), dict) else {}
    elements = state.get("interacted_element") if isinstance(state.get("interacted_element"), list) else []
    written = "; ".join(_written(a) for a in actions)
    done = next((_as_dict(next(iter(a.values()))) for a in actions if next(iter(a)) == "done"), None)
    error = "; ".join(str(r["error"]) for r in results if r.get("error"))
    step = M2WStep(written, _thought(out), url=str(state.get("url") or ""), title=str(state.get("title") or ""),
                   error=error, answer=done is not None)
    if done is not None:
        step.canonical = Action("answer", text=_done_text(done, h))
    elif len(actions) == 1:
        try:
            step.canonical = _canonical(actions[0], elements[0] if elements else None, results[0] if results else {})
        except (TypeError, ValueError, AttributeError):  # parameters of an unexpected type: kept as written
            step.canonical = None
    step.image, step.screenshot = _screenshot(state, path, problems, n)
    return step, done


def _as_dict(value) -> dict:
    return value if isinstance(value, dict) else {"text": "" if value is None else str(value)}


def _written(action: dict) -> str:
    name, params = next(iter(action.items()))
    args = ", ".join(f"{k}={v!r}" for k, v in (params or {}).items()) if isinstance(params, dict) else ""
    return f"{name}({args})"


def _thought(out: dict) -> str:
    cur = out.get("current_state") if isinstance(out.get("current_state"), dict) else out
    parts = [("Thinking", out.get("thinking")), ("Evaluation", cur.get("evaluation_previous_goal")),
             ("Memory", cur.get("memory")), ("Next goal", cur.get("next_goal"))]
    return "\n".join(f"{label}: {text}" for label, text in parts if text)


def _point(element: dict | None, result: dict) -> tuple[int, int] | None:
    """Where the action acted, in viewport pixels: the click the result records, else the element's centre."""
    meta = result.get("metadata") if isinstance(result.get("metadata"), dict) else {}
    if isinstance(meta.get("click_x"), (int, float)) and isinstance(meta.get("click_y"), (int, float)):
        return round(meta["click_x"]), round(meta["click_y"])
    if not isinstance(element, dict):
        return None
    centre = (element.get("viewport_coordinates") or {}).get("center") or {}
    if isinstance(centre.get("x"), (int, float)) and isinstance(centre.get("y"), (int, float)):
        return round(centre["x"]), round(centre["y"])
    b = element.get("bounds") or {}
    if all(isinstance(b.get(k), (int, float)) for k in ("x", "y", "width", "height")):
        return round(b["x"] + b["width"] / 2), round(b["y"] + b["height"] / 2)
    return None


def _canonical(action: dict, element: dict | None, result: dict) -> Action | None:
    """One browser-use action in Cockpit's grammar (None: no counterpart; its text is kept as written)."""
    name, p = next(iter(action.items()))
    p = p if isinstance(p, dict) else {}
    at = _point(element, result)
    index = p.get("index")
    if name in _CLICK:
        if isinstance(p.get("coordinate_x"), (int, float)):
            return Action("click", point=(round(p["coordinate_x"]), round(p.get("coordinate_y") or 0)))
        return Action("click", point=at) if at else Action("click", int(index)) if index is not None else None
    if name in _INPUT and "text" in p:
        text = str(p["text"])
        return Action("type", text=text, point=at) if at else \
            Action("type", int(index), text) if index is not None else None
    if name in _GOTO and p.get("url"):
        return Action("goto", text=str(p["url"]))
    if name == "go_back":
        return Action("back")
    if name in ("scroll_down", "scroll_up") or (name == "scroll" and index is None):
        down = name == "scroll_down" or (name == "scroll" and p.get("down", True))
        return Action("scroll", None, "down" if down else "up")
    if name == "send_keys" and p.get("keys"):
        return Action("press", text=str(p["keys"]))
    if name == "wait":
        return Action("wait")
    return None


def _screenshot(state: dict, path: Path, problems: list[str], n: int) -> tuple[bytes | None, Path | None]:
    """(inline bytes, file) of the step's screenshot; both None (and a problem said) when there is none."""
    inline = state.get("screenshot")
    if isinstance(inline, str) and inline:
        try:
            data = base64.b64decode(inline.split(",", 1)[-1], validate=False)
        except (binascii.Error, ValueError):
            data = b""
        if data.startswith(b"\x89PNG") or data.startswith(b"\xff\xd8"):
            return data, None
        problems.append(f"step {n}: its inline screenshot is not a PNG or JPEG image")
        return None, None
    named = state.get("screenshot_path")
    if isinstance(named, str) and named:
        given = Path(named)  # a relative path is the history's own folder's, never the current directory's
        for candidate in ((given if given.is_absolute() else path.parent / given),
                          path.parent / "screenshots" / given.name, path.parent / given.name):
            if candidate.is_file():
                return None, candidate
        problems.append(f"step {n}: its screenshot {named} is not there")
    return None, None


def sibling_task(path: Path) -> str:
    """The task of a result.json beside history `path` ("" when there is none)."""
    try:
        data = json.loads((path.parent / "result.json").read_text(encoding="utf-8"))
        return str(data.get("task") or "") if isinstance(data, dict) else ""
    except (OSError, ValueError):
        return ""
