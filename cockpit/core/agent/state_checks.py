"""WebArena's state evaluators run in the run's browser as the run ends (the rules are in
:mod:`cockpit.core.tasks.webarena_eval`): the final URL for ``url_match``, the pages and elements of
``program_html``. Each outcome is stored as a verdict (``webarena:url_match``, ``webarena:program_html``;
k 0, version :data:`~cockpit.core.tasks.webarena_eval.VERSION`) with what it compared, so Review, the judge
table and ``cockpit agreement`` show it beside the judges' and the humans'. Evaluating never fails the run:
a browser error makes the check "not evaluated" (verdict None) and says why."""
from __future__ import annotations

import logging

from selenium.common.exceptions import JavascriptException, WebDriverException

from cockpit.core.errors import short_message
from cockpit.core.store import Store, labels
from cockpit.core.tasks.webarena_eval import (
    NAMES,
    VERSION,
    Check,
    Target,
    content_ok,
    eval_of,
    state_checks,
    targets,
    url_match,
)

log = logging.getLogger(__name__)



def run_state_checks(session, store: Store, run_id: str, config: dict | None) -> list[Check]:
    """Evaluate the run's WebArena state checks now and store them; [] when its task has none."""
    ev = eval_of(config)
    names = state_checks(ev)
    checks = []
    for name in names:
        try:
            checks.append(url_match(session.url, ev) if name == "url_match" else _program_html(session, ev))
        except Exception as e:  # a site that is down, an alert left open, a bad URL: not this run's failure
            log.info("WebArena %s not evaluated: %s", name, e)
            checks.append(Check(name, None, f"not evaluated: the browser failed ({short_message(e)})"))
    for c in checks:
        labels.set_verdict(store, run_id, NAMES[c.name], 0, VERSION, c.verdict, reply=c.detail)
    return checks


def _program_html(session, ev: dict) -> Check:
    tgts, why = targets(ev)
    if why:
        return Check("program_html", None, why)
    notes, ok = [], True
    for i, t in enumerate(tgts, 1):
        selected = _read(session, t)
        good, what = content_ok(selected, t.required)
        where = "the last page" if t.url == "last" else t.url
        notes.append(f"target {i} ({where}): " + ("met" if good else f"not met: {what}"))
        ok = ok and good
    return Check("program_html", int(ok), "; ".join(notes))


def _read(session, t: Target) -> str:
    """What the target's locator selects, as WebArena's harness reads it (str() of the value; "" when the
    expression throws). The locator is sent as script source, not eval'd in the page, so a page's CSP does
    not stop it."""
    if t.url != "last":
        session.goto(t.url)
    for prep in t.prep:  # as WebArena: the first prep action that throws ends them, and the check goes on
        try:
            session.js(prep)
        except WebDriverException as e:
            log.info("program_html prep action failed: %s", short_message(e))
            break
    if t.kind == "page":
        return str(session.js("return document.documentElement.outerHTML"))
    body = (f"const f = ({t.script});\nreturn typeof f === 'function' ? f() : f;" if t.kind == "function"
            else f"return ({t.script});")
    try:
        return str(session.js(body))
    except JavascriptException:
        return ""
