"""How long the window's event loop stalls while the agent runs the demo.

Opens the real MainWindow (offscreen by default), starts the demo run, and
keeps a 5 ms heartbeat QTimer; every gap between heartbeats beyond the
interval is a stall of the GUI thread. Approves the order at the gate, waits
for the run to end, then prints the max and p99 gap and what ran. Target
(issue #4): the longest stall under 50 ms.

    .venv/bin/python -m bench.ui_stall_bench [--runs 2] [--select-steps] [--quick] [--json FILE]
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("COCKPIT_HOME", tempfile.mkdtemp(prefix="cockpit-bench-"))

from PySide6.QtCore import QElapsedTimer, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench import harness  # noqa: E402
from cockpit.core.agent.approval import Decision  # noqa: E402
from cockpit.core.settings import Settings  # noqa: E402
from cockpit.ui.main_window import MainWindow  # noqa: E402


def main():
    ap = harness.Arguments(__doc__, quick={"runs": 1})
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--select-steps", action="store_true",
                    help="also click through every recorded step while the run goes (the reviewer's path)")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    w = MainWindow(settings=Settings(annotator="bench"), demo=True)
    w.resize(1280, 800)
    w.show()
    gaps: list[float] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.nsecsElapsed()]
    marks: list[tuple[float, str]] = []  # (ms, what happened) to explain long gaps
    long_gaps: list[tuple[float, float]] = []

    def beat():
        now = clock.nsecsElapsed()
        gap = (now - last[0]) / 1e6
        gaps.append(gap)
        if gap > 50:
            long_gaps.append((last[0] / 1e6, gap))
        last[0] = now
    w.bridge.event.connect(lambda e: marks.append((clock.nsecsElapsed() / 1e6, type(e).__name__)))
    w.bridge.stateChanged.connect(lambda st: marks.append((clock.nsecsElapsed() / 1e6, f"state {st}")))
    heart = QTimer(interval=5)
    heart.timeout.connect(beat)
    w.bridge.approvalRequested.connect(lambda req: QTimer.singleShot(  # an answer names its request (issue #17)
        50, lambda: w.bridge.answer_approval(Decision(True, "human:bench", key=req.key))))
    if args.select_steps:
        w.bridge.event.connect(lambda e: type(e).__name__ == "StepFinished" and QTimer.singleShot(
            0, lambda s=e.step: w.live.log_panel.select_step(s)))
    done = {"runs": 0}
    t0 = time.monotonic()

    def next_run():
        if done["runs"] >= args.runs:
            heart.stop()
            app.quit()
            return
        done["runs"] += 1
        w.start_run()
    w.bridge.runEnded.connect(lambda _r: (marks.append((clock.nsecsElapsed() / 1e6, "runEnded")), QTimer.singleShot(100, next_run)))
    def start_heart():
        last[0] = clock.nsecsElapsed()
        heart.start()
    # After the first paint and the browser's warm-up (the window starts it when it opens): the runs only.
    QTimer.singleShot(3000, start_heart)
    QTimer.singleShot(3010, next_run)
    app.exec()
    wall = time.monotonic() - t0
    steps = w.live.log_panel.topLevelItemCount()
    w.close()
    gaps = sorted(gaps)
    s = harness.summary(gaps)
    print(f"{args.runs} demo runs ({steps} steps in the last), {wall:.1f} s, {len(gaps)} heartbeats of 5 ms"
          + (", selecting each step as it finished" if args.select_steps else ""))
    print(f"event-loop gap: median {s['median']:.1f} ms, p99 {s['p99']:.1f} ms, max {s['max']:.1f} ms")
    print("longest gaps:", ", ".join(f"{g:.0f}" for g in gaps[-8:]), "ms")
    for start, gap in long_gaps:
        during = [m for t, m in marks if start - 5 <= t <= start + gap + 1] or ["(no event)"]
        print(f"  {gap:.0f} ms gap at {start / 1000:.2f} s while handling: {', '.join(during[:6])}")
    harness.write_json(args.json, {"runs": args.runs, "steps_last_run": steps, "wall_s": wall, "gap_ms": s,
                                   "long_gaps": [{"at_s": t / 1000, "ms": g} for t, g in long_gaps]})


if __name__ == "__main__":
    main()
