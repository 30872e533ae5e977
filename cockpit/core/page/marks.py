"""Set-of-Mark marks as data, and their text for the prompt.

A Mark is what the model is told about one numbered box. Marks never draw
themselves (see :mod:`cockpit.core.page.overlay`) and never touch the browser after
they are made (see :mod:`cockpit.core.browser.session` for collecting them).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields


@dataclass(frozen=True)
class Mark:
    id: int
    bbox: tuple[int, int, int, int]  # x, y, w, h in viewport (= screenshot) pixels
    tag: str
    role: str = ""
    type: str = ""
    text: str = ""
    aria_label: str = ""
    placeholder: str = ""
    href: str = ""
    value: str = ""
    secret: bool = False  # a password / card field: its value is never recorded
    filled: bool = False  # a secret field with a value in it (painted over in the screenshot; see masking)
    editable: bool = False
    scrollable: bool = False
    in_iframe: bool = False
    reason: str = ""  # why it was marked: native, role, pointer, listener, ...
    point: tuple[int, int] | None = field(default=None)  # a hit-tested point to act at
    form_method: str = ""  # "post", "get" or "dialog" of the element's form; "" outside a form
    submit: bool = False  # clicking it submits its form (submit button, input type=submit/image)
    form_action: str = ""  # the URL its form would be sent to (a submit button's formaction wins); "" outside a form
    form_password: bool = False  # its form has a password field
    form_payment: bool = False  # its form has a card/payment field (autocomplete cc-*, card number, CVC, IBAN...)
    confirm_text: str = ""  # the page's confirmation wording ("Are you sure ...?"), on buttons only; "" if none
    dom_path: str = ""  # where the element sits in its document (tag:nth-of-type steps), for approval binding
    icon: str = ""  # a destructive icon's word on a control ("trash" from class="fa-trash"); "" if none
    options: tuple[tuple[str, bool], ...] = ()  # a <select>'s first options: (text, selected)
    options_more: int = 0  # how many more options the <select> has

    @classmethod
    def from_dict(cls, d: dict) -> "Mark":
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in known}
        kw["bbox"] = tuple(int(v) for v in kw.get("bbox", (0, 0, 0, 0)))
        if kw.get("point") is not None:
            kw["point"] = tuple(int(v) for v in kw["point"])
        kw["options"] = tuple((str(t), bool(sel)) for t, sel in kw.get("options") or ())
        return cls(**kw)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["bbox"] = list(self.bbox)
        d["point"] = list(self.point) if self.point else None
        d["options"] = [list(o) for o in self.options]
        return d

    @property
    def center(self) -> tuple[int, int]:
        x, y, w, h = self.bbox
        return x + w // 2, y + h // 2

    @property
    def label(self) -> str:
        """The best short human description: text, aria-label, placeholder."""
        return self.text or self.aria_label or self.placeholder or self.value


def marks_from_json(items: list[dict]) -> list[Mark]:
    return [Mark.from_dict(d) for d in items]


def _q(s: str) -> str:
    return '"' + s.replace('"', "'") + '"'


_CHECKABLE = ("checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio")


def _options(mark: Mark) -> str:
    """A <select>'s options, so that ``Select [N]; option`` names one that exists."""
    shown = ", ".join(_q(t) + (" (selected)" if sel else "") for t, sel in mark.options)
    more = f", +{mark.options_more} more" if mark.options_more else ""
    return f"options: {shown}{more}"


def describe(mark: Mark) -> str:
    """One element in WebVoyager's shape: ``[N]: <tag> "text", "aria-label";``.

    An element with no text is named by its aria-label alone (icon-only buttons); a
    ``<select>`` lists its options; a checkbox, radio or switch (also a label standing
    for a hidden one) says whether it is checked.
    """
    text = mark.text or mark.placeholder or mark.value or mark.aria_label
    parts = [_q(text)]
    if mark.aria_label and mark.aria_label != text:
        parts.append(_q(mark.aria_label))
    if mark.value and mark.value != text and mark.tag != "select":
        parts.append(f"value {_q(mark.value)}")  # what is already typed in the field, or checked
    if mark.options:
        parts.append(_options(mark))
    kind = mark.tag
    if mark.tag == "input" and mark.type:
        kind = f"input type={mark.type}"
    elif mark.role in _CHECKABLE and mark.tag != "input":
        kind = f"{mark.tag} {mark.role}"
    elif mark.reason in ("pointer", "listener", "handler", "delegated") and mark.role == "":
        kind = f"{mark.tag} clickable"
    extra = " (scrollable)" if mark.scrollable and mark.reason == "scrollable" else ""
    return f"[{mark.id}]: <{kind}> {', '.join(parts)};{extra}"


def element_text(marks: list[Mark]) -> str:
    """The auxiliary element text sent with a screenshot, one element per line."""
    return "\n".join(describe(m) for m in marks)
