"""A smoke test of the whole app, meant for a built bundle: ``cockpit --smoke-test``.

It checks, in one short run with no display, no network and no model, what a
frozen build most often gets wrong: packaged resources are found, keyring's
backends are registered, a browser can be found and driven, and the window
works end to end. Steps:

1. Qt goes offscreen (unless ``QT_QPA_PLATFORM`` is already set) and Cockpit
   uses a throwaway ``COCKPIT_HOME``, removed afterwards.
2. Chromium and chromedriver are located (or ``--webdriver-url`` is used); when
   neither is available it says so and fails.
3. The main window opens in demo mode and runs the bundled demo task with the
   offline demo policy until the approval gate asks about "Place order".
4. The smoke test rejects it, waits for the run to end, checks the run store
   recorded a human rejection, and closes the window (browser included).

Progress goes to stdout. Any failure, or a time-out, prints one line starting
with ``smoke test: FAILED`` to stderr and returns 1; success returns 0. The
build script additionally fails on any traceback or unexpected stderr line.
From a source checkout: ``python -m cockpit.ui.smoke``.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import sys
import tempfile
import time

DEFAULT_TIMEOUT = 120.0


class SmokeFailure(Exception):
    """What went wrong, in one sentence for the person reading the build log."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cockpit --smoke-test",
        description="Run the demo task offscreen up to the approval gate, reject it, and exit 0 "
                    "if everything worked (1 otherwise).")
    p.add_argument("--webdriver-url", metavar="URL",
                   help="use this remote WebDriver instead of a local Chromium and chromedriver")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"give up after this long (default {DEFAULT_TIMEOUT:.0f})")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_smoke_test(webdriver_url=args.webdriver_url, timeout=args.timeout)


def run_smoke_test(*, webdriver_url: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> int:
    """Run the smoke test; 0 when it passed, 1 when it did not (the reason is on stderr)."""
    saved = {k: os.environ.get(k) for k in ("COCKPIT_HOME", "QT_QPA_PLATFORM")}
    home = tempfile.mkdtemp(prefix="cockpit-smoke-")
    os.environ["COCKPIT_HOME"] = home
    if not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    started = time.monotonic()
    try:
        _say(f"frozen: {bool(getattr(sys, 'frozen', False))}; platform: {os.environ['QT_QPA_PLATFORM']}; "
             f"home: {home}")
        _run(webdriver_url, started + timeout, timeout)
    except SmokeFailure as e:
        print(f"smoke test: FAILED: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - anything else is a failure too, with its traceback
        import traceback
        traceback.print_exc()
        print(f"smoke test: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(home, ignore_errors=True)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    _say(f"passed in {time.monotonic() - started:.1f}s")
    return 0


def _say(text: str) -> None:
    print(f"smoke: {text}", flush=True)


def _run(webdriver_url: str | None, deadline: float, timeout: float) -> None:
    from cockpit.core.logsetup import setup_logging
    setup_logging(False)
    _check_resources()
    _check_imports()
    _check_keyring()
    browser_config = _check_browser(webdriver_url)

    import qasync
    from PySide6.QtGui import QIcon, QPixmap
    from PySide6.QtWidgets import QApplication

    from cockpit.core import resources
    from cockpit.ui.live.bridge import AgentBridge
    from cockpit.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Cockpit")
    icon = QPixmap()
    if not icon.loadFromData(resources.read_bytes("icons/cockpit-256.png")):
        raise SmokeFailure("Qt could not load the app icon (icons/cockpit-256.png)")
    app.setWindowIcon(QIcon(icon))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    bridge = AgentBridge(browser_config=browser_config)
    window = MainWindow(demo=True, bridge=bridge)
    try:
        with loop:
            loop.run_until_complete(_drive(window, deadline, timeout))
    finally:
        window.close()  # stops any run, closes the browser and the demo servers
        asyncio.set_event_loop(None)
    if bridge.session is not None:
        raise SmokeFailure("the browser was still open after the window closed")
    _say("window closed; browser and demo servers stopped")


def _check_resources() -> None:
    from cockpit.core import resources
    som = resources.script("som.js")
    prompt = resources.read_text("prompts/system.txt")
    with resources.path("demo_site") as site:
        if not (site / "index.html").is_file():
            raise SmokeFailure(f"the demo site is incomplete: no index.html in {site}")
    if not (som and prompt):
        raise SmokeFailure("packaged resources are empty")
    for name in ("icons/cockpit-256.png", "icons/cockpit.ico"):
        if not resources.read_bytes(name):
            raise SmokeFailure(f"the icon {name} is empty")
    _say("resources: marking script, prompts, demo site and icons found through importlib.resources")


def _check_imports() -> None:
    """Import every Cockpit module: a dependency a bundle left out fails here, not in front of a user."""
    import importlib
    import pkgutil

    import cockpit
    names = [m.name for m in pkgutil.walk_packages(cockpit.__path__, "cockpit.")
             if not m.name.endswith("__main__")]
    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - reported all together below
            failed.append(f"{name}: {type(e).__name__}: {e}")
    if failed or len(names) < 20:
        raise SmokeFailure(f"{len(failed)} of {len(names)} Cockpit modules did not import: " + "; ".join(failed))
    _say(f"imports: all {len(names)} Cockpit modules import")


def _check_keyring() -> None:
    """keyring finds its backends through entry points: a bundle without its metadata has none."""
    from importlib.metadata import entry_points

    from cockpit.core.llm import apikeys
    names = sorted(ep.name for ep in entry_points(group="keyring.backends"))
    if not names:
        raise SmokeFailure("keyring has no registered backends (its package metadata is missing from the "
                           "bundle), so it would never find the system keyring")
    usable, why = apikeys.keyring_usable()
    _say(f"keyring: backends registered: {', '.join(names)}; {why}")


def _check_browser(webdriver_url: str | None):
    from cockpit.core.browser.locate import find_chrome, find_chromedriver
    from cockpit.core.browser.session import BrowserConfig
    from cockpit.core.errors import BrowserNotFound
    if webdriver_url:
        _say(f"browser: remote WebDriver at {webdriver_url}")
        return BrowserConfig(webdriver_url=webdriver_url)
    try:
        chrome, driver = find_chrome(), find_chromedriver()
    except BrowserNotFound as e:
        raise SmokeFailure(f"{e} (COCKPIT_CHROME and COCKPIT_CHROMEDRIVER name the binaries; "
                           "the smoke test takes --webdriver-url URL too)") from None
    _say(f"browser: {chrome}; driver: {driver}")
    return BrowserConfig()


async def _drive(window, deadline: float, timeout: float) -> None:
    failures: list[str] = []
    window.bridge.failed.connect(failures.append)
    window.show()
    window.toolbar.policy.setCurrentText("irreversible")  # the gate that stops the demo before "Place order"
    _say("window open (demo mode, offline demo policy)")

    async def until(cond, what: str) -> None:
        while not cond():
            if failures:
                raise SmokeFailure(f"{what}: the run reported: {failures[0]}")
            if time.monotonic() > deadline:
                raise SmokeFailure(f"timed out after {timeout:.0f}s waiting for {what} (state: "
                                   f"{window.bridge.state}; banner: {window.live.banner.fullText()!r}; "
                                   f"error: {window.live.error_banner.text()!r})")
            await asyncio.sleep(0.05)

    t0 = time.monotonic()
    if not window.start_run():
        raise SmokeFailure(f"the demo run did not start: {window.live.error_banner.text() or 'no reason given'}")
    await until(lambda: window.live.approval.isVisible() or not window.runs.running, "the approval gate")
    if not window.live.approval.isVisible():
        raise SmokeFailure(f"the run ended without asking for approval: {window.live.banner.fullText()!r} "
                           f"{window.live.error_banner.text()!r}")
    req = window.live.approval.request
    _say(f"approval requested after {time.monotonic() - t0:.1f}s at step {req.step}: "
         f"{_plain(window.live.approval.title.text())}")
    if "place order" not in window.live.approval.title.text().lower():
        raise SmokeFailure(f"the approval gate asked about something else: {_plain(window.live.approval.title.text())}")
    window.live.approval.message.setText("smoke test: do not buy")
    window.live.approval.reject_btn.click()
    _say("rejected")
    await until(lambda: not window.runs.running, "the run to end after the rejection")
    if failures:
        raise SmokeFailure(f"the run reported: {failures[0]}")
    run = window.store.run(window.runs.run_id)
    decisions = window.store.decisions(window.runs.run_id)
    if not any(d["approved"] == 0 and str(d["by"]).startswith("human:") for d in decisions):
        raise SmokeFailure(f"the store has no human rejection for run {window.runs.run_id}: {decisions!r}")
    _say(f"run {window.runs.run_id} ended: {run['status']}; answer: {run.get('answer')!r}; "
         f"decisions recorded: {len(decisions)} (rejected by {decisions[-1]['by']})")


def _plain(html_text: str) -> str:
    import html
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", html_text)).split())


if __name__ == "__main__":
    sys.exit(main())
