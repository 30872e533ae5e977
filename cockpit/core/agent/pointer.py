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
"""
from __future__ import annotations

import dataclasses

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin

from cockpit.core.actions.grammar import Action
from cockpit.core.errors import ActionError
from cockpit.core.page.marks import Mark


class TargetChanged(ActionError):
    """The approved action's target is not what the human approved: nothing was done."""


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
    """Mixed into the Executor: the `_px_*` handlers. Needs its session, `_act_js`, `_check_unchanged`,
    `_unguard`, `_keys`, `secrets` and `_approved`."""

    last_cursor = ""  # the CSS cursor over the last point resolved
    last_hit: dict = {}  # act.js's answer for it: cursor, secret, opaque (a frame, embed or canvas: its src)

    def resolve_point(self, x: int, y: int, marks: list[Mark]) -> Mark | None:
        """The element a pixel action at (x, y) acts on (see the module doc); None over nothing."""
        found = self._act_js("at", None, [int(x), int(y)])  # one round trip: the viewport check is in it
        if found.get("why") == "outside":
            w, h = found["size"]
            raise ActionError(f"the point ({x}, {y}) is outside the {w}x{h} viewport; nothing was done")
        return self._resolved(found, marks)

    def resolve_focus(self, marks: list[Mark]) -> Mark | None:
        """The element that has the keyboard focus (what ``Type; text`` types into); None: the page itself."""
        return self._resolved(self._act_js("focused", None), marks)

    def _resolved(self, found: dict | None, marks: list[Mark]) -> Mark | None:
        self.last_hit = dict(found or {})
        self.last_cursor = str(self.last_hit.get("cursor") or "")
        return resolved_mark(found, marks)

    def _in_view(self, x: int, y: int) -> None:
        w, h = self.session.js("return [window.innerWidth, window.innerHeight]")
        if not (0 <= x < w and 0 <= y < h):
            raise ActionError(f"the point ({x}, {y}) is outside the {w}x{h} viewport; nothing was done")

    def _checked_point(self, a: Action, m: Mark | None) -> tuple[int, int]:
        """The action's point, after checking the element resolved there is still there and unchanged."""
        x, y = a.point
        if m is None:
            return x, y
        res = self._act_js("check", m, [x, y])
        if not res.get("ok"):
            by = res.get("by", "another element")
            err = TargetChanged if self._approved is not None else ActionError
            raise err(f"the point ({x}, {y}) no longer hits {describe_hit(m)}: {by} is there now; "
                      f"{a} was not done. Look at the new screenshot")
        if res.get("now"):
            self._check_unchanged(a, m, res["now"])
        return x, y

    def _press_at(self, a: Action, m: Mark | None, build) -> None:
        """Pointer input at the action's point, guarded so it lands only on `m`'s element."""
        x, y = self._checked_point(a, m)
        if m is not None:
            self._act_js("guard", m)
        try:
            ab = ActionBuilder(self.session.driver, duration=0)
            ab.pointer_action.move_to_location(int(x), int(y))
            build(ab.pointer_action)
            self.session._call(ab.perform)
        finally:
            blocked = self._unguard() if m is not None else ""
        if blocked:
            raise ActionError(f"{a} was stopped: when the pointer got there, {blocked} had appeared on top of "
                              f"{describe_hit(m)} and would have taken it; nothing was clicked. Look at the "
                              "new screenshot")

    def _px_click(self, a: Action, m: Mark | None):
        self._press_at(a, m, lambda p: p.click())
        return f"clicked at {a.point[0]}, {a.point[1]} on {describe_hit(m)}", None

    def _px_double_click(self, a: Action, m: Mark | None):
        self._press_at(a, m, lambda p: p.double_click())
        return f"double-clicked at {a.point[0]}, {a.point[1]} on {describe_hit(m)}", None

    def _px_right_click(self, a: Action, m: Mark | None):
        self._press_at(a, m, lambda p: p.context_click())
        return f"right-clicked at {a.point[0]}, {a.point[1]} on {describe_hit(m)}", None

    def _px_hover(self, a: Action, m: Mark | None):
        x, y = a.point
        ab = ActionBuilder(self.session.driver, duration=0)
        ab.pointer_action.move_to_location(int(x), int(y))
        self.session._call(ab.perform)
        return f"moved the mouse to {x}, {y} over {describe_hit(m)}", None

    def _px_drag(self, a: Action, m: Mark | None):
        (x1, y1), (x2, y2) = a.point, a.end
        self._in_view(x2, y2)

        def drag(p):  # pressed on the start element (checked and guarded like a click), moved, released
            p.click_and_hold()
            for k in range(1, DRAG_STEPS + 1):
                p.move_to_location(int(round(x1 + (x2 - x1) * k / DRAG_STEPS)),
                                   int(round(y1 + (y2 - y1) * k / DRAG_STEPS)))
            p.release()
        self._press_at(a, m, drag)
        return f"dragged from {x1}, {y1} ({describe_hit(m)}) to {x2}, {y2}", None

    def _px_scroll(self, a: Action, m: Mark | None):
        x, y = a.point or (v // 2 for v in self.session.js("return [window.innerWidth, window.innerHeight]"))
        dx, dy = (int(v) for v in (a.delta or (0, 0)))
        before = self.session.js("return [window.scrollX, window.scrollY]")
        chain = ActionChains(self.session.driver, duration=0)
        chain.scroll_from_origin(ScrollOrigin.from_viewport(int(x), int(y)), dx, dy)
        self.session._call(chain.perform)
        after = self.session.js("return [window.scrollX, window.scrollY]")
        moved = "" if after != before else " (the window did not move; an inner area may have)"
        return f"turned the wheel by ({dx}, {dy}) at {x}, {y} over {describe_hit(m)}{moved}", None

    def _px_type(self, a: Action, m: Mark | None):
        if a.point is not None:
            self._press_at(a, m, lambda p: p.click())
            where = f"at {a.point[0]}, {a.point[1]} into {describe_hit(m)}"
        else:
            where = f"into the focused {describe_hit(m)}" if m is not None else "into the page (nothing has the focus)"
            if m is not None:  # the focus must still be on the field that was rated (and approved)
                res = self._act_js("isfocused", m)
                if not res.get("ok"):
                    err = TargetChanged if self._approved is not None else ActionError
                    raise err(f"the focus moved from {describe_hit(m)} to {res.get('by')}; {a} was not done")
                self._check_unchanged(a, m, res.get("now") or {})
        if m is not None and m.secret:
            self.secrets.add(a.text.strip())
        shown = "(secret)" if m is not None and m.secret else repr(a.text)
        if a.text:
            self._keys(a.text)  # a newline in it is Enter (UI-TARS's way to submit): rated so at the gate
        enter = " and pressed Enter" if "\n" in a.text or "\r" in a.text else ""
        return f"typed {shown} {where}{enter}", None
