"""Execute an Action in a BrowserSession, by mark id.

Each action returns an :class:`ActionOutcome` saying what happened, or raises
:class:`ActionError` with a message fit to show the model. Pointer actions go
to the mark's hit-tested point through W3C input actions, so the page gets the
same events a person's click would give (including listener-only elements,
shadow DOM and iframes).

Hostile pages (see tests/faults/test_hostile.py):

* Navigation is checked against the run's :class:`~cockpit.core.safety.navguard.NavPolicy`
  before an action (Goto, a link's address, the search page: refused with an
  error) and after it (a page that went somewhere forbidden is left again, and
  the outcome says so).
* A click goes only to the element the model named: right before it, the point
  is hit-tested (something on top, visible or invisible, makes it an error),
  and during it a capture-phase guard in the page stops any press or click
  that lands on another element (an overlay slipped in on pointer-over).
* A target that changed since the screenshot so that the action would now be
  riskier ("Next" became "Delete account", a link now leads elsewhere) is not
  clicked: the model must look again, and the approval gate sees the new risk.
* An approved action runs only on the element that was approved: with the
  approval's :class:`~cockpit.core.safety.binding.Binding`, any difference in
  the action or its target (names, box, link or form target, place in the DOM)
  raises :class:`TargetChanged` and nothing is done; the loop looks again and
  the gate asks again.
"""
from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.keys import Keys

from cockpit.core import resources
from cockpit.core.actions.coords import PERSON, Voice
from cockpit.core.actions.grammar import Action
from cockpit.core.agent import downloads, keys, landing
from cockpit.core.agent.pointer import PointerActs, TargetChanged, describe_hit, say
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import ActionError, BrowserDied, short_message
from cockpit.core.page.marks import Mark
from cockpit.core.safety import navguard
from cockpit.core.safety.binding import Binding
from cockpit.core.safety.redaction import scrub
from cockpit.core.safety.risk import LEVELS, classify

log = logging.getLogger(__name__)

@dataclass
class ActionOutcome:
    action: Action
    url_before: str
    url_after: str
    message: str  # what happened, in words for the model and the log (points in viewport CSS pixels)
    answer: str | None = None
    for_model: str = ""  # the message as a pixel model reads it (points in its own space); "" = the same
    pdf_text: str = ""
    downloads: list[Path] = field(default_factory=list)
    new_tab_url: str | None = None
    settle: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def url_changed(self) -> bool:
        return self.url_before != self.url_after


class Executor:
    """Runs actions against one session with the marks of its last observation."""

    def __init__(self, session: BrowserSession, *, wait_seconds: float = 5.0,
                 dialog_policy: str = "dismiss"):
        self.session = session
        self.dialog_policy = dialog_policy
        self.wait_seconds = wait_seconds
        self.secrets: set[str] = set()  # text typed into secret fields this session
        self._press_enter = True
        self.nav = navguard.NavPolicy()  # where actions may lead; the agent sets the run's policy
        self.risk_rules: list = []  # the run's site rules, to re-rate a target that changed
        self._marks: list[Mark] = []
        self._url = ""
        self.approved: Binding | None = None  # what the human approved of the action running now
        self.voice: Voice = PERSON  # how the model is told of points: its own space (set per action)
        self.pointer = PointerActs(self)  # the handlers of actions at a point, and what is under a point
        self._handlers = {"click": self._do_click, "hover": self._do_hover, "type": self._do_type,  # on a mark
                          "select": self._do_select, "scroll": self._do_scroll, "wait": self._do_wait,
                          "back": self._do_back, "google": self._do_google, "goto": self._do_goto,
                          "press": self._do_press, "answer": self._do_answer}

    def error(self, cls: type[ActionError], words) -> ActionError:
        """An error naming points: in the person's words, and in the model's (``for_model``, in its voice)."""
        person, model = say(words, self.voice)
        return cls(person, for_model=model)

    def redact(self, text: str) -> str:
        """`text` with every secret typed so far (and its URL-encoded forms) replaced by (secret)."""
        return scrub(text, self.secrets)

    def run(self, action: Action, marks: list[Mark], *, press_enter: bool = True,
            approved: Binding | None = None, seen: Mark | None = None, voice: Voice = PERSON,
            document: landing.Document | None = None) -> ActionOutcome:
        """Execute `action`; `press_enter=False` makes Type leave out its closing Enter.

        `approved`: what the human approved; the action runs only if it is still that (else TargetChanged).
        `seen`: a pixel action's element as rated (resolved under its point, or the focus); its point must
        still hit it, unchanged. None: resolved now. `voice`: how the outcome and errors name points to the
        model (``for_model``; the person's words name viewport CSS pixels). `document`: the page's document as
        the marks were taken (``Observation.document``), to tell a new page the site answered with an HTTP
        error (:mod:`landing`); None: not told.
        """
        s = self.session
        self._press_enter = press_enter
        self.approved = approved
        self.voice = voice
        if approved is not None and (diffs := approved.differences(action, None)):
            raise self.error(TargetChanged, lambda v: f"{v.action(action)} is not the approved action "
                                                       f"({'; '.join(diffs)}); it was not done")
        t0 = time.perf_counter()
        before = s.url
        if action.pixel and seen is not None:
            mark = seen
        elif action.point is not None:
            mark = self.pointer.resolve_point(*action.point, marks)
        elif action.focused:
            mark = self.pointer.resolve_focus(marks)
        else:
            mark = self._mark(action, marks) if action.needs_target or (
                action.kind == "scroll" and action.target is not None) else None
        if mark is not None and mark.secret and action.kind == "type" and action.text:
            self.secrets.add(action.text)  # before acting, so no error message can leak it
        self._marks, self._url = list(marks), before
        words, answer = self._handled(action, mark, before)
        message, for_model = say(words, voice)
        outcome = ActionOutcome(action, before, before, message, answer=answer, for_model=for_model)
        if action.kind != "answer":
            outcome.settle = s.settle()
            self._handle_dialog(outcome)
            downloads.collect(s, outcome, mark)
            outcome.url_after = s.url
            left = self._nav_after(outcome)
            # as recorded and shown from here on: a GET form puts a typed password into the address
            outcome.url_before, outcome.url_after = self.redact(outcome.url_before), self.redact(outcome.url_after)
            if outcome.url_changed and action.kind not in ("goto", "google", "back"):
                outcome.message += f"; the page is now {outcome.url_after}"
                outcome.for_model += f"; the page is now {outcome.url_after}" if outcome.for_model else ""
            if said := landing.warning(s, document, outcome.settle, left=left):  # a new page, an HTTP error (#38)
                outcome.message, outcome.for_model = f"{outcome.message}; {said}", outcome.for_model and f"{outcome.for_model}; {said}"
            outcome.message, outcome.for_model = self.redact(outcome.message), self.redact(outcome.for_model)
        outcome.seconds = time.perf_counter() - t0
        return outcome

    # ---------- helpers ----------
    def _handled(self, action: Action, mark: Mark | None, before: str):
        """The action's handler run (after the navigation check): (what happened, in words of a voice; the
        answer). Its errors come out as ActionError with every secret typed so far hidden."""
        handler = (self.pointer.handlers if action.pixel else self._handlers)[action.kind]
        try:
            self._nav_before(action, mark, before)
            return handler(action, mark)
        except BrowserDied:
            raise
        except ActionError as e:
            raise type(e)(self.redact(str(e)), for_model=self.redact(e.for_model)) from e
        except TimeoutException as e:
            raise self._redacted(lambda v: f"{v.action(action)} timed out: the page did not respond in time") from e
        except WebDriverException as e:
            if self.session.open_dialog() is None:
                why = short_message(e, 200)
                raise self._redacted(lambda v: f"{v.action(action)} could not be executed: {why}") from e
            return (lambda v: f"{v.action(action)} opened a dialog"), None

    def _redacted(self, words) -> ActionError:
        """An ActionError naming the action, with every secret typed so far hidden, in both voices."""
        e = self.error(ActionError, words)
        return ActionError(self.redact(str(e)), for_model=self.redact(e.for_model))

    def _mark(self, action: Action, marks: list[Mark]) -> Mark:
        n = action.target
        if n is None or not 1 <= n <= len(marks):
            valid = f"1 to {len(marks)}" if marks else "none: no element is marked on this page"
            raise ActionError(f"there is no element [{n}] on this screenshot (valid numbers: {valid})")
        return marks[n - 1]

    def act_js(self, op: str, mark: Mark | None, arg=None) -> dict:
        res = self.session.js("return (" + resources.script("act.js") + ")(arguments[0], arguments[1], arguments[2])",
                              op, mark.id if mark else 0, arg)
        if not res.get("ok") and res.get("why") == "gone":
            err = TargetChanged if self.approved is not None else ActionError
            raise err(f"element [{mark.id}] is no longer on the page; look at the new screenshot")
        return res

    def _point(self, mark: Mark, action: Action | None = None) -> tuple[int, int]:
        """The point to act at, after checking the element is what the page shows there;
        with `action`, also that the element did not change into something riskier."""
        pt = mark.point or mark.center
        res = self.act_js("check", mark, list(pt))
        if not res.get("ok"):
            by = res.get("by", "another element")
            if res.get("invisible"):
                raise ActionError(f"element [{mark.id}] is covered by an invisible {by}, which would catch the "
                                  "click instead; Cockpit does not click through invisible elements. Use another "
                                  "element, Press [Escape], or GoBack")
            raise ActionError(f"element [{mark.id}] is covered by {by} "
                              f"and cannot be reached; close what covers it first")
        if action is not None and res.get("now"):
            self.check_unchanged(action, mark, res["now"])
        return pt

    def check_unchanged(self, action: Action, mark: Mark, now: dict) -> None:
        fields_now = {k: now[k] for k in ("text", "aria_label", "href", "value", "form_method", "submit",
                                          "form_action", "dom_path")
                      if k in now and not (k == "text" and mark.scrollable)}
        cur = dataclasses.replace(mark, **fields_now)
        if self.approved is not None:
            box = now.get("box") if not mark.in_iframe else None
            if diffs := self.approved.differences(action, cur, box=box):
                raise self.error(TargetChanged, lambda v: f"element [{mark.id}] is not what was approved "
                                  f"({'; '.join(diffs)}): {v.action(action)} was not done. Look at the new "
                                  "screenshot; the supervisor will be asked again")
            return
        if cur == mark:
            return
        if cur.href and cur.href != mark.href and navguard.scheme_of(cur.href) != "javascript" \
                and (problem := self.nav.target_problem(cur.href)):
            raise ActionError(f"element [{mark.id}] now links to {cur.href[:120]}, not where it did on the "
                              f"screenshot: {problem}; it was not clicked")
        marks = [cur if m.id == mark.id else m for m in self._marks]
        was = classify(action, mark, self._marks, self._url, self.risk_rules)
        new = classify(action, cur, marks, self._url, self.risk_rules)
        if LEVELS.index(new.level) > LEVELS.index(was.level):
            why = new.evidence[0] if new.evidence else new.level
            raise self.error(ActionError, lambda v: f"element [{mark.id}] changed since the screenshot (it was "
                              f"{describe_hit(mark)}, it is now {describe_hit(cur)}): {v.action(action)} would now be {new.level} "
                              f"({why}), so it was not done. Look at the new screenshot")

    def _click(self, mark: Mark, x: int, y: int) -> None:
        """Click at (x, y); a press or click landing on anything but `mark`'s element is stopped."""
        self.act_js("guard", mark)
        try:
            self._pointer(x, y, click=True)
        finally:
            blocked = self.unguard()
        if blocked:
            raise ActionError(f"the click on [{mark.id}] was stopped: when the pointer got there, {blocked} had "
                              f"appeared on top of [{mark.id}] and would have taken the click; nothing was "
                              "clicked. Look at the new screenshot")

    def unguard(self) -> str:
        try:
            return str(self.act_js("unguard", None).get("blocked") or "")
        except WebDriverException:  # a dialog is open, or the page navigated away: nothing to undo
            return ""

    # ---------- navigation policy (cockpit.core.safety.navguard) ----------
    def _nav_before(self, action: Action, mark: Mark | None, url_now: str) -> None:
        if action.kind == "answer":
            return
        if problem := self.nav.landing_problem(url_now):
            where = self._leave(url_now, "")
            raise self.error(ActionError, lambda v: f"the page had gone on its own to {url_now[:200]} ({problem}); "
                              f"Cockpit went back to {where}, and did not run {v.action(action)}. Look at the new "
                              "screenshot")
        target = None
        if action.kind == "goto":
            target = navguard.normalize_url(action.text)
        elif action.kind == "google":
            target = self.session.config.search_url
        elif action.kind == "click" and mark is not None and mark.href \
                and navguard.scheme_of(mark.href) != "javascript":
            target = mark.href
        problem = self.nav.target_problem(target) if target else None
        if problem and action.kind == "click":
            raise ActionError(f"element [{mark.id}] is a link to {target[:120]}: {problem}; it was not clicked")
        if problem:
            raise self.error(ActionError, lambda v: f"{v.action(action)} was refused: {problem}")

    def _nav_after(self, outcome: ActionOutcome) -> bool:
        """Leave a forbidden page the action led to; whether it did."""
        bad = outcome.url_after
        problem = self.nav.landing_problem(bad)
        if problem is None:
            return False
        outcome.url_after = where = self._leave(bad, outcome.url_before)
        outcome.message += (f"; the page then went to {bad[:200]}, which this run does not allow ({problem}), "
                            f"so Cockpit went back to {where}")
        return True

    def _leave(self, bad: str, fallback: str) -> str:
        """Get off a forbidden page: back, else `fallback`, else about:blank. Returns where it ended."""
        s = self.session
        try:
            s.back()
        except WebDriverException as e:
            log.info("could not go back from %s: %s", bad[:200], short_message(e))
        now = s.url
        if now != bad and self.nav.landing_problem(now) is None:
            return now
        for url in (fallback, "about:blank"):
            if url and self.nav.landing_problem(url) is None:
                try:
                    s.goto(url)
                except WebDriverException as e:
                    log.info("could not open %s: %s", url[:200], short_message(e))
                now = s.url
                if self.nav.landing_problem(now) is None:
                    return now
        return now

    def _pointer(self, x: int, y: int, click: bool):
        drv = self.session.driver
        ab = ActionBuilder(drv, duration=0)  # Selenium moves take 250 ms by default
        ab.pointer_action.move_to_location(int(x), int(y))
        if click:
            ab.pointer_action.click()
        self.session.guarded(ab.perform)

    def keys(self, *seq):
        chain = ActionChains(self.session.driver, duration=0)
        for k in seq:
            chain.send_keys(k)
        self.session.guarded(chain.perform)

    def _handle_dialog(self, outcome: ActionOutcome):
        """A dialog the action opened is read out and answered by policy.

        Dismissing is the safe default: a confirm() after "Delete" must not be
        accepted on the agent's behalf without the approval gate.
        """
        dialog = self.session.open_dialog()
        if dialog is None:
            return
        accept = self.dialog_policy == "accept"
        self.session.answer_dialog(accept)
        outcome.message += (f'; the page showed a dialog: "{dialog["text"][:300]}" '
                            f'({"accepted" if accept else "dismissed"})')
        outcome.settle = self.session.settle()

    # ---------- the actions ----------
    def _do_click(self, a: Action, m: Mark):
        x, y = self._point(m, a)
        self._click(m, x, y)
        return f"clicked [{m.id}] {describe_hit(m)}", None

    def _do_hover(self, a: Action, m: Mark):
        x, y = self._point(m)
        self._pointer(x, y, click=False)
        return f"hovered over [{m.id}] {describe_hit(m)}", None

    def _do_type(self, a: Action, m: Mark):
        if m.tag == "select":  # as Chrome does for a person typing into a focused list: the option it starts
            return self._type_into_select(a, m)
        if not m.editable:
            raise ActionError(f"element [{m.id}] {describe_hit(m)} is not a text field; you can only type into text fields")
        x, y = self._point(m, a)
        self._click(m, x, y)
        self.act_js("clear", m)
        self.keys(Keys.BACKSPACE)
        if a.text:
            self.keys(a.text)
        shown = "(secret)" if m.secret else repr(a.text)
        if not self._press_enter:
            return (f"typed {shown} into [{m.id}]; Enter was not pressed, because in this form it could "
                    "submit something that cannot be undone", None)
        self.keys(Keys.ENTER)
        return f"typed {shown} into [{m.id}] and pressed Enter", None

    def _type_into_select(self, a: Action, m: Mark):
        res = self.act_js("select", m, {"text": a.text, "prefix": True})
        if not res.get("ok") and res.get("why") != "no-option":
            raise ActionError(f"element [{m.id}] could not be chosen from ({res.get('why', 'unknown')})")
        if not res.get("ok"):
            opts = ", ".join(f'"{o}"' for o in res.get("options", []))
            raise ActionError(f'element [{m.id}] is a drop-down list with no option starting with "{a.text}"; '
                              f"its options are: {opts}")
        chosen, typed = res["chosen"], a.text.strip().lower()
        how = " (the option whose text is what was typed)" if chosen.lower() == typed else \
            " (the option whose text starts with what was typed)" if chosen.lower().startswith(typed) else ""
        return f'typed "{a.text}" into the drop-down list [{m.id}]: it selected "{chosen}"{how}', None

    def _do_select(self, a: Action, m: Mark):
        res = self.act_js("select", m, a.text)
        if not res.get("ok"):
            if res.get("why") == "not-select":
                raise ActionError(f"element [{m.id}] is not a drop-down list (<select>); click it instead")
            opts = ", ".join(f'"{o}"' for o in res.get("options", []))
            raise ActionError(f'element [{m.id}] has no option "{a.text}"; its options are: {opts}')
        return f'selected "{res["chosen"]}" in [{m.id}]', None

    def _do_scroll(self, a: Action, m: Mark | None):
        sign = 1 if a.text == "down" else -1
        res = self.act_js("scroll", m, sign)
        where = "the window" if res.get("window") else f"element [{m.id}]"
        if m is not None and res.get("holder"):
            where = f"the area holding element [{m.id}]"
        if m is not None and res.get("window"):
            where = f"the window (element [{m.id}] cannot scroll by itself)"
        if not res.get("moved"):
            return f"{where} cannot scroll further {a.text}", None
        return f"scrolled {where} {a.text} by {abs(res['moved'])} pixels", None

    def _do_wait(self, a: Action, m):
        time.sleep(self.wait_seconds)
        return f"waited {self.wait_seconds:g} seconds", None

    def _do_back(self, a: Action, m):
        self.session.back()
        return f"went back to {self.session.url}", None

    def _do_google(self, a: Action, m):
        self.session.goto(self.session.config.search_url)
        return f"opened the search page {self.session.config.search_url}", None

    def _do_goto(self, a: Action, m):
        url = navguard.normalize_url(a.text)
        self.session.goto(url)
        if err := self.session.load_error():
            return f"tried to open {url} but it failed to load ({err})", None
        return f"opened {url}", None

    def _do_press(self, a: Action, m):
        self.session.guarded(keys.chain(self.session.driver, a.text).perform)
        return f"pressed {a.text}", None

    def _do_answer(self, a: Action, m):
        return "answered", a.text
