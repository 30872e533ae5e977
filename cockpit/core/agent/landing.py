"""The page an action landed on: whether it is a new document, and the HTTP status the site answered it with.

A form the site refuses (HTTP 404, 501) still "ran" in the browser: the executor adds
"the site answered HTTP 501 (Not Implemented)" to the outcome, so the step log shows it as a
warning (:func:`cockpit.core.store.records.outcome_warning`), not a success (#38). Chromium's
navigation timing tells the status (``responseStatus``); a new document has a new time origin.
"""
from __future__ import annotations

import http

#: how an outcome says the page the action led to is an HTTP error (core.store.records.outcome_warning reads it)
ANSWERED_HTTP = "the site answered HTTP"


def document(session) -> tuple[float, int]:
    """(the page's document's time origin, its HTTP status; 0 when unknown) in `session` (a BrowserSession)."""
    try:
        got = session.js("const e = performance.getEntriesByType('navigation')[0];"
                         "return [performance.timeOrigin, e ? (e.responseStatus || 0) : 0]")
        return float(got[0]), int(got[1])
    except Exception:  # a page that will not answer: no status to tell
        return 0.0, 0


def http_error(before: tuple[float, int] | None, after: tuple[float, int]) -> str:
    """"the site answered HTTP 501 (Not Implemented)" when the action led to a new document that is an HTTP
    error page (a form post the site refused), else ""."""
    if before is None or after[0] == before[0] or after[1] < 400:
        return ""
    try:
        phrase = http.HTTPStatus(after[1]).phrase
    except ValueError:
        phrase = "an error"
    return f"{ANSWERED_HTTP} {after[1]} ({phrase})"
