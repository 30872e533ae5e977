"""Hand-made marks and a classify shorthand, shared by the risk tests."""
from cockpit.core.actions.grammar import parse_action
from cockpit.core.page.marks import Mark
from cockpit.core.safety.risk import Risk, classify

URL = "https://shop.example.com/checkout"


def mk(id=1, tag="button", **kw) -> Mark:
    if tag == "button":
        kw.setdefault("role", "button")
    if tag == "a":
        kw.setdefault("role", "link")
    return Mark(id=id, bbox=(0, 0, 10, 10), tag=tag, **kw)


def field(id=1, text="", **kw) -> Mark:
    kw.setdefault("type", "text")
    return mk(id, "input", role="textbox", text=text, editable=True, **kw)


def cls(action, mark=None, marks=None, url=URL, rules=()):
    if isinstance(action, str):
        action = parse_action(action)
    if marks is None:
        marks = [mark] if mark is not None else []
    return classify(action, mark, marks, url, rules)


def has(r: Risk, *parts):
    """Some evidence string contains every part."""
    return any(all(p in e for p in parts) for e in r.evidence)
