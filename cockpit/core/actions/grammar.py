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
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cockpit.core.errors import ActionParseError

KINDS = ("click", "type", "scroll", "wait", "back", "google", "answer",
         "select", "hover", "press", "goto")

_CANON = {"click": "Click", "type": "Type", "scroll": "Scroll", "wait": "Wait",
          "back": "GoBack", "google": "Google", "answer": "ANSWER", "select": "Select",
          "hover": "Hover", "press": "Press", "goto": "Goto"}

_ALIASES = {"click": "click", "type": "type", "scroll": "scroll", "wait": "wait",
            "goback": "back", "go back": "back", "back": "back", "google": "google",
            "answer": "answer", "select": "select", "hover": "hover", "press": "press",
            "goto": "goto", "go to": "goto", "navigate": "goto"}

_HEAD = re.compile(r"^\s*(go\s*back|go\s*to|goto|click|type|scroll|wait|google|answer|"
                   r"select|hover|press|navigate)\b\s*(.*)$", re.I | re.S)
_NUM = re.compile(r"^\[?\s*(\d+)\s*\]?")
_WINDOW = re.compile(r"^\[?\s*(window|page)\s*\]?", re.I)


@dataclass(frozen=True)
class Action:
    kind: str
    target: int | None = None  # mark id; None with kind scroll means the window
    text: str = ""  # typed content, answer, option, key, url, or scroll direction

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown action kind {self.kind!r}")

    def __str__(self) -> str:
        name = _CANON[self.kind]
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
        return self.kind in ("click", "type", "select", "hover")


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


def parse_action(text: str) -> Action:
    """Parse one action string. Raises ActionParseError with a helpful message."""
    raw = _strip_markdown(text or "")
    m = _HEAD.match(raw)
    if not m:
        raise ActionParseError(
            f"'{raw[:80]}' is not an action. Write one of: Click [N], Type [N]; text, "
            "Scroll [N or WINDOW]; up or down, Wait, GoBack, Google, ANSWER; text, "
            "Select [N]; option, Hover [N], Press [key], Goto [url].")
    kind = _ALIASES[re.sub(r"\s+", " ", m.group(1).lower())]
    rest = m.group(2).strip()
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
