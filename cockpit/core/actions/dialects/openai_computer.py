"""The OpenAI computer-use dialect: a ``computer_call`` item of the Responses API.

Sources (formats only): OpenAI's computer-use guide and the Responses API reference. The
request carries the tool ``{"type": "computer_use_preview", "display_width": w,
"display_height": h, "environment": "browser"}``; the response's ``output`` is a list of items:

    {"type": "reasoning", "id": ..., "summary": [{"type": "summary_text", "text": ...}]}
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": ...}]}
    {"type": "computer_call", "id": ..., "call_id": "call_...", "status": ...,
     "action": {...}, "pending_safety_checks": [{"id": ..., "code": ..., "message": ...}]}

with actions ``click`` {button: left|right|wheel|back|forward, x, y}, ``double_click`` {x, y},
``scroll`` {x, y, scroll_x, scroll_y} (wheel pixels; scroll_y > 0 scrolls down), ``type``
{text}, ``keypress`` {keys: ["CTRL", "A"]}, ``wait``, ``move`` {x, y}, ``drag``
{path: [{x, y}, ...]} and ``screenshot``. The next request answers ``call_id`` with a
``computer_call_output`` (and acknowledges the safety checks), which is why both are kept.

Mapping decisions: button "wheel" clicks once (Cockpit has no middle click), "back" is GoBack,
"forward" is refused; a drag goes from the path's first point to its last (the points between
are not followed); screenshot is a Wait (the next turn brings a new screenshot anyway). The model
ends a task by sending a message and no computer_call: a message that ends with an
``ANSWER: ...`` line is the answer; any other message (a question, a request for confirmation)
is answered with a format error telling it to act or answer. The thought is the reasoning
summaries followed by the message text. Should an item carry an ``actions`` list (a batch)
rather than one ``action``, the first is taken and ``action_text`` shows them all.
"""
from __future__ import annotations

import json

from cockpit.core.actions.dialects import keys
from cockpit.core.actions.dialects.common import (
    DialectParse,
    Malformed,
    Reply,
    answer_in_text,
    format_error,
    number,
    point_of,
)
from cockpit.core.actions.grammar import Action

NAME = "openai_computer"
TOOL_TYPE = "computer_use_preview"
EXPECTED = ("a computer_call with one action (click, double_click, scroll, type, keypress, move, drag, wait), "
            "or, when the task is done, a message whose last line is 'ANSWER: <the answer>'")


def _texts(output: list[dict]) -> tuple[str, str]:
    """(reasoning summaries, message text) of the output items, each joined by newlines."""
    reasoning, message = [], []
    for item in output:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "reasoning":
            for part in item.get("summary") or []:
                text = part.get("text") if isinstance(part, dict) else part
                if text:
                    reasoning.append(str(text))
        elif item.get("type") == "message":
            for part in item.get("content") or []:
                if isinstance(part, dict) and part.get("type") in ("output_text", "text") and part.get("text"):
                    message.append(str(part["text"]))
    return "\n".join(reasoning).strip(), "\n".join(message).strip()


def parse(reply: Reply) -> DialectParse:
    output = [i for i in reply.output or [] if isinstance(i, dict)]
    reasoning, message = _texts(output)
    message = message or (reply.text or "").strip()
    thought = "\n".join(t for t in (reasoning, message) if t)
    call = next((i for i in output if i.get("type") == "computer_call"), None)
    if call is None:
        answer = answer_in_text(message)
        if answer is not None:
            return DialectParse(NAME, thought, f"ANSWER: {answer}", Action("answer", text=answer))
        return DialectParse(NAME, thought, "", None, format_error("the reply holds no computer_call", EXPECTED))
    checks = list(call.get("pending_safety_checks") or [])
    call_id = str(call.get("call_id") or call.get("id") or "")
    batch = call.get("actions") if call.get("action") is None else None
    action = call.get("action") if batch is None else (batch[0] if isinstance(batch, list) and batch else None)
    action_text = json.dumps(batch if batch is not None else action, ensure_ascii=False)
    try:
        if not isinstance(action, dict):
            raise Malformed("the computer_call has no action")
        return DialectParse(NAME, thought, action_text, action_of(action), safety_checks=checks, call_id=call_id)
    except Malformed as e:
        return DialectParse(NAME, thought, action_text, None, format_error(str(e), EXPECTED),
                            safety_checks=checks, call_id=call_id)


def _point(action: dict) -> tuple:
    if action.get("x") is None or action.get("y") is None:
        raise Malformed(f"{action.get('type')} needs x and y")
    return point_of([action["x"], action["y"]], f"{action.get('type')}'s point")


def action_of(action: dict) -> Action:
    """The Cockpit action of one computer-use action."""
    kind = str(action.get("type") or "").strip().lower()
    if kind == "click":
        button = str(action.get("button") or "left").lower()
        if button == "back":
            return Action("back")
        if button not in ("left", "right", "wheel"):
            raise Malformed(f"the '{button}' mouse button is not available here")
        return Action("right_click" if button == "right" else "click", point=_point(action))
    if kind == "double_click":
        return Action("double_click", point=_point(action))
    if kind == "move":
        return Action("hover", point=_point(action))
    if kind == "scroll":
        delta = (number(action.get("scroll_x") or 0), number(action.get("scroll_y") or 0))
        return Action("scroll", point=_point(action), delta=delta)
    if kind == "type":
        return Action("type", text=str(action.get("text") if action.get("text") is not None else ""),
                      focused=True)
    if kind == "keypress":
        given = action.get("keys")
        try:
            return Action("press", text=keys.combination([str(k) for k in given] if isinstance(given, list)
                                                         else [str(given or "")]))
        except keys.KeyNameError:
            raise Malformed('keypress needs "keys", e.g. ["CTRL", "A"]') from None
    if kind == "drag":
        path = action.get("path")
        if not isinstance(path, list) or len(path) < 2:
            raise Malformed("drag needs a path of at least two points")
        return Action("drag", point=point_of(path[0], "path"), end=point_of(path[-1], "path"))
    if kind in ("wait", "screenshot"):
        return Action("wait")
    raise Malformed(f"'{kind}' is not a computer-use action")


def looks_like(reply: Reply) -> bool:
    return any(isinstance(i, dict) and i.get("type") for i in reply.output or [])


def tools(*, width: int, height: int) -> list[dict]:
    return [{"type": TOOL_TYPE, "display_width": width, "display_height": height, "environment": "browser"}]


def system_prompt(*, width: int, height: int, space_words: str) -> str:
    return ("You operate a web browser with the computer tool to complete the user's task, one action at a "
            "time. Do not ask for confirmation: act, and a person will review the risky steps. When the task "
            "is done, reply with a message whose last line is 'ANSWER: ' followed by the final answer (or a "
            "short confirmation).")
