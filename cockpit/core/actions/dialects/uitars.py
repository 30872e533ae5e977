"""The UI-TARS dialect: ``Thought: ...`` then ``Action: click(start_box='...')``.

Sources (formats only):
- bytedance/UI-TARS README "Prompt Usage Guide" and ``codes/ui_tars/prompt.py``: the
  ``COMPUTER_USE`` template (Output Format ``Thought: ...\\nAction: ...``; Action Space
  ``click(start_box='<|box_start|>(x1,y1)<|box_end|>')``, ``left_double``, ``right_single``,
  ``drag(start_box, end_box)``, ``hotkey(key='ctrl c')`` (space-separated, lowercase),
  ``type(content='xxx')`` (escapes \\' \\" \\n; a trailing \\n submits), ``scroll(start_box,
  direction='down or up or right or left')``, ``wait()`` (5 s), ``finished(content='xxx')``);
  the older template's ``finished()`` and ``call_user()``; the newer ``COMPUTER_USE_DOUBAO``
  template's ``point='<point>x1 y1</point>'``, ``start_point=`` / ``end_point=``.
- ``codes/ui_tars/action_parser.py``: several actions in one reply are separated by
  ``)\\n\\n``; ``select`` is a drag, ``press``/``keydown`` press a key; a box of four numbers
  stands for its centre; UI-TARS-1.5 answers in absolute pixels of the image as the model saw it
  (Qwen2.5-VL's ``smart_resize``), UI-TARS 1.0 (Qwen2-VL) in 0..1000.

Mapping: click/left_double/right_single/drag as named; hotkey -> Press; type -> Type into the
focus (Type at a point when a start_box is given); scroll -> a wheel turn of
``grammar.SCROLL_STEP`` pixels in the direction, over its point (the viewport's centre when it
has none); wait -> Wait; finished(content) -> ANSWER (content, or "" when there is none);
call_user() (the model gives up or needs the user) -> ANSWER "N/A", the answer WebArena expects
of a task that cannot be done. Cockpit extensions named in the prompt, since the screenshot
has no address bar: ``goto(url='...')`` and ``go_back()``.

Only the first action of a reply is taken; its text (``action_text``) is recorded as written.
"""
from __future__ import annotations

import re

from cockpit.core.actions.dialects import keys
from cockpit.core.actions.dialects.common import DialectParse, Malformed, Reply, format_error, point_of
from cockpit.core.actions.grammar import CENTRE, SCROLL_STEP, Action

NAME = "uitars"
EXPECTED = ("one UI-TARS action after 'Action:', such as click(start_box='(x,y)'), type(content='...'), "
            "scroll(start_box='(x,y)', direction='down'), hotkey(key='ctrl a'), finished(content='...')")

_LABEL = r"(?<![A-Za-z_])[*_#>`]*{}[*_\s`]*[:：]\s*"
_ACTION = re.compile(_LABEL.format("action"), re.I)
_THOUGHT = re.compile(_LABEL.format("(?:thought|reflection|action_summary)"), re.I)
_CALL = re.compile(r"^\s*([A-Za-z_]\w*)\s*\((.*)\)\s*$", re.S)
_KEY = re.compile(r"\s*([A-Za-z_]\w*)\s*=\s*")
#: An unquoted value: a bracketed point "(1, 2)" / "[1, 2, 3, 4]", or anything up to the next comma.
_BARE = re.compile(r"\([^)]*\)|\[[^\]]*\]|[^,]*")
_STARTS = ("start_box", "point", "start_point", "box", "coordinate", "start")
_ENDS = ("end_box", "end_point", "end")
_SCROLL = {"down": (0, SCROLL_STEP), "up": (0, -SCROLL_STEP), "right": (SCROLL_STEP, 0),
           "left": (-SCROLL_STEP, 0)}

_NAMES = {
    "click": ("click", "left_single", "left_click"),
    "double_click": ("left_double", "double_click", "left_double_click"),
    "right_click": ("right_single", "right_click"),
    "hover": ("hover", "mouse_move", "move_to", "moveto"),
    "drag": ("drag", "select", "left_drag"),
    "press": ("hotkey", "press", "keydown", "key"),
    "type": ("type", "input", "type_text"),
    "scroll": ("scroll",),
    "wait": ("wait", "sleep"),
    "answer": ("finished", "finish", "done"),
    "call_user": ("call_user",),
    "goto": ("goto", "go_to", "navigate", "open_url", "visit"),
    "back": ("go_back", "goback", "back", "navigate_back", "press_back"),
}
#: UI-TARS action name -> what it does here.
_KIND = {name: kind for kind, names in _NAMES.items() for name in names}


def split(text: str) -> tuple[str, str] | None:
    """(thought, action text) of a UI-TARS reply; None when it has no 'Action:' label.

    The published template shows the format in a code fence, and models sometimes copy the fence."""
    text = re.sub(r"^`{3}(?:[\w-]*\n)?", "", (text or "").strip())
    labels = list(_ACTION.finditer(text))
    starts = [m for m in labels if not text[:m.start()].strip() or text[:m.start()].rstrip(" \t*_#>`").endswith("\n")]
    am = (starts or labels or [None])[-1]
    if am is None:
        return None
    head = text[:am.start()].strip()
    first = _THOUGHT.match(head)
    thought = head[first.end():].strip() if first else head
    action = text[am.end():].strip()
    action = re.sub(r"^`{3}(?:[\w-]*\n)?|\s*`{3}\s*$", "", action).strip().strip("`").strip()
    return thought, action


def first_call(action_text: str) -> str:
    """The first of several actions (UI-TARS separates them with ')' and a blank line)."""
    parts = re.split(r"\)\s*\n\s*\n", action_text, maxsplit=1)
    return parts[0] + ")" if len(parts) > 1 else action_text


def call_of(text: str) -> tuple[str, dict]:
    """'click(start_box='(1,2)')' -> ('click', {'start_box': '(1,2)'}); a first positional
    argument is named '_0'. A missing closing parenthesis is tolerated."""
    text = text.strip()
    m = _CALL.match(text) or _CALL.match(text + ")")
    if not m:
        raise Malformed(f"'{text[:80]}' is not a function call like click(start_box='(x,y)')")
    return m.group(1).lower(), _arguments(m.group(2))


def _arguments(s: str) -> dict:
    out: dict = {}
    i, n = 0, 0
    while i < len(s):
        if not s[i:].strip(" \t\n,"):
            break
        km = _KEY.match(s, i)
        key = km.group(1) if km else f"_{n}"
        i = km.end() if km else len(s) - len(s[i:].lstrip(" \t\n,"))
        if i < len(s) and s[i] in "'\"":
            end = _closing(s, i + 1, s[i])
            out[key] = _unescape(s[i + 1:end])
            i = end + 1
        else:
            vm = _BARE.match(s, i)
            out[key] = vm.group().strip()
            i = vm.end()
        i = len(s) - len(s[i:].lstrip(" \t\n,"))
        n += 1
    return out


def _closing(s: str, start: int, quote: str) -> int:
    """The quote that closes a value: unescaped, and followed by the end or by ', name='.

    So an apostrophe the model forgot to escape (type(content='it's')) stays in the text."""
    j = start
    while (j := s.find(quote, j)) != -1:
        backslashes = len(s[:j]) - len(s[:j].rstrip("\\"))
        if backslashes % 2 == 0 and re.match(r"\s*(?:$|,\s*(?:[A-Za-z_]\w*\s*=|['\"]))", s[j + 1:]):
            return j
        j += 1
    raise Malformed(f"a quoted value is not closed in ({s[:80]})")


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s, flags=re.S)


def _arg(args: dict, names: tuple) -> str | None:
    for name in names:
        if args.get(name) not in (None, ""):
            return args[name]
    return None


def action_of(name: str, args: dict) -> Action:
    """The Cockpit action of one UI-TARS call."""
    kind = _KIND.get(name)
    if kind is None:
        raise Malformed(f"'{name}' is not a UI-TARS action")
    start = _arg(args, _STARTS + ("_0",))
    if kind in ("click", "double_click", "right_click", "hover"):
        return Action(kind, point=point_of(start, "start_box"))
    if kind == "drag":
        end = _arg(args, _ENDS + ("_1",))
        if end is None:
            raise Malformed("drag needs an end_box as well as a start_box")
        return Action("drag", point=point_of(start, "start_box"), end=point_of(end, "end_box"))
    if kind == "press":
        try:
            return Action("press", text=keys.from_words(_arg(args, ("key", "hotkey", "keys", "_0")) or ""))
        except keys.KeyNameError as e:
            raise Malformed(f"{name} needs a key, e.g. hotkey(key='ctrl a') ({e})") from None
    if kind == "type":
        content = args.get("content", args.get("text", args.get("_0", "")))
        if start is not None and "_0" not in args:
            return Action("type", text=content, point=point_of(start, "start_box"))
        return Action("type", text=content, focused=True)
    return _other(kind, name, args, start)


def _other(kind: str, name: str, args: dict, start) -> Action:
    if kind == "scroll":
        direction = str(args.get("direction", "")).strip().lower().split(" ")[0]
        if direction not in _SCROLL:
            raise Malformed("scroll needs direction='down', 'up', 'left' or 'right'")
        point = point_of(start, "start_box") if start is not None else CENTRE
        return Action("scroll", point=point, delta=_SCROLL[direction])
    if kind == "wait":
        return Action("wait")
    if kind == "answer":
        return Action("answer", text=str(_arg(args, ("content", "answer", "_0")) or ""))
    if kind == "call_user":
        return Action("answer", text="N/A")
    if kind == "goto":
        url = _arg(args, ("url", "content", "_0"))
        if not url:
            raise Malformed(f"{name} needs a url, e.g. goto(url='https://example.com')")
        return Action("goto", text=url)
    return Action("back")


def parse(reply: Reply) -> DialectParse:
    got = split(reply.text)
    if got is None:
        return DialectParse(NAME, reply.text.strip(), "", None,
                            format_error("the reply has no 'Action:' line", EXPECTED))
    thought, action_text = got
    if not action_text:
        return DialectParse(NAME, thought, "", None, format_error("nothing follows 'Action:'", EXPECTED))
    try:
        name, args = call_of(first_call(action_text))
        return DialectParse(NAME, thought, action_text, action_of(name, args))
    except Malformed as e:
        return DialectParse(NAME, thought, action_text, None, format_error(str(e), EXPECTED))


_ACTION_CALL = re.compile(r"(?:^|\n)[\s*_#>`]*action[*_\s`]*[:：]\s*`*\s*([A-Za-z_]\w*)\s*\(\s*(?:\)|[A-Za-z_]\w*\s*=)",
                          re.I)


def looks_like(reply: Reply) -> bool:
    """An 'Action:' line holding a call with keyword arguments or none: click(start_box=...), wait()."""
    m = _ACTION_CALL.search(reply.text or "")
    return bool(m) and m.group(1).lower() in _KIND


def system_prompt(*, width: int, height: int, space_words: str) -> str:
    box = "'<|box_start|>(x1,y1)<|box_end|>'"
    return f"""You are a GUI agent working in a web browser. You are given a task and your action history, with screenshots. You need to perform the next action to complete the task.

## Output Format
```
Thought: ...
Action: ...
```

## Action Space
click(start_box={box})
left_double(start_box={box})
right_single(start_box={box})
drag(start_box={box}, end_box='<|box_start|>(x3,y3)<|box_end|>')
hotkey(key='ctrl c') # Keys in lowercase, separated by a space; at most 3 keys.
type(content='xxx') # Write \\', \\" and \\n as escapes inside content. End content with \\n to submit what you typed.
scroll(start_box={box}, direction='down or up or right or left') # Shows more of the page on the `direction` side.
wait() # Sleep for 5s and take a screenshot to see what changed.
goto(url='https://...') # Open a web address (the screenshot shows no address bar).
go_back() # Go back to the previous page.
finished(content='xxx') # The task is done: put the answer (or a short confirmation) in content, with the same escapes as type.

## Screen
The screenshot is {width}x{height}. Give each (x,y) in {space_words}: x from the left edge, y from the top edge.

## Note
- Use English in `Thought` part.
- Write a small plan and finally summarize your next action (with its target element) in one sentence in `Thought` part.
- Give exactly one action.

## User Instruction
The task is in the user's first message."""
