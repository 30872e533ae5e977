"""Stepping through a 100-step run in the Review mode: time until each step is on screen.

Builds a synthetic 100-step run (testkit.fakeruns: 1024x768 PNGs, 12
marks each) in a temp store, opens the real ReviewPanel (offscreen by default),
and presses Right through every step, waiting `--pause` ms between presses like
an annotator reading. For each step it measures the time from the key press
until that step's screenshot, boxes and text are shown. Target (issue #5): under
50 ms per step.

    .venv/bin/python -m bench.review_bench [--steps 100] [--pause 150] [--quick] [--json FILE]
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench import harness  # noqa: E402
from cockpit.core.store import Store  # noqa: E402
from cockpit.ui.review.panel import ReviewPanel  # noqa: E402
from testkit.fakeruns import make_run  # noqa: E402


def wait(app, seconds: float) -> None:
    """Let the event loop run, idling like app.exec() does (which lets other threads in;
    QTest.qWait would hold Python's lock and starve the preloading thread)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.002)


def main():
    ap = harness.Arguments(__doc__, quick={"steps": 15})
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--pause", type=int, default=150, help="ms between key presses")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as home, Store(home) as store:
        make_run(store, steps=args.steps)
        panel = ReviewPanel(store, annotator="bench")
        panel.resize(1280, 800)
        panel.show()
        QTest.qWaitForWindowExposed(panel)
        panel.browser.table.selectRow(0)
        panel.activateWindow()
        panel.viewer.view.setFocus()
        deadline = time.monotonic() + 5
        while not panel.viewer.view.has_screenshot() and time.monotonic() < deadline:
            app.processEvents()
        times, misses = [], 0
        for i in range(1, args.steps):
            wait(app, args.pause / 1000)
            with harness.timed(times):
                QTest.keyClick(panel.viewer.view, Qt.Key_Right)
                if not panel.viewer.view.has_screenshot():
                    misses += 1
                while (not panel.viewer.view.has_screenshot()
                       or panel.viewer.steps[panel.viewer.index]["step"] != i + 1):
                    app.processEvents()
        panel.close()
    s = harness.summary(times)
    print(f"{len(times)} steps of a {args.steps}-step run, a key press every {args.pause} ms")
    print(f"time to show the next step: median {s['median']:.1f} ms, p95 {s['p95']:.1f} ms, "
          f"max {s['max']:.1f} ms; {misses} steps were not preloaded in time")
    harness.write_json(args.json, {"steps": args.steps, "pause_ms": args.pause, "show_ms": s, "not_preloaded": misses})


if __name__ == "__main__":
    main()
