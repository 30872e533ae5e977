"""Waiting for a page to settle after an action: until its own work is done (js/settle.js: timers, fetches,
animations, mutations, spinners and "Loading..." text) and any script import() in flight has arrived
(browser/scriptloads.py), within the session's caps. Popups are folded back into the one tab."""
from __future__ import annotations

import logging
import time

from selenium.common.exceptions import JavascriptException, TimeoutException, WebDriverException

from cockpit.core import resources
from cockpit.core.errors import short_message

log = logging.getLogger(__name__)


def settle(session) -> dict:
    """Wait for the page to finish reacting, within settle_cap_ms (js/settle.js says what it waits for).

    Returns {'settled': bool, 'waited_ms': float, 'pending': [what was still pending, in words]}
    ('pending' is empty once settled; when the cap hit: "timer 300ms", "fetch 1", "text 'Loading...'"),
    and, when the settle script answered on the page as it is left, 'document': [its time origin, its HTTP
    status] (0: unknown; not there when no script answered, or a popup was folded in after it).
    """
    cfg = session.config
    deadline = time.monotonic() + cfg.settle_cap_ms / 1000
    session.ensure_single_tab()
    result = {"settled": False, "pending": ["navigation"]}  # if every try met a new document
    loads, started = session.script_loads(), 0.0  # started: when a wait for script loads began its settle
    while True:
        left_ms = max(0, int((deadline - time.monotonic()) * 1000))
        try:
            result = session.js_async("(" + resources.script("settle.js") + ").apply(null, arguments)",
                                   cfg.settle_quiet_ms, left_ms, cfg.settle_mutation_cap_ms,
                                   cfg.settle_look_ms, cfg.settle_signal_cap_ms)
            if result and result.get("settled") and loads is not None and loads.pending():
                # A dynamic import() in flight, which the page cannot see of itself: wait, then settle again
                started = started or time.monotonic() - result.get("waited_ms", 0) / 1000
                if left := loads.wait(deadline):
                    result = {**result, "settled": False, "pending": [f"script {u[-80:]}" for u in left]}
                    result.pop("document", None)  # of the page before the wait
                    break
                session.js("const s = window.__cockpitState; if (s) s.lastActivity = s.now();")  # it runs now
                continue
            break
        except (JavascriptException, TimeoutException) as e:
            # The document navigated away under the script: wait on the new one.
            if time.monotonic() >= deadline:
                log.info("page did not settle: %s", short_message(e))
                break
            time.sleep(0.03)
        except WebDriverException:
            if session.open_dialog() is not None:
                return {"settled": True, "dialog": True, "pending": []}
            if time.monotonic() >= deadline:
                break
            time.sleep(0.03)
    if session.ensure_single_tab() and result:  # a popup's page, loaded in the tab after the script answered
        result.pop("document", None)
    if started and result:
        result["waited_ms"] = (time.monotonic() - started) * 1000
    return result or {}
