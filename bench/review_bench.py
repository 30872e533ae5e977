"""Stepping through a 100-step run in the Review mode: time until each step is on screen.

Builds a synthetic 100-step run (testkit.fakeruns: 1024x768 PNGs, 12
marks each) in a temp store, opens the real ReviewPanel (offscreen by default),
and presses Right through every step, waiting `--pause` ms between presses like
an annotator reading. For each step it measures the time from the key press
until that step's screenshot, boxes and text are shown. Target (issue #5): under
50 ms per step.

    .venv/bin/python bench/review_bench.py [--steps 100] [--pause 150]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from cockpit.core.store import Store  # noqa: E402
from testkit.fakeruns import make_run  # noqa: E402
from cockpit.ui.review.panel import ReviewPanel  # noqa: E402


def wait(app, seconds: float) -> None:
    """Let the event loop run, idling like app.exec() does (which lets other threads in;
    QTest.qWait would hold Python's lock and starve the preloading thread)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.002)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
            t0 = time.perf_counter()
            QTest.keyClick(panel.viewer.view, Qt.Key_Right)
            if not panel.viewer.view.has_screenshot():
                misses += 1
            while not panel.viewer.view.has_screenshot() or panel.viewer.steps[panel.viewer.index]["step"] != i + 1:
                app.processEvents()
            times.append((time.perf_counter() - t0) * 1000)
        panel.close()
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"{len(times)} steps of a {args.steps}-step run, a key press every {args.pause} ms")
    print(f"time to show the next step: median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, "
          f"max {times[-1]:.1f} ms; {misses} steps were not preloaded in time")


if __name__ == "__main__":
    main()
