"""An action written the way each dialect's model writes it: the inverse of each dialect's ``parse``.

Training data needs the corrected action of a step (a person's edit, a corrected target or point, a
take-over step) in the very form the run's model answers in, so that a model trained on it learns
its own grammar (:mod:`cockpit.core.training`). :func:`write` gives a :class:`Reply` (text, and tool
calls for the dialects that call functions) that the dialect's ``parse`` reads back as the same
action; points must already be in the model's coordinate space (:func:`cockpit.core.actions.coords.to_model`).

What a dialect cannot say exactly is written as its parser reads it nearest:

- UI-TARS scrolls by direction only: a scroll is written as its direction (its parser turns
  ``grammar.SCROLL_STEP`` pixels); Claude's scroll_amount counts 100-pixel clicks (rounded, at least 1).
- ``marks`` is WebVoyager's Set-of-Mark grammar (``Click [12]``); the pixel dialects have no marks,
  so an action on a mark raises ValueError there, as does any action for ``openai_computer``
  (its replies are Responses API output items, not chat messages).
"""
from __future__ import annotations

import json
import uuid

from cockpit.core.actions.dialects import claude, openai_tools, qwen
from cockpit.core.actions.dialects.common import Reply
from cockpit.core.actions.grammar import Action

#: Dialects :func:`write` writes: Set-of-Mark text and every chat-completions pixel dialect.
WRITABLE = ("marks", "plain", "uitars", "qwen", "claude", "openai_tools")


def write(dialect: str, thought: str, action: Action, *, tool_call: bool = True, call_id: str = "") -> Reply:
    """`action` (points in the model's space) with `thought`, as a model of `dialect` replies.

    `tool_call` (qwen only): the call as an OpenAI ``tool_calls`` entry (a server that parses tool calls,
    vLLM's hermes parser) rather than a ``<tool_call>`` block in the text."""
    if dialect not in WRITABLE:
        raise ValueError(f"cannot write a reply in the {dialect!r} dialect; one of {', '.join(WRITABLE)}")
    if dialect != "marks" and action.target is not None:
        raise ValueError(f"{action} acts on a numbered mark, which the {dialect} dialect has not")
    if dialect in ("marks", "plain"):
        return Reply(text=f"Thought: {thought}\nAction: {action}")
    if dialect == "uitars":
        return Reply(text=f"Thought: {thought}\nAction: {uitars_call(action)}")
    if dialect == "qwen":
        args = qwen_arguments(action)
        if tool_call:
            return Reply(text=thought, tool_calls=[_call(qwen.FUNCTION, args, call_id)])
        body = json.dumps({"name": qwen.FUNCTION, "arguments": args}, ensure_ascii=False)
        return Reply(text=f"{thought}\n<tool_call>\n{body}\n</tool_call>")
    if dialect == "claude":
        return Reply(text=thought, tool_calls=[_call(claude.FUNCTION, claude_arguments(action), call_id)])
    name, args = openai_tools_call(action)
    return Reply(text=thought, tool_calls=[_call(name, args, call_id)])


def _call(name: str, args: dict, call_id: str = "") -> dict:
    return {"id": call_id or f"call_{uuid.uuid4().hex[:12]}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}


def _xy(p) -> list:
    return [p[0], p[1]]


def _direction(delta) -> tuple[str, float]:
    """('down', 400) for a wheel delta (0, 400): the axis that moves most, and how far."""
    dx, dy = delta or (0, 0)
    if abs(dx) > abs(dy):
        return ("right" if dx > 0 else "left"), abs(dx)
    return ("up" if dy < 0 else "down"), abs(dy)


def _key_parts(combo: str) -> list[str]:
    """'Ctrl+Shift+t' -> ['ctrl', 'shift', 't']: named keys in lower case, single characters as they are."""
    parts = ["+"] if combo == "+" else [p for p in combo.split("+") if p] + (["+"] if combo.endswith("++") else [])
    return [p if len(p) == 1 else p.lower() for p in parts]


# ---------------------------------------------------------------- UI-TARS

def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace('"', '\\"').replace("\n", "\\n") + "'"


def _box(p) -> str:
    return f"'<|box_start|>({p[0]},{p[1]})<|box_end|>'"


def uitars_call(a: Action) -> str:
    """'click(start_box='<|box_start|>(x,y)<|box_end|>')' and the like."""
    pointed = {"click": "click", "double_click": "left_double", "right_click": "right_single", "hover": "hover"}
    if a.kind in pointed:
        return f"{pointed[a.kind]}(start_box={_box(a.point)})"
    if a.kind == "drag":
        return f"drag(start_box={_box(a.point)}, end_box={_box(a.end or a.point)})"
    if a.kind == "type":
        where = f"start_box={_box(a.point)}, " if a.point is not None else ""
        return f"type({where}content={_quoted(a.text)})"
    if a.kind == "scroll":
        direction = _direction(a.delta)[0] if a.delta is not None else (a.text or "down")
        where = f"start_box={_box(a.point)}, " if a.point is not None else ""
        return f"scroll({where}direction='{direction}')"
    if a.kind == "press":
        return f"hotkey(key={_quoted(' '.join(_key_parts(a.text)))})"
    simple = {"wait": "wait()", "back": "go_back()", "answer": f"finished(content={_quoted(a.text)})",
              "goto": f"goto(url={_quoted(a.text)})"}
    if a.kind in simple:
        return simple[a.kind]
    raise ValueError(f"UI-TARS has no action for {a}")


# ---------------------------------------------------------------- Qwen and Claude (one schema, two key styles)

_POINTED = {"click": "left_click", "double_click": "double_click", "right_click": "right_click",
            "hover": "mouse_move"}


def _computer_common(a: Action) -> dict | None:
    if a.kind in _POINTED:
        return {"action": _POINTED[a.kind], "coordinate": _xy(a.point)}
    if a.kind == "drag":
        return {"action": "left_click_drag", "start_coordinate": _xy(a.point), "coordinate": _xy(a.end or a.point)}
    if a.kind == "type":
        return {"action": "type", "text": a.text, **({"coordinate": _xy(a.point)} if a.point is not None else {})}
    if a.kind == "answer":
        return {"action": "answer", "text": a.text}
    if a.kind == "back":
        return {"action": "go_back"}
    return None


def qwen_arguments(a: Action) -> dict:
    """The arguments of Qwen's computer_use call."""
    if (args := _computer_common(a)) is not None:
        return args
    if a.kind == "press":
        return {"action": "key", "keys": _key_parts(a.text)}
    if a.kind == "scroll":
        dx, dy = a.delta if a.delta is not None else (0, 500 if a.text != "up" else -500)
        where = {"coordinate": _xy(a.point)} if a.point is not None else {}
        if dx and not dy:
            return {"action": "hscroll", "pixels": dx, **where}
        return {"action": "scroll", "pixels": -dy, **where}
    if a.kind == "wait":
        return {"action": "wait", "time": 5}
    if a.kind == "goto":
        return {"action": "goto", "url": a.text}
    raise ValueError(f"Qwen's computer_use has no action for {a}")


def claude_arguments(a: Action) -> dict:
    """The arguments of the computer tool's call."""
    if (args := _computer_common(a)) is not None:
        return args
    if a.kind == "press":
        return {"action": "key", "text": "+".join(_key_parts(a.text))}
    if a.kind == "scroll":
        direction, far = _direction(a.delta) if a.delta is not None else (a.text or "down", 500)
        where = {"coordinate": _xy(a.point)} if a.point is not None else {}
        return {"action": "scroll", **where, "scroll_direction": direction,
                "scroll_amount": max(1, round(far / claude.CLICK_PIXELS))}
    if a.kind == "wait":
        return {"action": "wait", "duration": 5}
    if a.kind == "goto":
        return {"action": "goto", "text": a.text}
    raise ValueError(f"the computer tool has no action for {a}")


# ---------------------------------------------------------------- Cockpit's function set

def openai_tools_call(a: Action) -> tuple[str, dict]:
    """(function name, arguments) of the OpenAI-tools dialect."""
    xy = {"x": a.point[0], "y": a.point[1]} if a.point is not None else {}
    if a.kind in ("click", "double_click", "right_click", "hover"):
        return a.kind, xy
    if a.kind == "drag":
        end = a.end or a.point
        return "drag", dict(xy, end_x=end[0], end_y=end[1])
    if a.kind == "scroll":
        direction, far = _direction(a.delta) if a.delta is not None else (a.text or "down", 500)
        return "scroll", dict(xy, direction=direction, pixels=far)
    if a.kind == "type":
        return "type", dict(xy, text=a.text)
    if a.kind == "press":
        return "press", {"key": a.text}
    if a.kind == "goto":
        return "goto", {"url": a.text}
    if a.kind == "answer":
        return "answer", {"text": a.text}
    if a.kind in openai_tools.FUNCTIONS:
        return a.kind, {}
    raise ValueError(f"the OpenAI-tools functions have no action for {a}")
