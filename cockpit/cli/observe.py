"""`cockpit observe URL`: mark a page and print its marks.

A debugging tool for people ("why isn't this button boxed?") and the
interface other tools use (--json).
"""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from selenium.common.exceptions import WebDriverException

from cockpit.cli.common import BadTarget, add_browser_options, browser_config, fail, serve_if_file
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import ActionError, CockpitError, short_message
from cockpit.core.page.observation import observe
from cockpit.core.words import plural


def add_parser(sub):
    p = sub.add_parser(
        "observe", help="mark a page's interactive elements and print them",
        description="Open URL in a browser, find every interactive element (Set-of-Mark) and print "
                    "the marks. URL may also be a local HTML file, served on 127.0.0.1.")
    p.add_argument("url", metavar="URL", help="web address (without a scheme: http:// for localhost and "
                                               "127.x, else https://), HTML file, or file:// URL")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="write screenshot.png, marked.png and marks.json into DIR")
    p.add_argument("--json", action="store_true",
                   help="print the marks as a JSON list instead of readable lines")
    add_browser_options(p)
    return p


def run(args) -> int:
    if args.out and (problem := _out_problem(args.out)):
        return fail(problem, 2)  # before a browser starts
    try:
        with serve_if_file(args.url) as url, BrowserSession(browser_config(args)) as browser:
            try:
                browser.goto(url)
            except WebDriverException as e:  # chromedriver raises on some network errors (refused, no such host)
                m = re.search(r"ERR_[A-Z_]+", str(e))
                return fail(f"could not load {url}: {m.group(0) if m else short_message(e)}", 3)
            if err := browser.load_error():
                return fail(f"could not load {url}: {err}", 3)
            t = time.perf_counter()
            obs = observe(browser)
            took = (time.perf_counter() - t) * 1000
            files = obs.save(args.out) if args.out else {}
    except (ActionError, BadTarget) as e:
        return fail(str(e), 2)
    except CockpitError as e:
        return fail(str(e), 3)
    except OSError as e:
        return fail(f"{e.strerror or e}: {e.filename or ''}".rstrip(": "), 3)
    except Exception as e:  # a WebDriver or page failure we did not foresee: still no traceback
        return fail(f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}", 3)
    if args.json:
        json.dump([m.to_dict() for m in obs.marks], sys.stdout, indent=1)
        print()
    else:
        print(f"{obs.url}\n{obs.title!r}: {plural(len(obs.marks), 'mark')} in a {obs.viewport[0]}x{obs.viewport[1]} "
              f"viewport, observed in {took:.0f} ms")
        print(obs.element_text)
        if obs.stats.get("covered") or obs.stats.get("cross_origin_frames"):
            print(f"(not marked: {obs.stats.get('covered', 0)} covered by other elements, "
                  f"{obs.stats.get('cross_origin_frames', 0)} cross-origin frames not entered)")
    for path in files.values():
        print(f"wrote {path}", file=sys.stderr)
    return 0


def _out_problem(out: Path) -> str | None:
    """Why --out cannot be the folder to write into, or None: it (or a folder on its way) is a file."""
    for p in (out, *out.parents):
        if p.exists():
            if p.is_dir():
                return None
            return (f"--out {out}: {p} is a file; --out names a folder to write screenshot.png, marked.png "
                    "and marks.json into" if p == out else f"--out {out}: {p} is a file, not a folder")
    return None
