"""Stopping a page load from another thread (walkthrough 8, B2: Stop while a start page hung did nothing until the
page-load timeout, 30 s, and the run was recorded as failed).

WebDriver cannot do it: chromedriver runs one command of a session at a time, so a `window.stop()` sent while
`driver.get` waits for the page is queued behind that very wait. A DevTools connection of our own to the tab is
answered at once; ``Page.stopLoading`` there ends the navigation, and the waiting `driver.get` returns (the tab on
the page it was on, or on what had loaded). Where there is no such connection (a remote browser without CDP), the
load ends at its timeout, as before."""
from __future__ import annotations

import logging

from cockpit.core.browser.cdp import DirectCDPError, connect_tab

log = logging.getLogger(__name__)


def stop_loading(session) -> bool:
    """Stop the load going on in `session`'s tab (any thread); False when it could not be reached."""
    if session.driver is None:
        return False
    try:
        direct = connect_tab(session.driver.capabilities, session.config.webdriver_url, session.main_handle,
                             timeout=5.0)
    except (DirectCDPError, OSError) as e:
        log.info("could not reach the tab to stop its load: %s", e)
        return False
    if direct is None:
        return False
    try:
        direct.call("Page.stopLoading", timeout=5.0)
        return True
    except (DirectCDPError, OSError) as e:
        log.info("the tab did not stop its load: %s", e)
        return False
    finally:
        direct.close()
