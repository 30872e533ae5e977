"""Options and helpers shared by sub-commands that drive a browser."""
from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from ..core.browser import BrowserConfig


def viewport(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
        if not (200 <= w <= 8000 and 200 <= h <= 8000):
            raise ValueError
        return w, h
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a viewport like 1024x768") from None


def add_browser_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("browser")
    g.add_argument("--viewport", type=viewport, default=(1024, 768), metavar="WxH",
                   help="page viewport in CSS pixels (default 1024x768, scale factor 1)")
    g.add_argument("--webdriver-url", metavar="URL",
                   help="use a remote WebDriver / Selenium Grid instead of local Chromium")
    g.add_argument("--headed", action="store_true", help="show the browser window (needs a display)")
    g.add_argument("--chrome", metavar="PATH", help="Chrome/Chromium binary (default: found on this machine)")
    g.add_argument("--chromedriver", metavar="PATH", help="chromedriver binary (default: found on this machine)")


def browser_config(args) -> BrowserConfig:
    return BrowserConfig(viewport=args.viewport, headless=not args.headed,
                         webdriver_url=args.webdriver_url, chrome_binary=args.chrome,
                         chromedriver=args.chromedriver)


@contextlib.contextmanager
def serve_if_file(target: str):
    """Yield a URL for `target`: a web address as is, a local HTML file served on 127.0.0.1."""
    path = Path(target)
    if path.is_file():
        from ..core.localserver import LocalSite
        with LocalSite(path.resolve().parent) as site:
            yield site.url(path.name)
    else:
        from ..core.actions.execute import normalize_url
        yield normalize_url(target)


def fail(msg: str, code: int = 1) -> int:
    print(f"cockpit: error: {msg}", file=sys.stderr)
    return code


