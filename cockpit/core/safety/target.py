"""What an action acts on, as a value: a mark (``Click [7]``) or a point (``Click (600, 475)``).

The model's action is resolved once, after its reply is read, into a target
(:func:`of`); from there the gate, a take-over, a replay and the step check ask
the target (its risk, how the action is shown, what an approval binds to, what
the executor must find again at the point) and never branch on the kind of
action. A :class:`MarkTarget` holds the numbered box the action names; a
:class:`PointTarget` the element resolved under the point (see
:mod:`cockpit.core.agent.pointer`), the CSS cursor and act.js's answer there, a
drag's end, and the safety checks a computer-use model attached.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Sequence

from cockpit.core.actions.grammar import Action
from cockpit.core.page.marks import Mark
from cockpit.core.safety import redaction
from cockpit.core.safety.binding import Binding
from cockpit.core.safety.risk import IRREVERSIBLE, Risk, classify
from cockpit.core.safety.risk_point import classify_point, shown_point


@dataclass(frozen=True)
class MarkTarget:
    """A numbered box on the screenshot (None: the action names none, or a number not on the page)."""
    mark: Mark | None = None

    #: what the executor must find again at a point before acting (a mark action has no point)
    seen = None
    pointed = False  # the step's pointer facts (the point, what is under it) do not describe it
    safety_checks: tuple = ()

    def rate(self, action: Action, marks: Sequence[Mark], url: str, rules=()) -> tuple[Risk, bool]:
        """(the action's risk, whether a Type presses Enter): a Type whose Enter would make it irreversible is
        typed without Enter when that is not."""
        risk = classify(action, self.mark, list(marks), url, rules)
        if action.kind == "type" and risk.level == IRREVERSIBLE:
            # Enter could submit an order form: type without it rather than ask about every field.
            quiet = classify(action, self.mark, list(marks), url, rules, enter_after_type=False)
            if quiet.level != IRREVERSIBLE:
                return quiet, False
        return risk, True

    def rated(self, action: Action, marks: Sequence[Mark], url: str, rules=(), *, press_enter: bool = True) -> Risk:
        """The risk of the action typed with Enter or not (`press_enter`), as recorded."""
        return classify(action, self.mark, list(marks), url, rules, enter_after_type=press_enter)

    def shown(self, action: Action, marks: Sequence[Mark], secrets=()) -> str:
        """The action as recorded and displayed (text typed into a secret field hidden)."""
        return redaction.shown(action, marks, secrets)

    def binding(self, action: Action) -> Binding:
        """What an approval of `action` on this target binds to (cockpit.core.safety.binding)."""
        return Binding.of(action, self.mark)


@dataclass(frozen=True)
class PointTarget:
    """The element under a pixel action's point (or the focus, for ``Type; text``); None: nothing there."""
    mark: Mark | None = None
    cursor: str = ""  # the CSS cursor over the point
    hit: dict = field(default_factory=dict)  # act.js's answer for it (secret, opaque frame...)
    drag_end: tuple | None = None  # a drag: (the element it ends on, act.js's answer)
    safety_checks: tuple = ()  # what a computer-use model attached to the action: a person must see them

    pointed = True  # the step's pointer facts describe it (announced with the proposed action)

    @property
    def seen(self) -> Mark | None:
        """The element as rated: the point must still hit it, unchanged, when the action runs."""
        return self.mark

    def rate(self, action: Action, marks: Sequence[Mark], url: str, rules=()) -> tuple[Risk, bool]:
        return self.rated(action, marks, url, rules), True

    def rated(self, action: Action, marks: Sequence[Mark], url: str, rules=(), *, press_enter: bool = True) -> Risk:
        return classify_point(action, self.mark, list(marks), url, rules, cursor=self.cursor,
                              safety_checks=self.safety_checks, hit=self.hit, end=self.drag_end)

    def shown(self, action: Action, marks: Sequence[Mark], secrets=()) -> str:
        return shown_point(action, self.mark, secrets)

    def binding(self, action: Action) -> Binding:
        return Binding.of(action, self.mark)


Target = MarkTarget | PointTarget


def of(action: Action, marks: Sequence[Mark], at_point: Callable[[Action], PointTarget | None] | None = None,
       safety_checks=()) -> Target:
    """The target of `action` on a page with `marks`: its box, or for an action at a point (or on the focus)
    what `at_point` finds there (None, or `at_point` None: nothing known under the point). The one place the
    kind of action decides. `safety_checks`: what a computer-use model attached to the action."""
    checks = tuple(safety_checks or ())
    if not action.pixel:
        return MarkTarget(redaction.mark_of(action, marks), checks)
    found = at_point(action) if at_point is not None else None
    return dataclasses.replace(found or PointTarget(), safety_checks=checks)


def acts_at_point(action: Action) -> bool:
    """Whether something must be found at a point (or the focus) for `action` before it is rated."""
    return action.point is not None or action.focused


def again(was: Target, action: Action, marks: Sequence[Mark]) -> Target:
    """The target of `action`, an edit of the action `was` was found for: a box named anew, or at a point
    what was found there before (not looked up again)."""
    return of(action, marks, lambda a: was if isinstance(was, PointTarget) else None, was.safety_checks)
