"""What every dialect shares: the reply and parse records, points, JSON arguments, answers.

A *dialect* is the way a pixel-grounded model writes its action: Cockpit's own grammar,
UI-TARS's function-call text, a Qwen ``<tool_call>``, an OpenAI-style ``tool_calls`` entry,
or an item of OpenAI's Responses API. Each dialect module turns a :class:`Reply` into a
:class:`DialectParse` holding a Cockpit :class:`~cockpit.core.actions.grammar.Action`.

Points stay in the model's own coordinates (pixels of its image, 0..1000, 0..1, ...);
:func:`cockpit.core.actions.coords.place` converts them later.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from cockpit.core.actions.grammar import Action
from cockpit.core.words import json_error


@dataclass
class Reply:
    """What the model sent back."""
    text: str = ""  # the message text (chat completions content, or Responses output_text joined)
    tool_calls: list[dict] = field(default_factory=list)  # OpenAI chat tool_calls entries as dicts
    output: list[dict] = field(default_factory=list)  # Responses API output items as dicts


@dataclass
class DialectParse:
    dialect: str
    thought: str
    action_text: str  # the action as the model wrote it (raw, for the record)
    action: Action | None  # points in the MODEL's coordinates (unconverted)
    error: str = ""  # when action is None: feedback for the model, naming what this dialect expects
    safety_checks: list[dict] = field(default_factory=list)  # Responses pending_safety_checks, verbatim
    call_id: str = ""  # id of the tool call / computer_call, so the next turn can answer it


class Malformed(ValueError):
    """The reply does not hold an action of the dialect; the message says what is wrong."""


def format_error(problem: str, expected: str) -> str:
    """Feedback for the model: 'Format ERROR: <problem>. Expected <what this dialect takes>.'"""
    problem = problem.strip().rstrip(".")
    return f"Format ERROR: {problem}. Expected {expected}"


# ---------- numbers and points ----------

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
#: A number standing alone in text ("x1" in an echoed template is no number).
_IN_TEXT = re.compile(r"(?<![A-Za-z_\d.])-?\d+(?:\.\d+)?(?![A-Za-z_\d])")


def number(v) -> int | float:
    """A coordinate as a number: ints stay ints, 12.0 becomes 12, '12' becomes 12."""
    if isinstance(v, bool):
        raise Malformed(f"{v!r} is not a number")
    if isinstance(v, str):
        if not _NUMBER.fullmatch(v.strip()):
            raise Malformed(f"'{v}' is not a number")
        v = float(v)
    if not isinstance(v, (int, float)) or v != v:
        raise Malformed(f"{v!r} is not a number")
    return int(v) if float(v) == int(v) else float(v)


def point_of(value, what: str = "coordinate") -> tuple:
    """A point from what models write: [x, y], (x, y), "x y", "(x,y)", "<point>x y</point>",
    "<|box_start|>(x,y)<|box_end|>", or a box [x1, y1, x2, y2] (its centre)."""
    if isinstance(value, dict) and "x" in value and "y" in value:
        nums = [value["x"], value["y"]]
    elif isinstance(value, (list, tuple)):
        nums = list(value)
    elif isinstance(value, str):
        nums = _IN_TEXT.findall(re.sub(r"</?\|?[a-z_]+\|?>", " ", value))
    else:
        raise Malformed(f"{what} is missing" if value is None else f"{what} {value!r} is not a point")
    if len(nums) == 2:
        return number(nums[0]), number(nums[1])
    if len(nums) == 4:
        x1, y1, x2, y2 = (number(n) for n in nums)
        return number((x1 + x2) / 2), number((y1 + y2) / 2)
    raise Malformed(f"{what} {value!r} is not a point [x, y]")


# ---------- JSON arguments ----------

def json_object(raw, what: str = "arguments") -> dict:
    """A tool call's arguments: a JSON string (as OpenAI sends them) or an already-decoded dict."""
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if not isinstance(raw, str):
        raise Malformed(f"the {what} are not a JSON object")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as e:
        raise Malformed(f"the {what} are not valid JSON ({json_error(e, 'character')})") from None
    if not isinstance(value, dict):
        raise Malformed(f"the {what} are not a JSON object")
    return value


def first_tool_call(reply: Reply) -> tuple[str, str, object]:
    """(call id, function name, raw arguments) of the reply's first tool call ('' for none).

    Cockpit takes one action per step, so further calls are not parsed (the caller still has
    to answer each call id the API requires)."""
    for call in reply.tool_calls or []:
        if not isinstance(call, dict):
            continue
        fn = call.get("function") if isinstance(call.get("function"), dict) else call
        return str(call.get("id") or ""), str(fn.get("name") or ""), fn.get("arguments")
    return "", "", None


def tool_call_names(reply: Reply) -> list[str]:
    names = []
    for call in reply.tool_calls or []:
        if isinstance(call, dict):
            fn = call.get("function") if isinstance(call.get("function"), dict) else call
            names.append(str(fn.get("name") or ""))
    return names


def raw_call_text(name: str, raw) -> str:
    """A tool call as it was written, for the record: 'computer {"action": ...}'."""
    if isinstance(raw, str):
        body = raw.strip()
    else:
        body = json.dumps(raw, ensure_ascii=False) if raw is not None else "{}"
    return f"{name} {body}".strip()


# ---------- answers and thoughts ----------

_ANSWER_LINE = re.compile(r"^[\s*_#>`]*answer\s*[:;]\s*", re.I | re.M)


def answer_in_text(text: str) -> str | None:
    """The answer of a reply that ends the task in words: the text after its last line that
    starts with 'ANSWER:' (or 'ANSWER;'), to the end. None when there is no such line."""
    found = list(_ANSWER_LINE.finditer(text or ""))
    if not found:
        return None
    rest = text[found[-1].end():].strip()
    return rest.strip("`*_ ").strip()


def strip_label(text: str, *labels: str) -> str:
    """'Thought: I see ...' -> 'I see ...' (first matching label at the start, any case)."""
    text = (text or "").strip()
    for label in labels:
        m = re.match(r"^[\s*_#>`]*" + label + r"[*_\s`]*[:：]\s*", text, re.I)
        if m:
            return text[m.end():].strip()
    return text


def text_parse(dialect: str, reply: Reply, thought: str, call_id: str, expected: str) -> DialectParse:
    """A reply with no tool call: an answer when it has an 'ANSWER:' line, otherwise a format error."""
    answer = answer_in_text(reply.text)
    if answer is not None:
        return DialectParse(dialect, thought, f"ANSWER: {answer}", Action("answer", text=answer),
                            call_id=call_id)
    return DialectParse(dialect, thought, "", None,
                        format_error("the reply holds no tool call and no 'ANSWER:' line", expected),
                        call_id=call_id)


def computer_action(action: str, args: dict, pointed: dict[str, str]) -> Action | None:
    """The actions Claude's computer tool and Qwen's computer_use share (Qwen modelled its schema on it):
    a click or move at "coordinate", left_click_drag from "start_coordinate" to "coordinate", and type
    (at "coordinate" when given, else into the focus). None for any other action."""
    if action in pointed:
        if args.get("coordinate") is None:
            raise Malformed(f"{action} needs its coordinate [x, y] here (the pointer is not kept between steps)")
        return Action(pointed[action], point=point_of(args["coordinate"], "coordinate"))
    if action == "left_click_drag":
        if args.get("start_coordinate") is None:
            raise Malformed("left_click_drag needs start_coordinate [x, y] (where to press) and coordinate "
                            "[x, y] (where to release)")
        return Action("drag", point=point_of(args["start_coordinate"], "start_coordinate"),
                      end=point_of(args.get("coordinate"), "coordinate"))
    if action == "type":
        text = str(args.get("text") if args.get("text") is not None else "")
        if args.get("coordinate") is not None:
            return Action("type", text=text, point=point_of(args["coordinate"]))
        return Action("type", text=text, focused=True)
    return None
