"""The risk of a pixel action: the element under the point, rated by the same rules as a mark.

A pixel action's point is resolved in the page to the element it would hit
(see :mod:`cockpit.core.agent.pointer`). That element is rated exactly as if the
model had named its mark: ``Click (600, 475)`` on the "Place order" button
has the evidence and level of ``Click [N]`` on it. What is special to points:

* a point on nothing clickable (no mark holds it, no pointer cursor, not a
  control) is read-only: the click lands on text or background;
* a drag is state-changing (it moves something: a slider, a card, a file),
  more when its start element says so;
* a right-click is rated as a click (pages may act on it), a double-click too;
* text typed at a point is rated as Type without Enter; text typed into the
  focused element with no point is state-changing (the field is not known);
* a computer-use model's own pending safety checks (OpenAI) are evidence too,
  and make the action one a person must approve.
Pure: reads its arguments only.
"""
from __future__ import annotations

from cockpit.core.actions.grammar import Action
from cockpit.core.page.marks import Mark
from cockpit.core.safety.redaction import SECRET, scrub
from cockpit.core.safety.risk import IRREVERSIBLE, LEVELS, READ_ONLY, STATE_CHANGING, Risk, classify

_CONTROL_TAGS = ("a", "button", "input", "select", "textarea", "summary", "label", "option", "area")


def clickable(mark: Mark | None, cursor: str = "") -> bool:
    """Whether a point's element is something a click can act on."""
    if mark is None:
        return False
    if mark.reason != "at a point":  # the marking found it interactive
        return True
    return mark.tag in _CONTROL_TAGS or bool(mark.href) or mark.editable or cursor == "pointer" or \
        mark.role in ("button", "link", "checkbox", "radio", "tab", "menuitem", "option", "switch")


def as_mark_action(action: Action, mark: Mark | None) -> Action:
    """The mark action that does what `action` does to `mark`'s element (for rating and breakpoints)."""
    target = mark.id if mark is not None else None
    kind = {"double_click": "click", "right_click": "click", "drag": "click"}.get(action.kind, action.kind)
    if kind == "scroll":
        return Action("scroll", target, "down" if (action.delta or (0, 1))[1] >= 0 else "up")
    if kind in ("click", "hover", "type"):
        return Action(kind, target, action.text if kind == "type" else "")
    return action


def classify_point(action: Action, mark: Mark | None, marks: list[Mark], url: str, rules=(), *,
                   cursor: str = "", safety_checks: list[dict] | tuple = ()) -> Risk:
    """The risk of pixel `action`, whose point resolved to `mark` (None: nothing there, or no point)."""
    if action.kind in ("click", "double_click", "right_click", "type") and action.point is not None \
            and not clickable(mark, cursor):
        where = f"<{mark.tag}>" + (f' "{mark.label[:40]}"' if mark.label else "") if mark else "nothing"
        risk = Risk(READ_ONLY, (f"the point is on {where}, which is not a control: the click lands on text "
                                "or background",))
    elif action.focused:
        risk = Risk(STATE_CHANGING, ("typing into whatever has the focus changes that field",))
    else:
        risk = classify(as_mark_action(action, mark), mark, marks, url, rules, enter_after_type=False)
        if action.kind == "drag" and LEVELS.index(risk.level) < LEVELS.index(STATE_CHANGING):
            risk = Risk(STATE_CHANGING, ("a drag moves something on the page (a slider, an item, a file)",)
                        + risk.evidence, risk.rule)
    if safety_checks:
        said = tuple(f"the model's own safety check {c.get('code') or '?'}: {c.get('message') or ''}".strip()
                     for c in safety_checks)
        risk = Risk(IRREVERSIBLE, said + risk.evidence, risk.rule)
    return risk


def shown_point(action: Action, mark: Mark | None, secrets=()) -> str:
    """The pixel action as recorded and displayed, with text typed into a secret field hidden."""
    if action.kind == "type" and mark is not None and mark.secret and action.text:
        return str(Action("type", text=SECRET, point=action.point, focused=action.focused))
    return scrub(str(action), secrets)
