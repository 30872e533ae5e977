"""The Claude dialect: Anthropic's computer-use tool, offered over chat completions.

Sources (formats only): Anthropic's computer-use tool documentation and the type definitions of
its ``computer_20241022`` and ``computer_20250124`` tool versions. The tool ``computer`` takes
``action`` (key, hold_key, type, cursor_position, mouse_move, left_mouse_down, left_mouse_up,
left_click, left_click_drag, right_click, middle_click, double_click, triple_click, scroll, wait,
screenshot), ``coordinate`` [x, y] (pixels of the display, whose size the tool states),
``start_coordinate`` (left_click_drag's start), ``text`` (type; key in xdotool's syntax:
"Return", "ctrl+s", "alt+Tab", "KP_0"), ``scroll_direction`` (up, down, left, right),
``scroll_amount`` (wheel clicks) and ``duration`` (wait, hold_key). Over an OpenAI-compatible
API the tool is a function named ``computer`` whose arguments carry the same fields; the call
arrives as a ``tool_calls`` entry, the thought as the message text.

Mapping decisions: one scroll_amount is 100 wheel pixels; a scroll without scroll_amount turns
``grammar.SCROLL_STEP`` pixels, one without a coordinate turns over the viewport's centre.
triple_click and middle_click click once (Cockpit has neither; to select a field's text the
model can click and then press ctrl+a). screenshot is a Wait (the next turn brings a new
screenshot anyway). A click's modifier keys (``text`` on a click) are not held. Cockpit does not
track the pointer between steps, so clicks need their coordinate and left_click_drag its
start_coordinate; cursor_position, hold_key and left_mouse_down/up are refused. A key text with
several presses separated by spaces ("ctrl+a Delete") is refused: one combination per action.
Cockpit extensions of the schema (the screenshot shows the page only, no address bar; the task
needs an answer): ``goto`` (``text`` = URL), ``go_back`` and ``answer`` (``text``). A reply
without a tool call that ends with an ``ANSWER: ...`` line is read as the answer too.
"""
from __future__ import annotations

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

NAME = "claude"
FUNCTION = "computer"
#: Wheel pixels per scroll_amount click.
CLICK_PIXELS = 100
EXPECTED = ('one call of the computer function, e.g. {"action": "left_click", "coordinate": [x, y]}, '
            '{"action": "type", "text": "..."}, {"action": "key", "text": "Return"}, {"action": "scroll", '
            '"coordinate": [x, y], "scroll_direction": "down", "scroll_amount": 3}, {"action": "answer", '
            '"text": "..."}')
ACTIONS = ("key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click",
           "double_click", "triple_click", "scroll", "wait", "screenshot", "goto", "go_back", "answer")
_POINTED = {"left_click": "click", "middle_click": "click", "triple_click": "click",
            "right_click": "right_click", "double_click": "double_click", "mouse_move": "hover"}
_DIRECTIONS = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}
_REFUSED = ("cursor_position", "hold_key", "left_mouse_down", "left_mouse_up")


def parse(reply: Reply) -> DialectParse:
    call_id, name, raw = first_tool_call(reply)
    thought = strip_label(reply.text or "", "thought")
    if not name:
        return text_parse(NAME, reply, thought, call_id, EXPECTED)
    action_text = raw_call_text(name, raw)
    try:
        if name != FUNCTION:
            raise Malformed(f"'{name}' is not the computer function")
        return DialectParse(NAME, thought, action_text, action_of(json_object(raw)), call_id=call_id)
    except Malformed as e:
        return DialectParse(NAME, thought, action_text, None, format_error(str(e), EXPECTED), call_id=call_id)


def action_of(args: dict) -> Action:
    """The Cockpit action of one computer call's arguments."""
    action = str(args.get("action") or "").strip().lower()
    if not action:
        raise Malformed("the call has no 'action'")
    if (shared := computer_action(action, args, _POINTED)) is not None:
        return shared
    if action == "key":
        try:
            return Action("press", text=keys.from_xdotool(str(args.get("text") or "")))
        except keys.KeyNameError as e:
            raise Malformed(f'key needs "text" with one key or combination, e.g. "ctrl+a" ({e})') from None
    if action == "scroll":
        return _scroll(args)
    return _other(action, args)


def _scroll(args: dict) -> Action:
    direction = str(args.get("scroll_direction") or "").strip().lower()
    if direction not in _DIRECTIONS:
        raise Malformed('scroll needs "scroll_direction": "up", "down", "left" or "right"')
    amount = args.get("scroll_amount")
    pixels = number(amount) * CLICK_PIXELS if amount is not None else SCROLL_STEP
    dx, dy = _DIRECTIONS[direction]
    where = point_of(args["coordinate"]) if args.get("coordinate") is not None else CENTRE
    return Action("scroll", point=where, delta=(number(dx * pixels), number(dy * pixels)))


def _other(action: str, args: dict) -> Action:
    if action in ("wait", "screenshot"):
        return Action("wait")
    if action == "answer":
        return Action("answer", text=str(args.get("text") or ""))
    if action == "goto":
        url = args.get("text") or args.get("url")
        if not url:
            raise Malformed('goto needs the address in "text"')
        return Action("goto", text=str(url))
    if action in ("go_back", "back"):
        return Action("back")
    if action in _REFUSED:
        raise Malformed(f"{action} is not available here")
    raise Malformed(f"'{action}' is not a computer action")


def tools(*, width: int, height: int) -> list[dict]:
    """The computer tool as one chat-completions function with Anthropic's action schema."""
    description = (
        "Use a mouse and keyboard to operate a web browser, and take screenshots.\n"
        f"* The display is {width}x{height}; the screenshot shows the browser's page (no address bar).\n"
        "* Pages may take time to load: if nothing seems to happen, wait and take another screenshot.\n"
        "* Find an element's coordinates on the latest screenshot before you click it, and click it in its "
        "middle.\n"
        "* Every click needs its coordinate; left_click_drag needs start_coordinate and coordinate.\n"
        "* key takes xdotool names: \"Return\", \"Tab\", \"ctrl+a\", \"Page_Down\".\n"
        "* goto opens the address in text; go_back goes back one page.\n"
        "* When the task is done, call answer with the final answer in text.")
    return [{"type": "function", "function": {
        "name": FUNCTION, "description": description,
        "parameters": {"type": "object", "required": ["action"], "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "coordinate": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                           "description": "(x, y): pixels from the left edge and from the top edge."},
            "start_coordinate": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                                 "description": "(x, y) where left_click_drag starts."},
            "text": {"type": "string", "description": "For type, key, goto and answer."},
            "scroll_direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
            "scroll_amount": {"type": "integer", "description": "Wheel clicks to scroll (about 100 pixels each)."},
            "duration": {"type": "number", "description": "Seconds, for wait."}}}}}]


def system_prompt(*, width: int, height: int, space_words: str) -> str:
    return f"""<SYSTEM_CAPABILITY>
* You operate a web browser through the `{FUNCTION}` tool, one action per reply; each action is followed by a new screenshot.
* The screenshot is {width}x{height}. Give coordinates in {space_words}, x from the left edge and y from the top edge.
* The screenshot shows the page only. To open an address use the goto action, to go back the go_back action.
* Clicks always carry their coordinate; the pointer position is not kept between actions.
</SYSTEM_CAPABILITY>

<IMPORTANT>
* Before each action, say in a sentence or two what you see and why the action moves the task forward.
* If an action had no visible effect, try something else rather than repeating it.
* When the task is done, call the tool with action "answer" and the final answer (or a short confirmation) in text.
</IMPORTANT>"""
