"""The OpenAI-tools dialect: one call of a small set of browser functions, over chat completions.

Source: OpenAI's chat-completions function calling. The model's message carries
``tool_calls``: ``[{"id": "call_...", "type": "function", "function": {"name": "click",
"arguments": "{\\"x\\": 10, \\"y\\": 20}"}}]`` (the arguments a JSON *string*), and its text
content (often empty) is the thought. The function set is Cockpit's own, one function per
action kind, for any model served with tool calling:

    click(x, y)  double_click(x, y)  right_click(x, y)  hover(x, y)
    drag(x, y, end_x, end_y)
    scroll(direction, [x, y], [pixels])     up/down/left/right; pixels default grammar.SCROLL_STEP;
                                            no point: the viewport's centre
    type(text, [x, y])                      with a point: click there first; without: the focus
    press(key)                              "Enter", "Ctrl+A" (any common spelling is normalised)
    goto(url)  back()  wait()  answer(text)

A reply without a tool call that ends with an ``ANSWER: ...`` line is read as the answer.
Only the first tool call is taken.
"""
from __future__ import annotations

from cockpit.core.actions.dialects import keys
from cockpit.core.actions.dialects.common import (
    DialectParse,
    Malformed,
    Reply,
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

NAME = "openai_tools"
FUNCTIONS = ("click", "double_click", "right_click", "hover", "drag", "scroll", "type", "press", "goto",
             "back", "wait", "answer")
EXPECTED = ("one call of the functions " + ", ".join(FUNCTIONS)
            + ', e.g. click with {"x": 100, "y": 200} or answer with {"text": "..."}')
_DIRECTIONS = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}


def parse(reply: Reply) -> DialectParse:
    call_id, name, raw = first_tool_call(reply)
    thought = strip_label(reply.text or "", "thought")
    if not name:
        return text_parse(NAME, reply, thought, call_id, EXPECTED)
    action_text = raw_call_text(name, raw)
    try:
        return DialectParse(NAME, thought, action_text, action_of(name, json_object(raw)), call_id=call_id)
    except Malformed as e:
        return DialectParse(NAME, thought, action_text, None, format_error(str(e), EXPECTED), call_id=call_id)


def _xy(args: dict, name: str, x: str = "x", y: str = "y") -> tuple:
    if args.get(x) is None or args.get(y) is None:
        raise Malformed(f"{name} needs \"{x}\" and \"{y}\"")
    return point_of([args[x], args[y]], f"{name}'s point")


def action_of(name: str, args: dict) -> Action:
    """The Cockpit action of one function call."""
    name = name.strip().lower()
    if name in ("click", "double_click", "right_click", "hover"):
        return Action(name, point=_xy(args, name))
    if name == "drag":
        return Action("drag", point=_xy(args, name), end=_xy(args, name, "end_x", "end_y"))
    if name == "scroll":
        direction = str(args.get("direction") or "").strip().lower()
        if direction not in _DIRECTIONS:
            raise Malformed('scroll needs "direction": "up", "down", "left" or "right"')
        pixels = number(args["pixels"]) if args.get("pixels") is not None else SCROLL_STEP
        where = _xy(args, name) if args.get("x") is not None or args.get("y") is not None else CENTRE
        dx, dy = _DIRECTIONS[direction]
        return Action("scroll", point=where, delta=(number(dx * pixels), number(dy * pixels)))
    if name == "type":
        text = str(args.get("text") if args.get("text") is not None else "")
        if args.get("x") is not None or args.get("y") is not None:
            return Action("type", text=text, point=_xy(args, name))
        return Action("type", text=text, focused=True)
    if name == "press":
        try:
            return Action("press", text=keys.from_cockpit(str(args.get("key") or args.get("keys") or "")))
        except keys.KeyNameError:
            raise Malformed('press needs "key", e.g. {"key": "Enter"} or {"key": "Ctrl+A"}') from None
    if name == "goto":
        if not args.get("url"):
            raise Malformed('goto needs "url"')
        return Action("goto", text=str(args["url"]))
    if name in ("back", "wait"):
        return Action(name)
    if name == "answer":
        return Action("answer", text=str(args.get("text") if args.get("text") is not None else ""))
    raise Malformed(f"'{name}' is not one of the functions")


def _fn(name: str, description: str, properties: dict | None = None, required: tuple = ()) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties or {}, "required": list(required),
                       "additionalProperties": False}}}


def tools(*, width: int, height: int) -> list[dict]:
    """One function per action kind. Points are (x, y) on the screenshot, whose size is stated."""
    where = f"on the {width}x{height} screenshot"
    xy = {"x": {"type": "number", "description": f"x {where}, from the left edge"},
          "y": {"type": "number", "description": f"y {where}, from the top edge"}}
    return [
        _fn("click", "Click at a point.", xy, ("x", "y")),
        _fn("double_click", "Double-click at a point.", xy, ("x", "y")),
        _fn("right_click", "Right-click at a point.", xy, ("x", "y")),
        _fn("hover", "Move the mouse to a point (opens menus that show on hover).", xy, ("x", "y")),
        _fn("drag", "Press at (x, y), move to (end_x, end_y), release.",
            {**xy, "end_x": {"type": "number"}, "end_y": {"type": "number"}}, ("x", "y", "end_x", "end_y")),
        _fn("scroll", f"Turn the mouse wheel over a point (the middle of the screen when none is given). "
                      f"{SCROLL_STEP} pixels is about two thirds of a screen.",
            {"direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
             "pixels": {"type": "number", "description": f"How far (default {SCROLL_STEP})"}, **xy},
            ("direction",)),
        _fn("type", "Type text. With x and y: click there first; without: into the focused element. "
                    "No Enter is pressed.",
            {"text": {"type": "string"}, **xy}, ("text",)),
        _fn("press", "Press a key or a combination, e.g. Enter, Tab, Escape, PageDown, Ctrl+A.",
            {"key": {"type": "string"}}, ("key",)),
        _fn("goto", "Open a web address.", {"url": {"type": "string"}}, ("url",)),
        _fn("back", "Go back to the previous page."),
        _fn("wait", "Wait a few seconds for the page to change."),
        _fn("answer", "The task is done: give the final answer (or a short confirmation). This ends the task.",
            {"text": {"type": "string"}}, ("text",)),
    ]


def system_prompt(*, width: int, height: int, space_words: str) -> str:
    return (f"You are a web agent. You operate a real web browser, one step at a time, to complete a task for "
            f"a user. At every step you get a screenshot of the browser's viewport, {width}x{height}. Act by "
            f"calling exactly one of the functions you are given; give points in {space_words}, x from the "
            "left edge and y from the top edge, aimed at the middle of the element you mean. Before the call, "
            "say in a sentence or two what you see and why the action moves the task forward. If an action had "
            "no effect, try something else rather than repeating it. When the task is done, call answer with "
            "the final answer (or a short confirmation).")
