"""The action grammar: what a model writes after ``Action:`` and what it means.

WebVoyager's seven actions plus Cockpit's extras. Parsing is tolerant of what
models actually write: brackets optional, any case, stray markdown, trailing
punctuation. The canonical text of an Action (``str(action)``) is what
Cockpit stores and shows.

    Click [N]                      click element N
    Type [N]; content              clear field N, type content, press Enter
    Scroll [N or WINDOW]; up|down  scroll the window or inside element N
    Wait                           wait a few seconds
    GoBack                         browser back
    Google                         go to the search engine start page
    ANSWER; content                finish the task with this answer
    Select [N]; option             choose an option of select element N
    Hover [N]                      move the mouse over element N
    Press [key]                    press a key or combination (Enter, Ctrl+A)
    Goto [url]                     open a URL (http or https)

Pixel actions (models that act at a point; coordinates are viewport CSS
pixels once converted, see :mod:`cockpit.core.actions.coords`):

    Click (x, y)                   click at the point (also DoubleClick, RightClick)
    Hover (x, y)                   move the mouse to the point
    Drag (x1, y1) to (x2, y2)      press at the first point, release at the second
    Scroll (x, y) by (dx, dy)      turn the wheel over the point (dy > 0 scrolls down)
    Type (x, y); text              click at the point, then type text (no Enter)
    Type; text                     type text into the focused element (no Enter)

Plain-text forms models write are read too: ``Click at (600, 475)``,
``click(600, 475)``, ``Scroll (delta_x=0, delta_y=400)``, ``Type "text"``,
``Press ENTER``, ``Navigate to URL``, ``Navigate back``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cockpit.core.errors import ActionParseError

KINDS = ("click", "type", "scroll", "wait", "back", "google", "answer",
         "select", "hover", "press", "goto", "double_click", "right_click", "drag")
#: Kinds that act at a point of the screenshot (with Action.point) rather than on a mark.
POINTER_KINDS = ("click", "double_click", "right_click", "hover", "drag", "scroll", "type")

_CANON = {"click": "Click", "type": "Type", "scroll": "Scroll", "wait": "Wait",
          "back": "GoBack", "google": "Google", "answer": "ANSWER", "select": "Select",
          "hover": "Hover", "press": "Press", "goto": "Goto", "double_click": "DoubleClick",
          "right_click": "RightClick", "drag": "Drag"}

_ALIASES = {"click": "click", "type": "type", "scroll": "scroll", "wait": "wait",
            "goback": "back", "go back": "back", "back": "back", "google": "google",
            "answer": "answer", "select": "select", "hover": "hover", "press": "press",
            "goto": "goto", "go to": "goto", "navigate": "goto", "navigate to": "goto",
            "navigate back": "back", "doubleclick": "double_click", "double click": "double_click",
            "double_click": "double_click", "rightclick": "right_click", "right click": "right_click",
            "right_click": "right_click", "drag": "drag", "move": "hover", "mouse move": "hover",
            "mouse_move": "hover", "move to": "hover"}

_HEAD = re.compile(r"^\s*(go\s*back|go\s*to|goto|double[\s_]?click|right[\s_]?click|click|type|scroll|wait|"
                   r"google|answer|select|hover|press|navigate\s+back|navigate\s+to|navigate|drag|"
                   r"mouse[\s_]move|move\s+to|move)\b\s*(.*)$", re.I | re.S)
_NUMBER = r"(-?\d+(?:\.\d+)?)"
#: A point as models write it: "(600, 475)", "at (600,475)", "[600, 475]", "600, 475", "x=600, y=475".
_POINT = re.compile(r"^\s*(?:at\s+)?[(\[]?\s*(?:x\s*=\s*)?" + _NUMBER + r"\s*[,\s]\s*(?:y\s*=\s*)?" + _NUMBER
                    + r"\s*[)\]]?", re.I)
_DELTA = re.compile(r"\(?\s*(?:delta_)?(?:d?x)\s*=\s*" + _NUMBER + r"\s*,\s*(?:delta_)?(?:d?y)\s*=\s*" + _NUMBER
                    + r"\s*\)?", re.I)
_BY = re.compile(r"^\s*by\s+[(\[]?\s*" + _NUMBER + r"\s*,\s*" + _NUMBER + r"\s*[)\]]?", re.I)
_NUM = re.compile(r"^\[?\s*(\d+)\s*\]?")
_WINDOW = re.compile(r"^\[?\s*(window|page)\s*\]?", re.I)


@dataclass(frozen=True)
class Action:
    kind: str
    target: int | None = None  # mark id; None with kind scroll means the window
    text: str = ""  # typed content, answer, option, key, url, or scroll direction
    point: tuple[int, int] | None = None  # a pixel action's point (viewport CSS pixels once converted)
    end: tuple[int, int] | None = None  # a drag's end point
    delta: tuple[int, int] | None = None  # a pixel scroll's wheel (dx, dy); dy > 0 scrolls down
    focused: bool = False  # Type; text: into whatever has the focus, no point, no mark

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown action kind {self.kind!r}")

    @property
    def pixel(self) -> bool:
        """It acts at a point (or on the focused element, or turns the wheel), not on a mark."""
        return self.point is not None or self.focused or self.delta is not None

    def __str__(self) -> str:
        name = _CANON[self.kind]
        if self.pixel:
            return _pixel_text(self, name)
        if self.kind in ("wait", "back", "google"):
            return name
        if self.kind == "answer":
            return f"ANSWER; {self.text}"
        if self.kind == "scroll":
            where = "WINDOW" if self.target is None else str(self.target)
            return f"Scroll [{where}]; {self.text}"
        if self.kind in ("press", "goto"):
            return f"{name} [{self.text}]"
        head = f"{name} [{self.target}]"
        return f"{head}; {self.text}" if self.kind in ("type", "select") else head

    @property
    def needs_target(self) -> bool:
        return self.kind in ("click", "type", "select", "hover") and not self.pixel


def _pt(p: tuple) -> str:
    return f"({_num(p[0])}, {_num(p[1])})"


def _num(v) -> str:
    return str(int(v)) if float(v) == int(v) else f"{float(v):.6f}".rstrip("0").rstrip(".")


def _pixel_text(a: Action, name: str) -> str:
    if a.kind == "type":
        return f"Type; {a.text}" if a.point is None else f"Type {_pt(a.point)}; {a.text}"
    if a.kind == "drag":
        return f"Drag {_pt(a.point)} to {_pt(a.end or a.point)}"
    if a.kind == "scroll":
        at = f" {_pt(a.point)}" if a.point is not None else ""
        return f"Scroll{at} by {_pt(a.delta or (0, 0))}"
    return f"{name} {_pt(a.point)}"


def _strip_markdown(s: str) -> str:
    s = s.strip()
    if len(s) > 4 and s.startswith("__") and s.endswith("__"):
        s = s[2:-2]  # __Click [3]__ as bold; a lone trailing __ (ANSWER; __init__) stays
    s = re.sub(r"^[`*>\s-]+", "", s)
    s = re.sub(r"[`*\s]+$", "", s)
    return s


def _unbracket(s: str) -> str:
    s = s.strip()
    # Only a single outer pair: "[A] is right, not [B]" keeps its brackets.
    if len(s) >= 2 and s[0] == "[" and s[-1] == "]" and "[" not in s[1:-1] and "]" not in s[1:-1]:
        s = s[1:-1].strip()
    return s


def _split_args(rest: str) -> tuple[str, str]:
    """'[12]; hello' -> ('[12]', 'hello'); 'hello' -> ('hello', '')."""
    if ";" in rest:
        a, b = rest.split(";", 1)
        return a.strip(), b.strip()
    return rest.strip(), ""


_CANON_TYPE = re.compile(r"^Type(?: \((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\))?; ")


def parse_action(text: str, *, pixel: bool = True) -> Action:
    """Parse one action string. Raises ActionParseError with a helpful message.

    `pixel=False` reads only the mark grammar (a Set-of-Mark model's reply): a point there is no action."""
    if pixel and (canon := _CANON_TYPE.match(text or "")):  # stored canonical text: verbatim, newlines and all
        x, y = canon.groups()
        if x is None:
            return Action("type", text=text[canon.end():], focused=True)
        return Action("type", text=text[canon.end():], point=(_coord(x), _coord(y)))
    raw = _strip_markdown(text or "")
    m = _HEAD.match(raw)
    if not m:
        raise ActionParseError(
            f"'{raw[:80]}' is not an action. Write one of: Click [N], Type [N]; text, "
            "Scroll [N or WINDOW]; up or down, Wait, GoBack, Google, ANSWER; text, "
            "Select [N]; option, Hover [N], Press [key], Goto [url].")
    kind = _ALIASES[re.sub(r"\s+", " ", m.group(1).lower())]
    rest = m.group(2).strip()
    if pixel and kind in POINTER_KINDS and (found := _parse_pixel(kind, rest)) is not None:
        return found
    if kind in ("double_click", "right_click", "drag") and not pixel:
        raise ActionParseError(f"{_CANON[kind]} is not one of this model's actions: act on a numbered element")
    if kind in ("double_click", "right_click", "drag"):
        raise ActionParseError(f"{_CANON[kind]} needs a point, e.g. "
                               + ("Drag (100, 200) to (300, 200)" if kind == "drag" else f"{_CANON[kind]} (600, 475)"))
    if kind == "hover" and m.group(1).lower().startswith(("move", "mouse")):
        raise ActionParseError("a mouse move needs a point, e.g. Hover (600, 475)")
    if kind in ("wait", "back", "google"):
        return Action(kind)
    if kind == "answer":
        rest = re.sub(r"^[;:]\s*", "", rest)
        return Action("answer", text=_unbracket(rest))
    if kind in ("press", "goto"):
        value = _unbracket(re.sub(r"^[;:]\s*", "", rest)).rstrip(".")
        if not value:
            raise ActionParseError(f"{_CANON[kind]} needs a {'key' if kind == 'press' else 'URL'}, "
                                   f"e.g. {_CANON[kind]} [{'Enter' if kind == 'press' else 'https://example.com'}]")
        return Action(kind, text=value)
    m_num = _NUM.match(rest) or _WINDOW.match(rest)
    if m_num and ";" not in rest[:m_num.end() + 1] and rest[m_num.end():].strip():
        # 'Type [3] Hello; world', 'Scroll [3] down': no semicolon after the target.
        head, arg = rest[:m_num.end()], rest[m_num.end():].strip().lstrip(";").strip()
    else:
        head, arg = _split_args(rest)
    if kind == "scroll":
        return _parse_scroll(head, arg, rest)
    n = _NUM.match(head)
    if not n:
        raise ActionParseError(f"{_CANON[kind]} needs an element number, e.g. {_CANON[kind]} [12]")
    target = int(n.group(1))
    if kind in ("type", "select"):
        if not arg and head[n.end():].strip():
            arg = head[n.end():].strip()  # 'Type [3] hello' without the semicolon
        return Action(kind, target, _unbracket(arg))
    return Action(kind, target)


def _parse_scroll(head: str, arg: str, rest: str) -> Action:
    direction = (arg or "").strip().strip("[]").lower()
    target: int | None
    if _WINDOW.match(head) or not head:
        target = None
    elif n := _NUM.match(head):
        target = int(n.group(1))
    elif head.strip("[] ").lower() in ("up", "down"):
        target, direction = None, head.strip("[] ").lower()  # 'Scroll down'
    else:
        raise ActionParseError("Scroll needs WINDOW or an element number, e.g. Scroll [WINDOW]; down")
    direction = direction.split()[0] if direction else ""
    if direction not in ("up", "down"):
        raise ActionParseError("Scroll needs a direction, up or down: e.g. Scroll [WINDOW]; down")
    return Action("scroll", target, direction)


def _point_of(text: str) -> tuple[tuple, str] | None:
    """A point at the start of `text` and what follows it; None when there is none."""
    m = _POINT.match(text)
    if not m:
        return None
    return (_coord(m.group(1)), _coord(m.group(2))), text[m.end():]


def _coord(v: str):
    f = float(v)
    return int(f) if f == int(f) else f


def _parse_pixel(kind: str, rest: str) -> Action | None:
    """The pixel form of a pointer action (None: not a pixel form; the mark grammar reads it)."""
    rest = rest.strip()
    if kind == "type":
        return _parse_pixel_type(rest)
    if kind == "scroll":
        return _parse_pixel_scroll(rest)
    got = _point_of(rest)  # "[12]" is no point: a mark, for the mark grammar
    if got is None or "," not in rest[:len(rest) - len(got[1])] and not re.match(r"^\s*(?:at\s+)?[(\[]", rest):
        return None
    point, after = got
    if kind == "drag":
        after = re.sub(r"^\s*(?:to|->|→|,)\s*", "", after)
        end = _point_of(after)
        if end is None:
            raise ActionParseError("Drag needs two points, e.g. Drag (100, 200) to (300, 200)")
        return Action("drag", point=point, end=end[0])
    return Action(kind, point=point)


def _parse_pixel_type(rest: str) -> Action | None:
    got = _point_of(rest) if re.match(r"^\s*(?:at\s+)?[(\[]\s*-?\d", rest) else None
    if got is not None:
        point, after = got
        canonical = re.match(r"^\s*;\s?", after)  # "Type (x, y); text": the text as written
        return Action("type", text=after[canonical.end():] if canonical else _typed(after), point=point)
    if rest.startswith(";"):
        return Action("type", text=rest[2:] if rest.startswith("; ") else rest[1:], focused=True)
    quoted = re.match(r"""^(?:text\s*[=:]\s*)?(["'])(.*)\1$""", rest, re.S | re.I)
    if quoted or re.match(r"^text\s*[=:]", rest, re.I):  # 'Type "words"', 'Type text="words"'
        return Action("type", text=quoted.group(2) if quoted else _typed(rest), focused=True)
    return None


def _typed(s: str) -> str:
    s = re.sub(r"^\s*[;:,]?\s*(?:text\s*[=:]\s*)?", "", s).strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        s = s[1:-1]
    return s


def _parse_pixel_scroll(rest: str) -> Action | None:
    got = _point_of(rest) if re.match(r"^\s*(?:at\s+)?[(\[]\s*-?\d", rest) else None
    point, after = got if got is not None else (None, rest)
    by = _BY.match(after) or _DELTA.search(after)
    if by is None:
        if point is None:
            return None
        word = after.strip(" ;,").lower().split()
        if not word or word[0] not in ("up", "down", "left", "right"):
            raise ActionParseError("a scroll at a point needs a wheel delta or a direction, e.g. "
                                   "Scroll (512, 384) by (0, 400)")
        delta = {"up": (0, -SCROLL_STEP), "down": (0, SCROLL_STEP), "left": (-SCROLL_STEP, 0),
                 "right": (SCROLL_STEP, 0)}[word[0]]
    else:
        delta = (_coord(by.group(1)), _coord(by.group(2)))
    return Action("scroll", point=point, delta=delta)


#: Pixels a pixel scroll by direction turns the wheel (about two thirds of a 768-pixel viewport).
SCROLL_STEP = 500
#: A scroll written without a point (its delta set, its point None): coords.place puts it at the viewport's middle.
CENTRE = None
