"""How risky is the next action? A rough level with reasons, for the human.

Before the executor runs an action, the cockpit can ask :func:`classify` how
much it could change in the world: ``read-only`` (looking around),
``state-changing`` (typing, ticking, adding to a cart, signing in: things
that can be undone) or ``irreversible`` (paying, ordering, deleting, sending,
subscribing). The approval panel shows the level and the evidence strings, so
every reason is written for a person to read.

What this module must not do:

* It never executes, clicks or loads anything; it only reads an Action, the
  marks of the last observation and the page URL.
* It never trusts model text. Typed content, answers and the model's thoughts
  play no part. Page text counts where it is the target's own name (its text,
  aria-label, value or link path), a fact about a form (its method, where it
  is sent, a password or card field), or the page's confirmation wording
  ("Are you sure", "cannot be undone", from som.js's ``confirm_text``). Other
  text on the page ("click Delete to continue") never makes a click irreversible.

It judges what the action does (issue #17); words are one signal among several.
Per-site rules (:class:`SiteRule`, kept in ``risk_rules.json``) let the user correct it.

Decisions worth knowing:

* The level is the highest level any piece of evidence supports; then the
  **last** matching site rule, if any, replaces it (up or down). Later rules
  are meant to refine earlier, broader ones, like CSS.
* Following a link is a GET: it opens a page. Risky words in its name or path
  ("Delete", ``/unsubscribe``) make it state-changing, never irreversible: an
  admin's "Delete" link opens a confirmation page, whose POST button is judged
  when the agent gets there.
* A GET form's submit button (search, filter, "Go") is read-only, or
  state-changing when its name says so ("Save", "Submit"); never irreversible.
* A POST form's submit button is state-changing ("submits a POST form"). It is
  irreversible when its evidence says so: its own name (delete, send, post,
  publish, pay, place order, confirm, "Yes, I'm sure"), the path the form is
  sent to (``/delete``, ``/pay``), a card or payment field in its form (or on
  the page), or a confirmation page whose button does not back out ("Cancel").
  A password field is supporting evidence only: otherwise every log-in would
  need the strongest approval, and people would learn to click through it.
  Two things make such a button state-changing after all: "Register" or "Sign up"
  in a form with a password field (it creates a log-in, which can be closed), and
  a confirmation page for something the site undoes with the opposite verb
  ("Yes, unpublish it", "Archive"), unless a final word is there too ("delete").
* A control run by the page's script (no form, no link: a button with a
  handler, a dialog's button) is judged by its words, and on a confirmation
  page an affirmative one ("Yes", "OK", "Continue") is irreversible.
* Ticking a checkbox, radio or switch is state-changing whatever its label
  says ("I agree", "Delete my data"): it can be unticked; what counts is the
  button that submits it.
* Typing is state-changing. The executor presses Enter after typing, and
  Enter in a single-line field of a POST form submits that form. Cockpit
  cannot tell which form a submit button belongs to, so it approximates:
  typing into a POST-form field (or Press [Enter], whose focus is unknown) is
  irreversible when *any* POST submit button on the page is named
  irreversibly, or when the page has a card field and a POST submit button.
* Select is state-changing: choosing an option changes a form and some pages
  act on change (a cart's quantity).
* Goto is read-only unless the URL path looks like an action (``/delete``,
  ``/unsubscribe``, ``/checkout/confirm``, ``/pay``): then state-changing.
* A link whose address is JavaScript code (``javascript:doIt()``, anything
  but a no-op like ``javascript:void(0)``) is irreversible: it opens no page,
  it runs code Cockpit cannot judge, so the human decides
  (:mod:`cockpit.core.safety.navguard` refuses other non-web addresses outright).

Hostile pages: words are matched in every reading of a name that
:mod:`cockpit.core.safety.disguise` gives ("D\u0435lete", "D E L E T E" read as
Delete). Reassurances ("this button is safe") never lower a level.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# The parts live in risk_words (levels, word lists), risk_marks (facts about
# marks) and risk_rules (site rules); the public names are kept importable from here.
from cockpit.core.actions.grammar import Action
from cockpit.core.page.marks import Mark
from cockpit.core.safety import navguard
from cockpit.core.safety.risk_marks import (
    _field_kind,
    _is_text_field,
    _is_toggle,
    _own_names,
    _PageFacts,
    _q,
    _word_evidence,
)
from cockpit.core.safety.rules import SiteRule, default_rules_path, load_rules, save_rules
from cockpit.core.safety.words import (
    _ACCOUNT,
    _AFFIRMATIVE,
    _IRREVERSIBLE,
    _NEGATIVE,
    _PATH_IRREVERSIBLE,
    _PATH_STATE_CHANGING,
    _PUBLISH,
    _UNDOABLE,
    IRREVERSIBLE,
    IRREVERSIBLE_WORDS,
    LEVELS,
    READ_ONLY,
    STATE_CHANGING,
    STATE_CHANGING_WORDS,
    _match,
    _match_path,
    _matches,
    _path,
)

# Keys that only move focus, scroll or close a menu.
NAVIGATION_KEYS = frozenset({"tab", "up", "down", "left", "right", "arrowup", "arrowdown",
                             "arrowleft", "arrowright", "pageup", "pagedown", "home", "end",
                             "escape", "esc"})


# ---------- results ----------
@dataclass(frozen=True)
class Risk:
    level: str
    evidence: tuple[str, ...]  # reasons for a person, strongest first
    rule: str | None = None  # the site rule that set the level, if one did

    def __post_init__(self):
        _check_level(self.level)

    def at_least(self, level: str) -> bool:
        return LEVELS.index(self.level) >= LEVELS.index(_check_level(level))

    def __str__(self) -> str:
        return f"{self.level}: " + "; ".join(self.evidence)


def _check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"unknown risk level {level!r}; use one of {', '.join(LEVELS)}")
    return level


class _Findings:
    """Evidence collected while classifying: (level or None, text) pairs."""

    def __init__(self):
        self.items: list[tuple[str | None, str]] = []

    def add(self, level: str | None, text: str) -> None:
        if all(t != text for _, t in self.items):
            self.items.append((level, text))

    @property
    def level(self) -> str:
        found = [LEVELS.index(lv) for lv, _ in self.items if lv]
        return LEVELS[max(found)] if found else READ_ONLY

    def evidence(self) -> tuple[str, ...]:
        rank = {lv: i for i, lv in enumerate(LEVELS)}
        # Strongest first; supporting facts (no level) last; otherwise in order found.
        order = sorted(range(len(self.items)),
                       key=lambda i: (-rank.get(self.items[i][0], -1), i))
        return tuple(self.items[i][1] for i in order)


# ---------- per action kind ----------
def _form_of(mark: Mark | None) -> str | None:
    """The DOM path of the <form> around `mark` ('html:1>...>form:2'), or None when it is not known (no
    form ancestor in a whole path: a form= attribute, or a path cut short on a deep page)."""
    path = mark.dom_path if mark is not None else ""
    if not path.startswith("html:") or ">form:" not in path:
        return None
    head, _, tail = path.rpartition(">form:")
    return f"{head}>form:{tail.split('>', 1)[0]}"


def _enter_may_submit(f: _Findings, facts: _PageFacts, why: str, field: Mark | None = None) -> None:
    """Evidence for an Enter. In a field whose form is known, only that form's buttons count (a login
    form beside a Register form); otherwise which form it submits is unknown, and the worst is assumed."""
    own = _form_of(field)
    risky = [(b, hit) for b, hit in facts.irreversible_submits if own is None or _form_of(b) in (own, None)]
    if own is not None and len(risky) < len(facts.irreversible_submits):
        f.add(None, "the POST submit buttons of the page's other forms do not count: Enter submits this "
                    "field's own form")
    if risky:
        button, hit = risky[0]
        f.add(IRREVERSIBLE, f"{why} may submit a POST form, and the page has a POST submit button "
                            f"{_q(button.label)} (matches {_q(hit)})"
                            + ("; it is in this field's form" if own is not None and _form_of(button) == own
                               else "; Cockpit cannot tell which form it belongs to, so it assumes the worst"))
    elif facts.post_submits and facts.has_card:
        f.add(IRREVERSIBLE, f"{why} may submit a POST form on a page with a card field (a payment is likely)")
    elif facts.post_submits:
        f.add(None, "the page has a POST form")


_READ_ONLY_KINDS = {
    "scroll": "scrolling only moves the view",
    "wait": "waiting does nothing to the page",
    "back": "going back only returns to the previous page",
    "google": "opening the search start page only reads it",
    "hover": "hovering only moves the mouse",
    "answer": "answering ends the run without touching the site",
}


def _classify_click(f: _Findings, mark: Mark, facts: _PageFacts) -> None:
    """A click is judged by what it does: follow a link, send a form, or run the page's script."""
    if _is_toggle(mark):
        f.add(STATE_CHANGING, f"clicking a {mark.type or mark.role} changes a setting; it can be undone")
        for _, ev in _word_evidence(mark):  # shown, but a toggle does nothing final by itself
            f.add(None, ev + ", but ticking it is not final: its form's submit button is")
        return
    if _is_text_field(mark) or mark.tag == "select":
        f.add(READ_ONLY, "clicking a field only focuses or opens it")
        return
    words = _word_evidence(mark)
    if mark.icon and not any(level == IRREVERSIBLE for level, _ in words):
        words.append((IRREVERSIBLE, f"the target shows a {_q(mark.icon)} icon (its class or image)"))
    if mark.submit and mark.form_method in ("get", "post", ""):
        _classify_submit(f, mark, facts, words)
    elif mark.href and navguard.scheme_of(mark.href) != "javascript":
        _classify_link(f, mark, words)
    else:  # a control run by the page's script (or a dialog's button): its words and the page decide
        for level, ev in words:
            f.add(level, ev)
        if mark.submit:
            f.add(STATE_CHANGING, "closes a dialog and tells the page which button was chosen")
        _confirm_context(f, mark, facts, sends_form=False)
    if all(level is None for level, _ in f.items):
        if not _own_names(mark) and not mark.href:
            f.add(STATE_CHANGING, "the target has no text, label or value, so what it does is unknown")
        elif mark.href or mark.role in ("link", "tab"):
            f.add(READ_ONLY, f"a {mark.role or 'link'} with no risky words")
        else:
            f.add(READ_ONLY, f"no risky words on the target {_q(mark.label)}")


def _classify_link(f: _Findings, mark: Mark, words) -> None:
    """Following a link is a GET: it opens a page. Risky words make it state-changing, never more."""
    for level, ev in words:
        if level == IRREVERSIBLE:
            f.add(STATE_CHANGING, ev + "; but following a link only asks for a page (a GET), which is not "
                                       "final by itself: a confirmation page usually comes next, and the gate "
                                       "judges its button")
        else:
            f.add(level, ev)
    if not any(level for level, _ in f.items):
        f.add(READ_ONLY, f"following the link {_q(_path(mark.href) or mark.href, 80)} only opens a page (a GET)")


def _classify_submit(f: _Findings, mark: Mark, facts: _PageFacts, words) -> None:
    """A submit button: a GET form asks for a page; a POST form sends data, final when its evidence says so."""
    where = _path(mark.form_action) if mark.form_action else ""
    to = f" to {_q(where, 80)}" if where else ""
    path_hit = _match_path(_PATH_IRREVERSIBLE, where) if where else None
    if (mark.form_method or "get") == "get":
        for level, ev in words:
            f.add(STATE_CHANGING if level == IRREVERSIBLE else level,
                  ev + ("; but the form is sent with GET, which only asks for a page" if level == IRREVERSIBLE
                        else ""))
        if path_hit:
            f.add(STATE_CHANGING, f"the GET form goes to {_q(where, 80)}, which matches {_q(path_hit)}")
        get = f"submit button of a GET form{to} (like a search or a filter): it only asks for a page"
        f.add(None if any(level for level, _ in f.items) else READ_ONLY, get)
        return
    f.add(STATE_CHANGING, f"submit button of a POST form{to} (it sends data to the site)")
    account, undo = _makes_login(mark), _undoable(mark, [s for _, s in _own_names(mark)])
    for level, ev in words:  # "Delete", "Send", "Post", "Publish", "Place order", "Yes, I'm sure"...
        if account and level == IRREVERSIBLE and ev.startswith("target "):
            f.add(STATE_CHANGING, ev + "; but its form has a password field: it creates a log-in, "
                                       "which can be closed again")
        elif undo and level == IRREVERSIBLE and ev.startswith("target ") and ev.endswith('"confirm"'):
            f.add(STATE_CHANGING, ev + f"; but what it confirms ({_q(undo)}) the site can undo")
        else:
            f.add(level, ev)
    published = next((h for _, s in _own_names(mark) if (h := _match(_PUBLISH, s))), None)
    if published:
        f.add(IRREVERSIBLE, f"the target says {_q(published)} and sends its POST form: the text written "
                            "there goes to other people")
    if path_hit:
        f.add(IRREVERSIBLE, f"the POST form is sent to {_q(where, 80)}, which matches {_q(path_hit)}")
    if mark.form_payment:
        f.add(IRREVERSIBLE, "the POST form has a card or payment field (a payment is likely)")
    elif facts.has_card:
        f.add(IRREVERSIBLE, "submit button of a POST form on a page with a card field (a payment is likely)")
    if mark.form_password:
        f.add(None, "the form has a password field (signing in changes state; it is not final)")
    _confirm_context(f, mark, facts, sends_form=True)


def _makes_login(mark: Mark) -> str | None:
    """The word ("Register", "Sign up") when the target's only irreversible words name making an
    account and its form has a password field: that creates a log-in, not a final commitment."""
    if not mark.form_password:
        return None
    hits = sorted(h for _, s in _own_names(mark) for h in _matches(_IRREVERSIBLE, s))
    return hits[0] if hits and all(_match(_ACCOUNT, h) for h in hits) else None


def _undoable(mark: Mark, names: list[str]) -> str | None:
    """The verb ("unpublish", "archive") when what the target confirms can be undone on the same site
    and nothing in its names is final ("Yes, delete it" is; "Yes, unpublish it" is not)."""
    if any(_matches(_IRREVERSIBLE, s) - {"confirm"} for s in names):
        return None
    hit = next((h for s in names if (h := _match(_UNDOABLE, s))), None)
    if hit is None and mark.form_action and mark.submit:
        hit = _match_path(_UNDOABLE, _path(mark.form_action))
    return hit


def _confirm_context(f: _Findings, mark: Mark, facts: _PageFacts, sends_form: bool) -> None:
    """A confirmation page ("Are you sure?"): the button that goes ahead is the final step."""
    confirm = mark.confirm_text or facts.confirm_text
    if not confirm:
        return
    names = [s for _, s in _own_names(mark)]
    no = next((h for s in names if (h := _match(_NEGATIVE, s))), None)
    if no:
        f.add(None, f"the page asks {_q(confirm, 100)}, but the target says {_q(no)}: it backs out")
        return
    yes = next((h for s in names if (h := _match(_AFFIRMATIVE, s) or _match(_IRREVERSIBLE, s))), None)
    undo = _undoable(mark, names) if (sends_form or yes) else None
    if undo:
        f.add(STATE_CHANGING, f"the page asks {_q(confirm, 100)}, but what it confirms ({_q(undo)}) the "
                              "site can undo: it is a state change, not a final one")
    elif sends_form:
        f.add(IRREVERSIBLE, f"the page asks {_q(confirm, 100)}, and this button sends its POST form: "
                            "it is the confirmation step")
    elif yes:
        f.add(IRREVERSIBLE, f"the page asks {_q(confirm, 100)}, and the target says {_q(yes)}: "
                            "it is the confirmation step")
    else:
        f.add(None, f"the page asks {_q(confirm, 100)}")


def _classify_type(f: _Findings, mark: Mark, facts: _PageFacts, enter: bool = True) -> None:
    kind = _field_kind(mark)
    f.add(STATE_CHANGING, f"typing changes the {kind + ' ' if kind else ''}field "
                          f"{_q(mark.label) if mark.label else f'[{mark.id}]'}")
    # The executor presses Enter after typing. In a single-line field of a form
    # that submits the form; in a textarea or an editor it is a new line.
    if mark.tag != "input":
        return
    if not enter:
        if mark.form_method == "post":
            f.add(None, "Cockpit will type without pressing Enter, so the POST form is not submitted")
        return
    if mark.form_method == "post":
        f.add(STATE_CHANGING, "pressing Enter in this field may submit a POST form "
                              "(Cockpit presses Enter after typing)")
        _enter_may_submit(f, facts, "pressing Enter here", mark)
    elif mark.form_method == "get":
        f.add(None, "pressing Enter in this field may submit a GET form (like a search)")


def _classify_press(f: _Findings, keys: str, facts: _PageFacts) -> None:
    parts = [p.strip().lower() for p in re.split(r"\s*\+\s*", keys.strip()) if p.strip()] or [keys]
    key = parts[-1]
    if key in ("enter", "return"):
        f.add(STATE_CHANGING, "Enter activates whatever has focus, and Cockpit does not know what that is")
        _enter_may_submit(f, facts, "Enter")
    elif key in NAVIGATION_KEYS and len(parts) <= 2:
        f.add(READ_ONLY, f"{keys} only moves focus, scrolls or closes a menu")
    elif key in ("space", " "):
        f.add(STATE_CHANGING, "Space activates the focused control, and Cockpit does not know what that is")
    else:
        f.add(STATE_CHANGING, f"{keys} may edit the focused field or trigger a keyboard shortcut")


def _classify_goto(f: _Findings, url: str) -> None:
    path = _path(url)
    hit = _match_path(_PATH_IRREVERSIBLE, path) or _match_path(_PATH_STATE_CHANGING, path)
    if hit:
        f.add(STATE_CHANGING, f"the URL path {_q(path, 80)} matches {_q(hit)}: opening it may do something")
    else:
        f.add(READ_ONLY, "opening a URL only reads it")


def _apply_rules(f: _Findings, action: Action, mark: Mark | None, url: str,
                 rules) -> tuple[str, SiteRule | None, str | None]:
    """(level, the rule that set it, evidence about that rule): the last match wins."""
    level, chosen = f.level, None
    for i, rule in enumerate(rules):
        try:
            rule.check()
            hit = rule.matches(action, mark, url)
        except ValueError as e:
            f.add(None, f"site rule {i + 1} for {rule.domain or '?'} is invalid and was ignored: {e}")
            continue
        if hit:
            chosen = rule  # the last matching rule wins
    if chosen is None:
        return level, None, None
    was = "" if chosen.level == level else f", instead of {level}"
    note = chosen.note or "no note"
    return chosen.level, chosen, f"site rule for {chosen.domain}: {note} (sets {chosen.level}{was})"


def rule_raised(risk: Risk) -> str | None:
    """The evidence of a site rule that made `risk` irreversible from a lower level (what made the gate ask),
    else None."""
    if not risk.rule or risk.level != IRREVERSIBLE:
        return None
    return next((e for e in risk.evidence if e.startswith("site rule for ") and ", instead of " in e), None)


# ---------- entry points ----------
def classify(action: Action, mark: Mark | None, marks: list[Mark], url: str,
             rules=(), *, enter_after_type: bool = True) -> Risk:
    """The risk of running `action` on the page whose marks and URL are given.

    `mark` is the action's target (None when it has none or it is not on the
    page). `enter_after_type=False` classifies a Type that will not press
    Enter afterwards. Pure: reads its arguments only.
    """
    f = _Findings()
    facts = _PageFacts.of(list(marks or ()))
    kind = action.kind
    if kind in _READ_ONLY_KINDS:
        f.add(READ_ONLY, _READ_ONLY_KINDS[kind])
    elif kind == "goto":
        _classify_goto(f, action.text)
    elif kind == "press":
        _classify_press(f, action.text, facts)
    elif mark is None:
        f.add(STATE_CHANGING, f"element [{action.target}] is not on this page, so what it is is unknown")
    elif kind == "click":
        _classify_click(f, mark, facts)
    elif kind == "type":
        _classify_type(f, mark, facts, enter_after_type)
    elif kind == "select":
        name = f" {_q(mark.label)}" if mark.label else ""
        f.add(STATE_CHANGING, f"choosing an option changes the field{name}; some pages act on the change")
    if f.level != READ_ONLY and kind in ("click", "type", "press", "select"):
        support = facts.sensitive_field_evidence()
        if support:
            f.add(None, support)
    level, rule, why = _apply_rules(f, action, mark, url, rules or ())
    evidence = ((why,) if why else ()) + f.evidence()  # what decided the level comes first
    return Risk(level, evidence, rule.describe() if rule else None)


__all__ = ["LEVELS", "Risk", "SiteRule", "classify", "rule_raised", "load_rules", "save_rules",
           "default_rules_path", "IRREVERSIBLE_WORDS", "STATE_CHANGING_WORDS"]

