"""An approval bound to the exact action: what the human said yes to, checked just before it runs.

When the gate asks, it records a :class:`Binding`: the action with its
arguments, and the fingerprint of its target as the human saw it on the
screenshot (tag, names, box, what it does: a link's address or a form's method
and action, and the element's place in the DOM). Just before the executor acts,
it reads the same facts from the live element; any difference (a re-render
swapped "Save" for "Delete", a list re-sorted under the button, a dialog moved)
means the approved action is not run: the loop observes again and the gate asks
again. Pure: no browser here; the executor supplies the live facts.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from cockpit.core.actions.grammar import Action
from cockpit.core.page.marks import Mark

#: How far (CSS pixels) the target's box may shift before it counts as moved:
#: a font loading late moves text by a few pixels; a dialog sliding in moves it more.
BOX_TOLERANCE = 16


def _effect(mark: Mark) -> str:
    """What clicking the element does, in one line: where its link or its form goes."""
    if mark.href:
        return f"link {mark.href}"
    if mark.form_method:
        what = "submits" if mark.submit else "in"
        return f"{what} {mark.form_method.upper()} form to {mark.form_action or '?'}"
    return ""


@dataclass(frozen=True)
class Binding:
    """The identity of an approved action: its text and its target's fingerprint."""
    action: str  # the action with its arguments, as approved ("Type [3]; Ada", "Click [7]")
    target: int | None = None
    tag: str = ""
    text: str = ""
    aria_label: str = ""
    value: str = ""
    box: tuple[int, int, int, int] | None = None
    effect: str = ""  # see _effect
    dom_path: str = ""

    @classmethod
    def of(cls, action: Action, mark: Mark | None) -> "Binding":
        if mark is None:
            return cls(str(action), action.target)
        value = mark.value if not mark.editable else ""  # a field's value is what was typed, not its identity
        return cls(str(action), action.target, mark.tag, mark.text, mark.aria_label, value,
                   tuple(mark.bbox), _effect(mark), mark.dom_path)

    def differences(self, action: Action, now: Mark | None, *, box: tuple | None = None) -> list[str]:
        """What differs between the approved action and `action` on the element as it is `now`.

        `now` is the target's mark with its live facts; `box` its live box in the
        same pixels as the mark's (None: not known, e.g. inside a frame). Empty: the same.
        """
        out = []
        if str(action) != self.action:
            out.append(f"the action is {str(action)!r}, not the approved {self.action!r}")
        if now is None:
            return out
        cur = Binding.of(action, now)
        for name, label in (("tag", "element"), ("text", "text"), ("aria_label", "aria-label"),
                            ("value", "value"), ("effect", "effect"), ("dom_path", "place in the page")):
            was, is_ = getattr(self, name), getattr(cur, name)
            if name == "dom_path":  # where it sits among its neighbours: a list re-sorted under it, not a banner far above
                was, is_ = _near(was), _near(is_)
            if was != is_ and not (name == "text" and now.scrollable):
                out.append(f"its {label} was {_short(was)}, now {_short(is_)}")
        if box is not None and self.box is not None and not _covers(box, self.box):
            out.append(f"it moved: the box the approval saw was {list(self.box)}, the element is now at {list(box)}")
        return out

    def to_dict(self) -> dict:
        d = asdict(self)
        d["box"] = list(self.box) if self.box else None
        return d


#: How many steps of the DOM path (the element and its closest ancestors) identify its place:
#: a row moved in its table changes them; a notice inserted at the top of the page does not.
NEAR_STEPS = 4


def _near(path: str) -> str:
    return ">".join(path.split(">")[-NEAR_STEPS:]) if path else ""


def _covers(live, seen) -> bool:
    """The live box (the whole element) still covers the box seen on the screenshot (its visible part),
    within BOX_TOLERANCE: a clipped or partly scrolled-off element is still where it was."""
    lx, ly, lw, lh = (int(v) for v in live)
    sx, sy, sw, sh = (int(v) for v in seen)
    t = BOX_TOLERANCE
    return lx - t <= sx and ly - t <= sy and sx + sw <= lx + lw + t and sy + sh <= ly + lh + t


def _short(s: str, limit: int = 60) -> str:
    s = " ".join(str(s).split())
    return '"' + (s if len(s) <= limit else s[:limit - 1] + "\u2026") + '"' if s else "(none)"
