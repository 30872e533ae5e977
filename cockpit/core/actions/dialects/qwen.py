"""The Qwen dialect: one call of the ``computer_use`` function.

Sources (formats only):
- Qwen2.5-VL's computer-use cookbook (QwenLM/Qwen2.5-VL ``cookbooks/computer_use.ipynb``) and
  qwen-agent's ``ComputerUse`` tool: a function ``computer_use`` whose ``action`` is one of
  key, type, mouse_move, left_click, left_click_drag, right_click, middle_click, double_click,
  scroll, wait, terminate; ``keys`` (array, for key: pressed in order, released in reverse),
  ``text`` (type), ``coordinate`` ([x, y] pixels of the image as the model saw it, Qwen2.5-VL's
  ``smart_resize`` grid; the tool description states "The screen's resolution is WxH"),
  ``pixels`` (scroll: positive scrolls up, negative down), ``time`` (wait), ``status``
  (terminate: success or failure).
- Qwen3-VL's version of the tool adds triple_click, hscroll, answer (``text``) and interact,
  and gives coordinates in 0..1000.
- The hermes-style call format of Qwen's chat template: ``<tool_call>\\n{"name": "computer_use",
  "arguments": {...}}\\n</tool_call>`` in the text, or an OpenAI ``tool_calls`` entry when the
  server parses tool calls itself (vLLM ``--tool-call-parser hermes``). Both are read.

Mapping decisions: ``pixels`` are wheel pixels, taken as they are (``pixels=-500`` turns the wheel
500 down); hscroll's positive ``pixels`` scroll right; a scroll without a coordinate turns the wheel
over the viewport's centre. middle_click and triple_click click once (Cockpit has neither; a
single click is the predictable part of both). terminate ends the run as an ANSWER: its ``text``
or ``answer`` when it has one, else "" for success and "N/A" for failure (WebArena's answer for a
task that cannot be done); interact (the model asks for the user) is "N/A" too. The cursor is not
tracked between steps, so left_click_drag needs ``start_coordinate`` as well as ``coordinate``,
and a click needs its coordinate. Cockpit extensions in the schema: ``goto`` (``url``) and
``go_back``, since the screenshot shows no address bar. Only the first call of a reply is taken.
"""
from __future__ import annotations

import json
import re

from cockpit.core.actions.dialects import keys
from cockpit.core.actions.dialects.common import (
    DialectParse,
    Malformed,
    Reply,
    computer_action,
    first_tool_call,
    format_error,
    json_object,
    number,
    point_of,
    raw_call_text,
    strip_label,
    text_parse,
)
from cockpit.core.actions.grammar import CENTRE, SCROLL_STEP, Action
from cockpit.core.words import json_error

NAME = "qwen"
FUNCTION = "computer_use"
EXPECTED = ('one computer_use call: <tool_call>{"name": "computer_use", "arguments": {"action": "left_click", '
            '"coordinate": [x, y]}}</tool_call>; actions left_click, double_click, right_click, mouse_move, '
            'left_click_drag, type, key, scroll, wait, goto, go_back, answer, terminate')
ACTIONS = ("key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click",
           "double_click", "triple_click", "scroll", "hscroll", "wait", "terminate", "answer", "goto", "go_back")
_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_POINTED = {"left_click": "click", "click": "click", "middle_click": "click", "triple_click": "click",
            "right_click": "right_click", "double_click": "double_click", "mouse_move": "hover"}
_DIRECTIONS = {"down": (0, SCROLL_STEP), "up": (0, -SCROLL_STEP), "right": (SCROLL_STEP, 0),
               "left": (-SCROLL_STEP, 0)}


def _call_in_text(text: str) -> tuple[str, dict, str]:
    """(function name, arguments, raw JSON) of the first <tool_call> in the text."""
    m = _TAG.search(text)
    raw = m.group(1).strip() if m else ""
    start = raw.find("{")
    if start < 0:
        raise Malformed("the <tool_call> holds no JSON object")
    try:
        value, _ = json.JSONDecoder().raw_decode(raw[start:])
    except json.JSONDecodeError as e:
        raise Malformed(f"the <tool_call> is not valid JSON ({json_error(e, 'character')})") from None
    if not isinstance(value, dict):
        raise Malformed("the <tool_call> is not a JSON object")
    return str(value.get("name") or ""), json_object(value.get("arguments"), "arguments"), raw


def parse(reply: Reply) -> DialectParse:
    text = reply.text or ""
    call_id, name, raw = first_tool_call(reply)
    thought = strip_label(text.split("<tool_call>")[0], "thought")
    if not name and "<tool_call>" not in text:
        return text_parse(NAME, reply, thought, call_id, EXPECTED)
    action_text = raw_call_text(name, raw) if name else (_TAG.search(text).group(1).strip())
    try:
        if name:
            args = json_object(raw)
        else:
            name, args, _ = _call_in_text(text)
        if name != FUNCTION:
            raise Malformed(f"'{name}' is not the computer_use function")
        return DialectParse(NAME, thought, action_text, action_of(args), call_id=call_id)
    except Malformed as e:
        return DialectParse(NAME, thought, action_text, None, format_error(str(e), EXPECTED), call_id=call_id)


def action_of(args: dict) -> Action:
    """The Cockpit action of one computer_use call's arguments."""
    action = str(args.get("action") or "").strip().lower()
    if not action:
        raise Malformed("the call has no 'action'")
    if (shared := computer_action(action, args, _POINTED)) is not None:
        return shared
    if action == "key":
        return Action("press", text=_keys(args))
    if action in ("scroll", "hscroll"):
        return _scroll(action, args)
    return _other(action, args)


def _keys(args: dict) -> str:
    given = args.get("keys", args.get("key", args.get("text")))
    try:
        if isinstance(given, list):
            return keys.combination([str(k) for k in given])
        return keys.from_words(str(given or ""))
    except keys.KeyNameError:
        raise Malformed('key needs "keys", e.g. {"action": "key", "keys": ["ctrl", "a"]}') from None


def _scroll(action: str, args: dict) -> Action:
    where = point_of(args["coordinate"]) if args.get("coordinate") is not None else CENTRE
    if args.get("pixels") is not None:
        amount = number(args["pixels"])
        delta = (amount, 0) if action == "hscroll" else (0, -amount)
    elif str(args.get("direction", "")).lower() in _DIRECTIONS:
        delta = _DIRECTIONS[str(args["direction"]).lower()]
    else:
        raise Malformed(f'{action} needs "pixels" (positive scrolls up, negative down)')
    return Action("scroll", point=where, delta=delta)


def _other(action: str, args: dict) -> Action:
    if action in ("wait", "screenshot"):
        return Action("wait")
    if action == "answer":
        return Action("answer", text=str(args.get("text") or ""))
    if action == "terminate":
        said = args.get("text") or args.get("answer")
        if said:
            return Action("answer", text=str(said))
        return Action("answer", text="N/A" if str(args.get("status", "")).lower() == "failure" else "")
    if action == "interact":
        return Action("answer", text="N/A")
    if action == "goto":
        url = args.get("url") or args.get("text")
        if not url:
            raise Malformed('goto needs "url"')
        return Action("goto", text=str(url))
    if action in ("go_back", "back"):
        return Action("back")
    raise Malformed(f"'{action}' is not a computer_use action")


def looks_like(reply: Reply) -> bool:
    return "<tool_call>" in (reply.text or "")


def tools(*, width: int, height: int) -> list[dict]:
    """The computer_use function, in OpenAI's tools format (Qwen's chat template renders it)."""
    description = (
        "Use a mouse and keyboard to operate a web browser, and see the result in a screenshot.\n"
        f"* The screen's resolution is {width}x{height}.\n"
        "* Pages can take time to load: if nothing seems to happen, wait and look at the next screenshot.\n"
        "* Before you move the mouse to an element, find its coordinates on the latest screenshot.\n"
        "* Click buttons, links and fields in their middle, not on their edges.\n"
        "* The screenshot shows only the page: use goto to open an address and go_back to go back.")
    return [{"type": "function", "function": {
        "name": FUNCTION, "description": description,
        "parameters": {"type": "object", "required": ["action"], "properties": {
            "action": {"type": "string", "enum": list(ACTIONS), "description": _ACTION_HELP},
            "keys": {"type": "array", "items": {"type": "string"}, "description": "Required only by action=key."},
            "text": {"type": "string", "description": "Required only by action=type and action=answer."},
            "coordinate": {"type": "array", "items": {"type": "number"}, "description": (
                "(x, y): pixels from the left edge and from the top edge. Required by the clicks, mouse_move "
                "and left_click_drag (where to release).")},
            "start_coordinate": {"type": "array", "items": {"type": "number"},
                                 "description": "(x, y) where left_click_drag presses the button."},
            "pixels": {"type": "number", "description": (
                "How far to scroll: positive values scroll up, negative values scroll down. "
                "Required only by action=scroll and action=hscroll.")},
            "time": {"type": "number", "description": "Seconds to wait. Required only by action=wait."},
            "status": {"type": "string", "enum": ["success", "failure"],
                       "description": "Required only by action=terminate."},
            "url": {"type": "string", "description": "Required only by action=goto."}}}}}]


_ACTION_HELP = (
    "The action to perform:\n"
    "* `key`: press the keys together (held in order, released in reverse).\n"
    "* `type`: type a string into the focused element.\n"
    "* `mouse_move`: move the pointer to coordinate.\n"
    "* `left_click`, `right_click`, `middle_click`, `double_click`, `triple_click`: click at coordinate "
    "(middle and triple clicks click once here).\n"
    "* `left_click_drag`: press at start_coordinate, drag to coordinate, release.\n"
    "* `scroll` / `hscroll`: turn the mouse wheel (over coordinate, if given) by pixels.\n"
    "* `wait`: wait for the page to change.\n"
    "* `goto`: open url. `go_back`: go back one page.\n"
    "* `answer`: give the final answer in text; this ends the task.\n"
    "* `terminate`: end the task with a status.")


def system_prompt(*, width: int, height: int, space_words: str) -> str:
    return ("You are a helpful assistant.\n\n"
            f"You operate a web browser for the user through the {FUNCTION} function, one action per reply. "
            f"The screenshot is {width}x{height}; give coordinates in {space_words}, x from the left edge and "
            "y from the top edge. After each action you get a new screenshot. Think briefly about what you see "
            f"and what to do next, then call {FUNCTION} exactly once, inside <tool_call></tool_call> tags. "
            'When the task is done, call it with "action": "answer" and the final answer (or a short '
            "confirmation) in \"text\".")
