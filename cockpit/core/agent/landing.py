"""The page an action landed on: whether it is a new document, and the HTTP status the site answered it with.

A form the site refuses (HTTP 404, 501) still "ran" in the browser: the executor adds
"the site answered HTTP 501 (Not Implemented)" to the outcome, so the step log shows it as a
warning (:func:`cockpit.core.store.records.outcome_warning`), not a success (#38). Chromium's
navigation timing tells the status (``responseStatus``); a new document has a new time origin.

Both ends come from scripts a step runs anyway, so telling costs no WebDriver round trip of its own:
the page before the action is the step's observation's (js/som.js, ``Observation.document``), the
page after it is the settle script's (js/settle.js, the settle result's ``document``). The page is
asked on its own (:func:`document`) only when the settle script could not say (it never got an
answer, a popup was folded in after it, or Cockpit left a forbidden page after it).
"""
from __future__ import annotations

import http

from cockpit.core.page.observation import document_of
from cockpit.core.store.records import ANSWERED_HTTP

Document = tuple[float, int]  # (the document's time origin, its HTTP status; 0 when unknown)


def document(session) -> Document:
    """(the page's document's time origin, its HTTP status; 0 when unknown) in `session` (a BrowserSession)."""
    try:
        got = session.js("const e = performance.getEntriesByType('navigation')[0];"
                         "return [performance.timeOrigin, e ? (e.responseStatus || 0) : 0]")
        return float(got[0]), int(got[1])
    except Exception:  # a page that will not answer: no status to tell
        return 0.0, 0


def warning(session, before: Document | None, settle: dict, *, left: bool = False) -> str:
    """:func:`http_error` of the action that started on `before` (None: not known, nothing is said) and
    settled with `settle` (the settle result, whose ``document`` is taken out of it, so it is not stored
    with the step's timings). `left`: Cockpit left the page the action led to (a forbidden one)."""
    after = document_of(settle.pop("document", None))
    if before is None:
        return ""
    return http_error(before, after if after is not None and not left else document(session))


def http_error(before: Document | None, after: Document) -> str:
    """"the site answered HTTP 501 (Not Implemented)" when the action led to a new document that is an HTTP
    error page (a form post the site refused), else ""."""
    if before is None or after[0] == before[0] or after[1] < 400:
        return ""
    try:
        phrase = http.HTTPStatus(after[1]).phrase
    except ValueError:
        phrase = "an error"
    return f"{ANSWERED_HTTP} {after[1]} ({phrase})"
