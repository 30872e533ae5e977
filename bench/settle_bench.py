"""How long settling takes, and whether the page had finished when it said so (issue #16).

Loads each page (or acts on it), then times BrowserSession.settle() and checks, right after it,
whether what the page was working on is there ("complete"): the worker's results, the rendered
app, the suggestions, the drawer's links. Pages: a static page, a 20,000-element static page
(testkit.pagegen), and the dynamic fixtures of tests/pages (settle_*.html): a web
worker's results, a render after a timer, an idle callback and a dynamic import, a debounced
autocomplete (typed into), a drawer whose links come after its transition (clicked), a view whose
module is imported on demand over a 700 ms network (clicked; a page script cannot see it), and a spinner
that never stops (settles at the loading-signal cap and says what was pending).

Prints, per page: the median wall time of settle() (and its range), the median time settle.js itself
waited in the page (without WebDriver's round trips, which are most of the noise on a busy machine),
how often it settled, how often the page was complete, and what was pending when it did not settle.
Targets: a static page settles in <= 150 ms (median); the no-op click on the ticking page in
<= 200 ms; the debounced click waits for its results ("complete" every time).

    .venv/bin/python -m bench.settle_bench [--repeats 7] [--quick] [--json FILE]
"""
from __future__ import annotations

import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from selenium.webdriver.common.by import By

from bench import harness
from cockpit.core.browser.session import BrowserSession
from cockpit.core.localserver import LocalSite
from testkit import pagegen

PAGES = harness.TEST_PAGES


def _type(b: BrowserSession) -> None:
    b._call(lambda: b.driver.find_element(By.ID, "q").send_keys("aur"))


def _click(b: BrowserSession) -> None:
    b._call(lambda: b.driver.find_element(By.ID, "menu").click())


def _nothing(b: BrowserSession) -> None:
    b._call(lambda: b.driver.find_element(By.ID, "nothing").click())


def _search(b: BrowserSession) -> None:
    b._call(lambda: b.driver.find_element(By.ID, "search").click())


def _load(b: BrowserSession) -> None:
    b._call(lambda: b.driver.find_element(By.ID, "load").click())


#: name, page, what to do after it loaded (then settle is timed), JS telling whether the page is complete
CASES = [
    ("static", "settle_static.html", None, "return true"),
    ("static 20k", "big.html", None, "return true"),
    ("worker results", "settle_worker.html", None, "return document.querySelectorAll('#results a').length == 2"),
    ("idle + import", "settle_idle.html", None, "return document.querySelectorAll('#app button').length == 2"),
    ("autocomplete (typed)", "settle_autocomplete.html", _type,
     "return document.querySelectorAll('#list li').length == 3"),
    ("drawer (clicked)", "settle_pulse.html", _click, "return document.querySelectorAll('#drawer a').length == 2"),
    ("import 700ms (clicked)", "settle_import.html", _load, "return document.querySelectorAll('#app button').length == 2"),
    ("spinner forever", "settle_spinner.html", None, "return true"),
    ("tickers, no-op click", "settle_rhythm.html", _nothing, "return true"),
    ("tickers, debounced 300", "settle_rhythm.html", _search,
     "return document.querySelectorAll('#results a').length == 2"),
]


def run_case(b: BrowserSession, url: str, action, complete_js: str) -> tuple[float, dict, bool]:
    try:
        b._call(b.driver.get, url)  # no settle of its own: the one below is timed
    except Exception:  # noqa: BLE001 - a slow load is timed below like any other
        pass
    if action is not None:
        b.settle()
        action(b)
    t = time.perf_counter()
    result = b.settle()
    ms = harness.since_ms(t)
    return ms, result, bool(b.js(complete_js))


def main():
    ap = harness.Arguments(__doc__, repeats=7, repeats_help="settles per page (default 7)", quick={"repeats": 2})
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="cockpit-settle-bench-"))
    shutil.copytree(PAGES, root, dirs_exist_ok=True)
    (root / "big.html").write_text(pagegen.generate(20000))
    print(f"settle() after a page load (or the action named); medians of {args.repeats}")
    table = harness.Table(("page", "page", "<22"), ("median_ms", "median ms", ">9.0f"), ("min_ms", "(min", ">7.0f"),
                          ("max_ms", "max)", ">7.0f"), ("in_page_ms", "in page", ">8.0f"), ("settled", "settled", ">8"),
                          ("complete", "complete", ">9"))
    print(table.header("   pending at the cap"))
    with LocalSite(root) as site, BrowserSession() as b:
        for name, page, action, complete_js in CASES:
            run_case(b, site.url(page), action, complete_js)  # warm up
            times, waited, settled, complete, pending = [], [], 0, 0, Counter()
            for _ in range(args.repeats):
                ms, result, done = run_case(b, site.url(page), action, complete_js)
                times.append(ms)
                waited.append(result.get("waited_ms") or 0.0)
                settled += bool(result.get("settled"))
                complete += done
                pending.update(result.get("pending") or [])
            print(table.row(name, harness.median(times), min(times), max(times), harness.median(waited),
                            f"{settled:>4}/{args.repeats:<3}", f"{complete:>5}/{args.repeats:<3}",
                            extra="   " + ", ".join(f"{p} (x{n})" for p, n in pending.most_common(4)),
                            record={"pending": dict(pending)}), flush=True)
    shutil.rmtree(root, ignore_errors=True)
    harness.write_json(args.json, {"repeats": args.repeats, "pages": table.rows})


if __name__ == "__main__":
    main()
