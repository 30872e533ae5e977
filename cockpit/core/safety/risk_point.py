"""The risk of a pixel action: the element under the point, rated by the same rules as a mark.

A pixel action's point is resolved in the page to the element it would hit
(see :mod:`cockpit.core.agent.pointer`). That element is rated exactly as if the
model had named its mark: ``Click (600, 475)`` on the "Place order" button
has the evidence and level of ``Click [N]`` on it. What is special to points:

* a click on text or layout (no mark holds it, no pointer cursor, an element that
  only shows text: p, span, div, td, img...) is read-only: it lands on text or
  background; on another unmarked element it is state-changing (unknown);
* a point inside a frame, embed or canvas Cockpit cannot see into (a
  cross-origin iframe) is state-changing, irreversible when it looks like a
  payment frame or the page has payment fields;
* a drag is state-changing (it moves something: a slider, a card, a file),
  more when its start element, or the element it is dropped on, says so;
* a right-click is rated as a click (pages may act on it), a double-click too;
* text typed at a point, or into the focused element (resolved in the page),
  is rated as Type on that field, with Enter when the text holds a newline
  (UI-TARS's way to submit); typing is never read-only;
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
#: Elements that only show text or lay it out: a click on one (unmarked, no pointer cursor) does nothing.
_INERT_TAGS = ("p", "h1", "h2", "h3", "h4", "h5", "h6", "span", "div", "li", "ul", "ol", "dl", "dt", "dd", "td",
               "th", "tr", "tbody", "thead", "table", "section", "article", "main", "header", "footer", "aside",
               "body", "html", "strong", "em", "b", "i", "small", "pre", "code", "blockquote", "figure",
               "figcaption", "img", "hr", "br", "picture", "caption", "mark", "abbr", "time", "address")
_PAYMENT_FRAME = ("card", "pay", "stripe", "braintree", "adyen", "checkout", "cvc", "cvv")


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
                   cursor: str = "", safety_checks: list[dict] | tuple = (), hit: dict | None = None,
                   end: tuple[Mark | None, dict] | None = None) -> Risk:
    """The risk of pixel `action`, whose point (or the focus, for Type; text) resolved to `mark` (None: nothing
    there). `hit`: act.js's answer for the point (opaque: a frame, embed or canvas Cockpit cannot see into).
    `end`: a drag's end element and its answer."""
    hit = hit or {}
    enter = action.kind == "type" and ("\n" in action.text or "\r" in action.text)
    if hit.get("opaque"):
        risk = _opaque(action, hit["opaque"], marks)
    elif action.kind == "type":
        risk = (classify(as_mark_action(action, mark), mark, marks, url, rules, enter_after_type=enter)
                if mark is not None else Risk(STATE_CHANGING, ("nothing on the page has the focus: the keys go to "
                                                               "the page itself (its shortcuts)",)))
        if mark is not None and risk.level == READ_ONLY:
            risk = Risk(STATE_CHANGING, ("typing changes the field, or sets off the page's shortcuts",)
                        + risk.evidence, risk.rule)
    elif action.kind in ("click", "double_click", "right_click") and not clickable(mark, cursor):
        risk = _not_a_control(mark)
    else:
        risk = classify(as_mark_action(action, mark), mark, marks, url, rules, enter_after_type=False)
    if action.kind == "drag":
        risk = _drag(risk, end, marks, url, rules)
    if safety_checks:
        said = tuple(f"the model's own safety check {c.get('code') or '?'}: {c.get('message') or ''}".strip()
                     for c in safety_checks)
        risk = Risk(IRREVERSIBLE, said + risk.evidence, risk.rule)
    return risk


def _not_a_control(mark: Mark | None) -> Risk:
    where = f"<{mark.tag}>" + (f' "{mark.label[:40]}"' if mark.label else "") if mark else "nothing"
    if mark is None or mark.tag in _INERT_TAGS:
        return Risk(READ_ONLY, (f"the point is on {where}, which is not a control: the click lands on text "
                                "or background",))
    return Risk(STATE_CHANGING, (f"the point is on {where}, which is not marked: what a click does there is "
                                 "unknown",))


def _opaque(action: Action, opaque: dict, marks: list[Mark]) -> Risk:
    """A point inside a frame, embed or canvas: Cockpit cannot see what is there."""
    src = opaque.get("src") or ""
    where = f"<{opaque.get('tag')}>" + (f" from {src[:100]}" if src else "")
    payment = any(w in src.lower() for w in _PAYMENT_FRAME) or any(m.form_payment for m in marks)
    if payment:
        return Risk(IRREVERSIBLE, (f"the point is inside {where}, whose content Cockpit cannot see, on a page "
                                   "with payment fields: it may pay",))
    level = READ_ONLY if action.kind == "hover" else STATE_CHANGING
    return Risk(level, (f"the point is inside {where}, whose content Cockpit cannot see",))


def _drag(risk: Risk, end, marks: list[Mark], url: str, rules) -> Risk:
    """A drag moves something (state-changing at least); where it is dropped counts as a click there."""
    if LEVELS.index(risk.level) < LEVELS.index(STATE_CHANGING):
        risk = Risk(STATE_CHANGING, ("a drag moves something on the page (a slider, an item, a file)",)
                    + risk.evidence, risk.rule)
    if end is None:
        return risk
    end_mark, end_hit = end
    if end_hit.get("opaque"):
        dropped = _opaque(Action("click"), end_hit["opaque"], marks)
    elif end_mark is None or not clickable(end_mark, str(end_hit.get("cursor") or "")):
        return risk
    else:
        dropped = classify(Action("click", end_mark.id), end_mark, marks, url, rules)
    if LEVELS.index(dropped.level) > LEVELS.index(risk.level):
        return Risk(dropped.level, tuple(f"the drag ends on it: {e}" for e in dropped.evidence) + risk.evidence,
                    dropped.rule)
    return risk


def shown_point(action: Action, mark: Mark | None, secrets=()) -> str:
    """The pixel action as recorded and displayed, with text typed into a secret field hidden."""
    if action.kind == "type" and mark is not None and mark.secret and action.text:
        return str(Action("type", text=SECRET, point=action.point, focused=action.focused))
    return scrub(str(action), secrets)
