"""Is this the page a recorded step saw? Comparing marks and addresses across visits.

Replay (:mod:`cockpit.core.replay.branch`) checks each replayed page against the
recorded one and finds the recorded target among the current marks.
"""
from __future__ import annotations

import difflib
from collections import Counter
from urllib.parse import urlsplit, urlunsplit

from cockpit.core.page.marks import Mark

_LABEL_CHARS = 80


def mark_key(mark: Mark | dict) -> tuple[str, str]:
    """What identifies an element across visits: its tag (with an input's type) and its label.

    The label is the visible text, else the aria-label, else the placeholder,
    lower-cased with whitespace collapsed and cut at 80 characters. A field's
    value is left out: it is what someone typed, not what the page is.
    """
    m = Mark.from_dict(mark) if isinstance(mark, dict) else mark
    tag = f"{m.tag}:{m.type}" if m.tag == "input" and m.type else m.tag
    label = m.text or m.aria_label or m.placeholder
    return tag, " ".join(label.split()).lower()[:_LABEL_CHARS]


def similarity(marks_a, marks_b) -> float:
    """How alike two pages' marks are, in [0, 1]: multiset Jaccard over :func:`mark_key`.

    Each list becomes a multiset of (tag, label) keys; the result is the size
    of their intersection over the size of their union (counting repeats, so
    ten "Add to cart" buttons against two match 2/10). Positions are left out
    on purpose: a banner or a different scroll offset moves every box without
    making it another page. Two empty lists are alike (1.0); one empty list
    against a non-empty one is not (0.0). Marks may be Mark objects or the
    dicts of a step's marks.json.
    """
    a = Counter(mark_key(m) for m in marks_a or ())
    b = Counter(mark_key(m) for m in marks_b or ())
    union = sum((a | b).values())
    if union == 0:
        return 1.0
    return sum((a & b).values()) / union


def _like_labels(a: str, b: str) -> bool:
    """Two labels (mark_key's) alike enough for the same link: either empty (an icon), or SAME_LINK_LABEL alike."""
    return not a or not b or difflib.SequenceMatcher(None, a, b).ratio() >= SAME_LINK_LABEL


def same_url(a: str, b: str) -> bool:
    """Equal addresses, ignoring the fragment, the case of scheme and host, and an empty path."""
    return _norm_url(a) == _norm_url(b)


def _norm_url(url: str) -> str:
    try:
        p = urlsplit(url or "")
    except ValueError:
        return url or ""
    return urlunsplit((p.scheme.lower(), p.netloc.lower(), p.path or "/", p.query, ""))


#: How alike two labels must be (difflib's ratio) for a link with the same address to stand for the recorded one:
#: "Cart (2)" and "Cart (3)" are (0.88); "Call Alice about the report" and "Renew passport", both at
#: ``/note?i=0`` once a note was deleted, are not (walkthrough 5: replay clicked the other note).
SAME_LINK_LABEL = 0.6


def does_the_same(recorded: Mark, now: Mark) -> bool:
    """Whether `now` submits what `recorded` submitted: the same form (method and address), where the recorded
    element was in one. Two "Delete" buttons posting to /delete/102 and /delete/103 are different elements for
    all their equal labels (walkthrough 8: replay deleted Invoice 103 where the run had deleted 102). A link
    with another address is left to the next page's check (a tracking parameter changes with every visit)."""
    return not recorded.form_action or (same_url(recorded.form_action, now.form_action or "") and
                                        (recorded.form_method or "").lower() == (now.form_method or "").lower())


def match_mark(recorded: Mark, marks: list[Mark]) -> Mark | None:
    """The current mark standing for `recorded`: same tag and label, submitting what it submitted
    (:func:`does_the_same`), the one with its link address first (else same tag and link address with a like
    label, :data:`SAME_LINK_LABEL`), nearest to the recorded box; None when there is none."""
    key = mark_key(recorded)
    found = [m for m in marks if mark_key(m) == key and does_the_same(recorded, m)]
    found = [m for m in found if recorded.href and same_url(recorded.href, m.href or "")] or found
    if not found and recorded.href:
        found = [m for m in marks if m.tag == recorded.tag and m.href == recorded.href
                 and _like_labels(key[1], mark_key(m)[1])]
    if not found:
        return None
    rx, ry = recorded.center

    def distance(m: Mark):
        x, y = m.center
        return (x - rx) ** 2 + (y - ry) ** 2, m.id != recorded.id
    return min(found, key=distance)
