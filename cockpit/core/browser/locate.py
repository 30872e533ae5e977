"""Where Chrome/Chromium and chromedriver are on this machine (explicit path, environment, usual places)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from cockpit.core.errors import BrowserNotFound

CHROME_CANDIDATES = (
    "/usr/lib/chromium/chromium",  # Debian: the real binary behind the /usr/bin wrapper
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/opt/google/chrome/chrome",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    r"C:\Program Files\Google\Chrome\Application\chrome.exe",
)
DRIVER_CANDIDATES = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver",
                     "/usr/local/bin/chromedriver")


def find_chrome(explicit: str | None = None) -> str:
    return _find("Chrome/Chromium", explicit, "COCKPIT_CHROME", CHROME_CANDIDATES,
                 ("chromium", "chromium-browser", "google-chrome", "chrome"))


def find_chromedriver(explicit: str | None = None) -> str:
    return _find("chromedriver", explicit, "COCKPIT_CHROMEDRIVER", DRIVER_CANDIDATES, ("chromedriver",))


def _find(what, explicit, env, candidates, names) -> str:
    for p in (explicit, os.environ.get(env)):
        if p:
            if Path(p).exists():
                return str(p)
            raise BrowserNotFound(f"{what} not found at {p}")
    for p in candidates:
        if Path(p).exists():
            return p
    for n in names:
        if found := shutil.which(n):
            return found
    raise BrowserNotFound(
        f"{what} was not found. Install it (Debian: apt-get install chromium chromium-driver), "
        f"set {env} to its path, or use a remote browser with --webdriver-url.")
