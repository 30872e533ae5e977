"""Starting `cockpit` (the window) on a sound store and on damaged ones: time until the person sees something.

For each store (testkit.damaged: a sound one with 40 runs; garbage, truncated, bad pages in the middle, a
newer schema, another program's database, a 300 MB sound one with --big) it starts `python -m cockpit` as a
desktop launcher would, on QT_QPA_PLATFORM (offscreen unless set; under Xvfb, xcb), and measures the time from
the launch until a window is on screen: the main window, or the box that says what is wrong with the store.
Where no window ever shows (Cockpit before issue #38 printed the error on stderr and exited), it says "none"
and gives the time until the process ended. Each window is closed at once (the box answered Quit).

Target (issue #38, broken item 5): a damaged store is said in a window, fast (the issue saw 6-9 s until the
process exited, with nothing on screen).

    .venv/bin/python -m bench.start_bench [--repeats 5] [--big] [--stores A,B] [--code DIR] [--quick] [--json FILE]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import harness
from testkit import damaged

#: In the child: the time (time.time()) the first window showed, its kind; then it is closed (a box: Quit).
PROBE = r"""
import json, sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
app = QApplication(sys.argv[:1])
from cockpit.ui.app import run_window
seen = {}

def look():
    for w in QApplication.topLevelWidgets():
        if w.isVisible() and (isinstance(w, QMessageBox) or type(w).__name__ == "MainWindow"):
            seen.setdefault("at", time.time())
            seen.setdefault("what", "box" if isinstance(w, QMessageBox) else "window")
            if isinstance(w, QMessageBox):
                next((b for b in w.buttons() if b.text() in ("Quit", "Close")), w.buttons()[0]).click()
            else:
                w.close()
            return
    QTimer.singleShot(5, look)

QTimer.singleShot(0, look)
try:
    code = run_window()
finally:
    print("PROBE " + json.dumps(seen))
"""

KINDS = ("sound", "garbage", "truncated", "overwritten", "newer", "foreign")


def make_store(home: Path, kind: str, big: bool) -> None:
    if kind == "sound":
        damaged.filled_store(home)
    elif kind == "big":
        big_store(home)
    else:
        damaged.make(home, kind)


def big_store(home: Path, megabytes: int = 300) -> None:
    """A sound store of about `megabytes` (long requests), for what checking every page costs."""
    damaged.filled_store(home, runs=1)
    from cockpit.core.store import Store
    with Store(home) as store:
        rid = store.run_summaries()[0]["id"]
        request = json.dumps([{"role": "user", "content": "x" * 100_000}])
        with store.atomic():
            for k in range(10, 10 + megabytes * 10):
                store.commit_step(rid, dict(step=k, request=request, thought="t"))


def launch(home: Path, code: Path | None = None) -> tuple[float, str]:
    """Seconds from launch to the first window (and its kind), or to the process's end ("none"). `code`: a
    checkout of another commit whose `cockpit` package runs instead of this one's (for before and after)."""
    env = dict(os.environ, COCKPIT_HOME=str(home))
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    probe = PROBE if code is None else (  # the venv's editable install would import this checkout's package
        "import sys\nsys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)]\n"
        f"sys.path.insert(0, {str(code)!r})\n" + PROBE)
    t0 = time.time()
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    ended = time.time()
    line = next((x for x in r.stdout.splitlines() if x.startswith("PROBE ")), "PROBE {}")
    seen = json.loads(line[6:])
    if "at" in seen:
        return seen["at"] - t0, seen["what"]
    return ended - t0, "none"


def main():
    ap = harness.Arguments(__doc__, repeats=5, quick={"repeats": 1})
    ap.add_argument("--big", action="store_true", help="also a sound store of about 300 MB")
    ap.add_argument("--code", type=Path, metavar="DIR", help="run the `cockpit` package of DIR, a checkout of "
                    "another commit (`git archive COMMIT cockpit | tar -x -C DIR`), to compare before and after")
    ap.add_argument("--stores", metavar="A,B", help=f"only these stores (of {', '.join(KINDS)}, big)")
    args = ap.parse_args()
    kinds = KINDS[:3] if args.quick else KINDS + (("big",) if args.big else ())
    if args.stores:
        kinds = tuple(args.stores.split(","))
    table = harness.Table(("store", "store", "<12"), ("shown", "shown", "<7"), ("median", "median", ">6.2f", " s"),
                          ("max", "max", ">6.2f", " s"))
    print(f"QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM', 'offscreen')}, {args.repeats} launches each, "
          f"code: {args.code or 'this checkout'}")
    print(table.header())
    for kind in kinds:
        times, shown = [], set()
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as tmp:
                home = Path(tmp) / "home"
                make_store(home, kind, args.big)
                seconds, what = launch(home, args.code)
            times.append(seconds)
            shown.add(what)
        print(table.row(kind, "/".join(sorted(shown)), harness.median(times), max(times)), flush=True)
    harness.write_json(args.json, {"rows": table.rows})


if __name__ == "__main__":
    main()
