"""Launching Chrome for a session: its command line, capabilities and preferences, and the local
chromedriver that starts it (browser/session.py connects to it)."""
from __future__ import annotations

import os
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from cockpit.core.browser.locate import find_chrome, find_chromedriver
from cockpit.core.browser.profiles import CHROME_FLAGS
from cockpit.core.errors import short_message


def chrome_options(cfg, profile_dir: Path | None, download_dir: Path | None) -> webdriver.ChromeOptions:
    """Chrome's command line, capabilities and preferences for a session of config `cfg`."""
    o = webdriver.ChromeOptions()
    w, h = cfg.viewport
    for a in CHROME_FLAGS:
        o.add_argument(a)
    if hasattr(os, "geteuid") and os.geteuid() == 0 and not cfg.webdriver_url:
        # Chrome refuses to run as root otherwise. On a Grid the node's user counts, not ours:
        # a node run as root needs --chrome-arg=--no-sandbox.
        o.add_argument("--no-sandbox")
    # Dialogs stay open for the executor to read and answer (default: dismissed unseen).
    o.set_capability("unhandledPromptBehavior", "ignore")
    if cfg.headless:
        o.add_argument("--headless=new")
    # Window size covers browser chrome too; the exact viewport is set by CDP.
    o.add_argument(f"--window-size={w},{h + (0 if cfg.headless else 140)}")
    if profile_dir and not cfg.webdriver_url:
        # absolute: Chromium takes a relative one from its own working folder, and the session never starts
        o.add_argument(f"--user-data-dir={os.path.abspath(profile_dir)}")  # no "..": Chromium refuses those
    if cfg.user_agent:
        o.add_argument(f"--user-agent={cfg.user_agent}")
    for a in cfg.extra_args:
        o.add_argument(a)
    prefs = {"plugins.always_open_pdf_externally": True,
             "download.prompt_for_download": False,
             "credentials_enable_service": False,
             "profile.password_manager_enabled": False}
    if download_dir:
        prefs["download.default_directory"] = str(download_dir)
    o.add_experimental_option("prefs", prefs)
    if not cfg.webdriver_url:
        o.binary_location = find_chrome(cfg.chrome_binary)
    o.page_load_strategy = "normal"
    return o


def start_chromedriver(cfg, profile_dir: Path | None) -> Service:
    """This machine's chromedriver, started with the profile's folders as its home and caches."""
    driver_path = find_chromedriver(cfg.chromedriver)
    env = dict(os.environ)
    # Chromium writes outside its profile (~/.config, dconf): keep it inside.
    if profile_dir:
        for var, sub in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")):
            d = Path(os.path.abspath(profile_dir)) / sub
            d.mkdir(exist_ok=True)
            env[var] = str(d)
    # Its own session: a Ctrl+C in the terminal must not kill the browser before
    # Cockpit has recorded the stop and closed it properly.
    svc = Service(executable_path=driver_path, env=env, popen_kw={"start_new_session": True})
    svc.start()
    return svc


def stop_chromedriver(svc: Service, started: bool) -> None:
    """Stop chromedriver: asked to shut down when its browser session started, else killed at once (a start
    called off from another thread, the window's Stop: chromedriver busy starting Chromium answers its shutdown
    request only after 10 s)."""
    if not started and svc.process is not None and svc.process.poll() is None:
        svc.process.kill()
        svc.process.wait(5)
    svc.stop()


def why_not_started(exc: BaseException, cfg) -> str:
    """Why a browser session did not start, in words: chromedriver's read timeout (urllib3's "Read timed out") says
    that Chromium did not start in time (walkthrough 7: the raw urllib3 message was all a person saw)."""
    why = short_message(exc)
    if "Read timed out" in why:
        why = (f"Chromium did not start within {cfg.command_timeout:.0f} s (the machine may be very busy, or Chromium "
               f"cannot run here: try `cockpit status`); {why}")
    return why
