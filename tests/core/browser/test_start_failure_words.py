"""A browser session that did not start is said in words (walkthrough 7: the window's red banner showed only
urllib3's "HTTPConnectionPool(host='localhost', port=56713): Read timed out. (read timeout=60.0)")."""
import urllib3

from cockpit.core.browser.launch import why_not_started
from cockpit.core.browser.session import BrowserConfig


def test_chromedriver_s_read_timeout_says_chromium_did_not_start_in_time():
    exc = urllib3.exceptions.ReadTimeoutError(None, "/session", "Read timed out. (read timeout=60.0)")
    said = why_not_started(exc, BrowserConfig())
    assert said.startswith("Chromium did not start within 60 s (the machine may be very busy, or Chromium cannot run "
                           "here: try `cockpit status`)")
    assert "Read timed out" in said  # the original kept at the end, for a report


def test_other_failures_are_said_as_they_are():
    assert why_not_started(OSError("chromedriver: permission denied"), BrowserConfig()) == \
        "chromedriver: permission denied"
