"""Annotation throughput (issue #42): an annotator labelling imported Online-Mind2Web runs from the keyboard.

Writes N Online-Mind2Web result folders (default 300, import_bench's layout: 1280x720 PNGs, ABP's v1
result.json), imports them into a fresh store and opens the real Review panel (offscreen by default) as an
annotator. Then it labels every run as a person does, only with keys sent through Qt's event queue: N opens
the next unlabelled run, the run is "read" for `--pause` ms, then the verdict (S, or a failure category 1-8,
which sets fail), side effects (X) and repetition (L); N again finishes the run and opens the next.

It measures
- the time from the key that finishes a label (N) to the next run's first screenshot on screen (p50, p95,
  max), which is Review's part of an annotator's time per run;
- the keys pressed per fully labelled run (verdict, both axes, category, next);
- that every label was stored as pressed (verdict, axes, category), so a fast number is not a lost label.

    .venv/bin/python -m bench.label_bench [--runs 300] [--steps 15] [--pause 300] [--quick] [--json FILE]

Targets (issue #42): p95 <= 100 ms; <= 4 keys for a run without key points.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench import harness  # noqa: E402
from bench.import_bench import write_folders  # noqa: E402
from cockpit.core.store import Store  # noqa: E402
from cockpit.core.store import labels as L  # noqa: E402
from cockpit.core.store.m2w_import import import_mind2web  # noqa: E402

ANNOTATOR = "bench-annotator"
AXIS_KEYS = (Qt.Key_X, Qt.Key_L)  # side effects, repetition: the first press says "no"
DIGITS = (Qt.Key_1, Qt.Key_2, Qt.Key_3, Qt.Key_4, Qt.Key_5, Qt.Key_6, Qt.Key_7, Qt.Key_8)


def idle(app, seconds: float) -> None:
    """Let the event loop run as app.exec() does (the preloading thread gets Python's lock)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.002)


def wait_for(app, cond, limit: float = 30.0) -> bool:
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            return False
        app.processEvents()
        time.sleep(0.0005)
    return True


def shown(panel, run_id: str | None) -> bool:
    """A run other than `run_id` is open and a screenshot of it is on screen."""
    run = panel.viewer.run
    return bool(run) and run["id"] != run_id and panel.viewer.view.has_screenshot()


def plan(i: int) -> tuple[list, str, str]:
    """What the annotator presses for the i-th run (two in three succeed): the keys, the verdict, the category."""
    if i % 3:
        return [Qt.Key_S, *AXIS_KEYS], "success", ""
    return [DIGITS[i % len(DIGITS)], *AXIS_KEYS], "fail", str(i % len(DIGITS) + 1)


def label_all(app, panel, runs: int, pause: float) -> dict:
    target = panel.viewer.view  # keys go where the person looks: the screenshot
    times, keys, expected, stalls = [], [], {}, 0
    QTest.keyClick(target, Qt.Key_N)
    if not wait_for(app, lambda: shown(panel, None)):
        raise SystemExit("the first run's screenshot never showed")
    for i in range(runs):
        run_id = panel.viewer.run["id"]
        idle(app, pause)  # reading the run
        pressed, verdict, category = plan(i)
        for key in pressed:
            QTest.keyClick(target, key)
            app.processEvents()
        expected[run_id] = (verdict, category)
        t0 = time.perf_counter()
        QTest.keyClick(target, Qt.Key_N)  # the key that finishes the label
        keys.append(len(pressed) + 1)
        if i == runs - 1:
            break
        if not wait_for(app, lambda run_id=run_id: shown(panel, run_id)):
            stalls += 1
            continue
        times.append(harness.since_ms(t0))
    return {"times": times, "keys": keys, "expected": expected, "stalls": stalls}


def check_labels(store, expected: dict) -> tuple[int, list[str]]:
    """How many runs were stored exactly as pressed, and what was not."""
    wrong = []
    for run_id, (verdict, digit) in expected.items():
        got = next(iter(L.labels(store, run_id, ANNOTATOR)), None)
        want = (verdict, L.CATEGORIES[int(digit) - 1] if digit else "", "no", "no")
        have = None if got is None else (got["verdict"], got.get("category") or "", got.get("side_effects"),
                                         got.get("repetition"))
        if have != want:
            wrong.append(f"{run_id}: stored {have}, pressed {want}")
    return len(expected) - len(wrong), wrong


def main() -> int:
    ap = harness.Arguments(__doc__, quick={"runs": 20, "steps": 5})
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--pause", type=int, default=300, help="ms the annotator spends reading a run before labelling")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from cockpit.ui.review.panel import ReviewPanel
    with tempfile.TemporaryDirectory() as tmp:
        src, home = Path(tmp) / "results", Path(tmp) / "home"
        write_folders(src, args.runs, args.steps)
        with Store(home) as store:
            report = import_mind2web(store, src, agent="bench")
            print(f"{len(report.imported)} Online-Mind2Web runs of {args.steps} steps imported")
            panel = ReviewPanel(store, annotator=ANNOTATOR)
            panel.resize(1280, 800)
            panel.show()
            QTest.qWaitForWindowExposed(panel)
            panel.activateWindow()
            wait_for(app, lambda: panel.browser.model.total >= len(report.imported))
            t0 = time.perf_counter()
            got = label_all(app, panel, len(report.imported), args.pause / 1000)
            wall = time.perf_counter() - t0
            right, wrong = check_labels(store, got["expected"])
            panel.close()
    s = harness.summary(got["times"])
    keys = got["keys"]
    print(f"{len(keys)} runs labelled from the keyboard in {wall:.0f} s ({args.pause} ms reading each)")
    print(f"finishing key (N) -> the next run's first screenshot: median {s['median']:.1f} ms, "
          f"p95 {s['p95']:.1f} ms, max {s['max']:.1f} ms (target p95 <= 100 ms); "
          f"{got['stalls']} never showed within 30 s")
    print(f"keys per fully labelled run: {min(keys)}-{max(keys)}, mean {sum(keys) / len(keys):.2f} "
          "(verdict or category, side effects, repetition, next; target <= 4)")
    print(f"stored as pressed: {right}/{len(keys)}" + "".join(f"\n  {w}" for w in wrong[:10]))
    harness.write_json(args.json, {"runs": len(keys), "steps": args.steps, "pause_ms": args.pause,
                                    "next_shown_ms": s, "keys_per_run": keys, "stored_right": right,
                                    "stalls": got["stalls"]})
    return 0 if right == len(keys) and not got["stalls"] else 1


if __name__ == "__main__":
    sys.exit(main())
