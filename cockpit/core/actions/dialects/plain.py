"""The plain dialect: Cockpit's own Thought/Action text, with pixel actions.

Source: Cockpit's grammar (:mod:`cockpit.core.actions.grammar`), which also reads the
plain-text forms general models write ("Click at (600, 475)", "click(600, 475)",
"Scroll (delta_x=0, delta_y=400)", "Type \\"text\\"", "Press ENTER", "Navigate back").
The reply format is WebVoyager's ``Thought: ...`` / ``Action: ...``.

A model in this dialect acts at points, so an action on a numbered mark (``Click [12]``)
is refused with a format error; ``Scroll [WINDOW]; down``, ``Wait``, ``GoBack``,
``Press [key]``, ``Goto [url]`` and ``ANSWER; text`` need no mark and are kept.
"""
from __future__ import annotations

from cockpit.core.actions import replytext
from cockpit.core.actions.dialects.common import DialectParse, Reply, format_error
from cockpit.core.actions.grammar import SCROLL_STEP, parse_action
from cockpit.core.errors import ActionParseError

NAME = "plain"
EXPECTED = ("'Thought: ...' then 'Action: ...' with one action such as Click (x, y), Type (x, y); text, "
            "Type; text, Scroll (x, y) by (0, 400), Drag (x1, y1) to (x2, y2), Press [Enter], GoBack, "
            "Wait, ANSWER; text")

def split(text: str) -> tuple[str, str] | None:
    """(thought, action text) of a Thought/Action reply, read as the mark protocol reads it
    (:mod:`cockpit.core.actions.replytext`); with no 'Thought:' label, all before 'Action:' is the thought.
    None when there is no 'Action:' label."""
    text = (text or "").strip()
    am = replytext.action_label(text)
    if am is None:
        return None
    return replytext.thought_before(text, am.start(), whole=True), replytext.action_line(text[am.end():])


def parse(reply: Reply) -> DialectParse:
    got = split(reply.text)
    if got is None:
        return DialectParse(NAME, reply.text.strip(), "", None,
                            format_error("the reply has no 'Action:' line", EXPECTED))
    thought, action_text = got
    try:
        action = parse_action(action_text)
    except ActionParseError as e:
        return DialectParse(NAME, thought, action_text, None, format_error(str(e), EXPECTED))
    if action.target is not None:
        return DialectParse(NAME, thought, action_text, None, format_error(
            f"'{action_text}' acts on a numbered element, but there are no numbered elements here: "
            "act at a point of the screenshot", EXPECTED))
    return DialectParse(NAME, thought, action_text, action)


def looks_like(reply: Reply) -> bool:
    """A Thought/Action reply whose action acts at a point (or types into the focus).

    Actions that need no point (Wait, ANSWER, Press, ...) read the same in the marks dialect,
    and mark actions belong to it, so neither counts as plain here."""
    got = split(reply.text)
    if got is None:
        return False
    try:
        return parse_action(got[1]).pixel
    except ActionParseError:
        return False


def system_prompt(*, width: int, height: int, space_words: str) -> str:
    return f"""You are a web agent. You operate a real web browser, one step at a time, to complete a task for a user.

At every step you get a screenshot of the browser's viewport, {width}x{height}. You act at points of that screenshot: give every point as (x, y) in {space_words}, x from the left edge and y from the top edge, and aim at the middle of the element you mean.

Reply with a short line of reasoning and exactly one action, in this format and nothing else:

Thought: {{one or two sentences: what you see, and why the next action moves the task forward}}
Action: {{one action from the list below}}

The actions:
Click (x, y) - click at the point.
DoubleClick (x, y) - double-click at the point.
RightClick (x, y) - right-click at the point.
Hover (x, y) - move the mouse to the point (menus that open on hover).
Drag (x1, y1) to (x2, y2) - press at the first point, move to the second, release.
Scroll (x, y) by (dx, dy) - turn the mouse wheel over the point; dy > 0 scrolls down, dy < 0 up, {SCROLL_STEP} is about two thirds of a screen. Scroll (x, y); down scrolls {SCROLL_STEP} down.
Type (x, y); text - click at the point, then type the text (no Enter is pressed).
Type; text - type the text into the element that has the focus.
Press [key] - press a key or a combination: Press [Enter], Press [Tab], Press [Ctrl+A].
Goto [url] - open a web address.
GoBack - go back to the previous page.
Wait - wait a few seconds for the page to change.
ANSWER; text - the task is done: give the final answer (or a short confirmation).

Give exactly one action per reply. If an action had no effect, try a different point or a different action instead of repeating it."""
