"""Pixel actions: real mouse and keyboard input at a viewport point, for models that act at a point.

The executor's half for ``Click (x, y)`` and its kin (see the grammar). Input
goes through W3C actions with the pointer at the point (so it works through a
Selenium Grid too): the page gets pointerdown, mousedown, pointerup, mouseup
and click at that pixel, as from a person.

What is under the point is resolved in the page (act.js ``at``: the innermost
marked element holding the deepest element there, through shadow roots and
same-origin frames; an unmarked element is named too). That element is the
action's target for the checks mark actions get: a link's address against the
navigation fence, the approved element's fingerprint (Binding), a target that
turned riskier since the screenshot, and the click guard (a press landing on
anything else is stopped).

Every text naming a point is said twice (a :class:`Words` function of a
:class:`~cockpit.core.actions.coords.Voice`): for the person in viewport CSS
pixels, and for the model in its own coordinate space (the executor's
``voice``, set per action), so a model is never told of a point in numbers it
did not use.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin

from cockpit.core.actions.coords import PERSON, Voice
from cockpit.core.actions.grammar import Action
from cockpit.core.errors import ActionError
from cockpit.core.page.marks import Mark


class TargetChanged(ActionError):
    """The approved action's target is not what the human approved: nothing was done."""


#: Text naming points, made for a voice: the person's (viewport CSS pixels) or the model's (its own space).
Words = Callable[[Voice], str]


def say(words: Words | str, voice: Voice) -> tuple[str, str]:
    """(the person's text, the model's text, "" when it is the same)."""
    if isinstance(words, str):
        return words, ""
    person, model = words(PERSON), words(voice)
    return person, ("" if model == person else model)


#: Steps a drag moves the pointer through between its two points (pages track the pointer as it moves).
DRAG_STEPS = 8


def resolved_mark(found: dict | None, marks: list[Mark]) -> Mark | None:
    """The Mark for act.js ``at``'s answer: the observation's mark, or one made from the live element's
    facts when no mark holds the point (its id is past the observation's marks)."""
    if not found or not found.get("mark"):
        return None
    n = int(found["mark"])
    now = found.get("now") or {}
    if not found.get("extra") and 1 <= n <= len(marks):
        m = marks[n - 1]
        return dataclasses.replace(m, secret=True) if found.get("secret") and not m.secret else m
    keep = {k: now[k] for k in ("text", "aria_label", "href", "value", "form_method", "submit", "form_action",
                                "dom_path") if k in now}
    return Mark(id=n, bbox=tuple(int(v) for v in now.get("box") or (0, 0, 0, 0)), tag=found.get("tag", ""),
                role=found.get("role", ""), editable=bool(found.get("editable")), reason="at a point",
                secret=bool(found.get("secret")), **keep)


def describe_hit(mark: Mark | None) -> str:
    """`<button> "Place order"`: what the point resolved to, for the log and the model."""
    if mark is None:
        return "nothing"
    label = mark.label
    return f"<{mark.tag}> \"{label[:60]}\"" if label else f"<{mark.tag}>"


class PointerActs:
    """The executor's part for actions at a point: the handlers of ``Click (x, y)`` and its kin
    (:attr:`handlers`, by action kind), and what is under a point. It acts through its executor's public
    helpers (act.js, the checks of an approved or changed target, the click guard, the keyboard)."""

    def __init__(self, executor):
        self.ex = executor
        self.session = executor.session
        self.last_cursor = ""  # the CSS cursor over the last point resolved
        self.last_hit: dict = {}  # act.js's answer for it: cursor, secret, opaque (a frame, embed or canvas: its src)
        self.handlers = {"click": self.click, "double_click": self.double_click, "right_click": self.right_click,
                         "hover": self.hover, "drag": self.drag, "scroll": self.scroll, "type": self.type}

    def _error(self, cls: type[ActionError], words: Words) -> ActionError:
        return self.ex.error(cls, words)

    def resolve_point(self, x: int, y: int, marks: list[Mark], voice: Voice | None = None) -> Mark | None:
        """The element a pixel action at (x, y) acts on (see the module doc); None over nothing. `voice`: how an
        error names the point to the model (default: the executor's)."""
        found = self.ex.act_js("at", None, [int(x), int(y)])  # one round trip: the viewport check is in it
        if found.get("why") == "outside":
            w, h = found["size"]
            if voice is not None:
                self.ex.voice = voice
            raise self._error(ActionError, lambda v: f"the point ({v.xy((x, y))}) is outside {v.area((w, h))}; "
                                                     "nothing was done")
        return self._resolved(found, marks)

    def resolve_focus(self, marks: list[Mark]) -> Mark | None:
        """The element that has the keyboard focus (what ``Type; text`` types into); None: the page itself."""
        return self._resolved(self.ex.act_js("focused", None), marks)

    def _resolved(self, found: dict | None, marks: list[Mark]) -> Mark | None:
        self.last_hit = dict(found or {})
        self.last_cursor = str(self.last_hit.get("cursor") or "")
        return resolved_mark(found, marks)

    def _in_view(self, x: int, y: int) -> None:
        w, h = self.session.js("return [window.innerWidth, window.innerHeight]")
        if not (0 <= x < w and 0 <= y < h):
            raise self._error(ActionError, lambda v: f"the point ({v.xy((x, y))}) is outside {v.area((w, h))}; "
                                                     "nothing was done")

    def _checked_point(self, a: Action, m: Mark | None) -> tuple[int, int]:
        """The action's point, after checking the element resolved there is still there and unchanged."""
        x, y = a.point
        if m is None:
            return x, y
        res = self.ex.act_js("check", m, [x, y])
        if not res.get("ok"):
            by = res.get("by", "another element")
            err = TargetChanged if self.ex.approved is not None else ActionError
            raise self._error(err, lambda v: f"the point ({v.xy((x, y))}) no longer hits {describe_hit(m)}: {by} "
                                             f"is there now; {v.action(a)} was not done. Look at the new screenshot")
        if res.get("now"):
            self.ex.check_unchanged(a, m, res["now"])
        return x, y

    def _press_at(self, a: Action, m: Mark | None, build) -> None:
        """Pointer input at the action's point, guarded so it lands only on `m`'s element."""
        x, y = self._checked_point(a, m)
        if m is not None:
            self.ex.act_js("guard", m)
        try:
            ab = ActionBuilder(self.session.driver, duration=0)
            ab.pointer_action.move_to_location(int(x), int(y))
            build(ab.pointer_action)
            self.session.guarded(ab.perform)
        finally:
            blocked = self.ex.unguard() if m is not None else ""
        if blocked:
            raise self._error(ActionError, lambda v: f"{v.action(a)} was stopped: when the pointer got there, "
                                                     f"{blocked} had appeared on top of {describe_hit(m)} and would "
                                                     "have taken it; nothing was clicked. Look at the new screenshot")

    def click(self, a: Action, m: Mark | None):
        self._press_at(a, m, lambda p: p.click())
        return lambda v: f"clicked at {v.xy(a.point)} on {describe_hit(m)}", None

    def double_click(self, a: Action, m: Mark | None):
        self._press_at(a, m, lambda p: p.double_click())
        return lambda v: f"double-clicked at {v.xy(a.point)} on {describe_hit(m)}", None

    def right_click(self, a: Action, m: Mark | None):
        self._press_at(a, m, lambda p: p.context_click())
        return lambda v: f"right-clicked at {v.xy(a.point)} on {describe_hit(m)}", None

    def hover(self, a: Action, m: Mark | None):
        x, y = a.point
        ab = ActionBuilder(self.session.driver, duration=0)
        ab.pointer_action.move_to_location(int(x), int(y))
        self.session.guarded(ab.perform)
        return lambda v: f"moved the mouse to {v.xy((x, y))} over {describe_hit(m)}", None

    def drag(self, a: Action, m: Mark | None):
        (x1, y1), (x2, y2) = a.point, a.end
        self._in_view(x2, y2)

        def drag(p):  # pressed on the start element (checked and guarded like a click), moved, released
            p.click_and_hold()
            for k in range(1, DRAG_STEPS + 1):
                p.move_to_location(int(round(x1 + (x2 - x1) * k / DRAG_STEPS)),
                                   int(round(y1 + (y2 - y1) * k / DRAG_STEPS)))
            p.release()
        self._press_at(a, m, drag)
        return lambda v: f"dragged from {v.xy((x1, y1))} ({describe_hit(m)}) to {v.xy((x2, y2))}", None

    def scroll(self, a: Action, m: Mark | None):
        x, y = a.point or (v // 2 for v in self.session.js("return [window.innerWidth, window.innerHeight]"))
        dx, dy = (int(v) for v in (a.delta or (0, 0)))
        before = self.session.js("return [window.scrollX, window.scrollY]")
        chain = ActionChains(self.session.driver, duration=0)
        chain.scroll_from_origin(ScrollOrigin.from_viewport(int(x), int(y)), dx, dy)
        self.session.guarded(chain.perform)
        after = self.session.js("return [window.scrollX, window.scrollY]")
        moved = "" if after != before else " (the window did not move; an inner area may have)"
        return lambda v: f"turned the wheel by ({dx}, {dy}) at {v.xy((x, y))} over {describe_hit(m)}{moved}", None

    def type(self, a: Action, m: Mark | None):
        into = f"into the focused {describe_hit(m)}" if m is not None else "into the page (nothing has the focus)"

        def where(v: Voice) -> str:
            return f"at {v.xy(a.point)} into {describe_hit(m)}" if a.point is not None else into
        if a.point is not None:
            self._press_at(a, m, lambda p: p.click())
        elif m is not None:  # the focus must still be on the field that was rated (and approved)
            res = self.ex.act_js("isfocused", m)
            if not res.get("ok"):
                err = TargetChanged if self.ex.approved is not None else ActionError
                raise self._error(err, lambda v: f"the focus moved from {describe_hit(m)} to {res.get('by')}; "
                                                 f"{v.action(a)} was not done")
            self.ex.check_unchanged(a, m, res.get("now") or {})
        if m is not None and m.secret:
            self.ex.secrets.add(a.text.strip())
        shown = "(secret)" if m is not None and m.secret else repr(a.text)
        if a.text:
            self.ex.keys(a.text)  # a newline in it is Enter (UI-TARS's way to submit): rated so at the gate
        enter = " and pressed Enter" if "\n" in a.text or "\r" in a.text else ""
        return lambda v: f"typed {shown} {where(v)}{enter}", None
