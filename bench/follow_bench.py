"""Review following another process's writes: what a poll costs the window's thread.

Builds a store of `--runs` finished runs (no steps: the list reads run rows) in a temp dir, opens the real
ReviewPanel (offscreen by default), and times on the GUI thread (issue #38, B7):

* a tick with nothing new (``PRAGMA data_version``): what a shown Review pays every 1.5 s;
* a tick after a second connection (as a `cockpit run` batch) changed a listed run (its answer): the same runs
  listed, only that row redrawn;
* a tick after that connection added a run: the list, the filters' choices and the queue read again, the
  selection and scroll kept (the model reset, as a filter change resets it).

    .venv/bin/python -m bench.follow_bench [--runs 10000] [--repeats 20] [--quick] [--json FILE]
"""
from __future__ import annotations

import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench import harness  # noqa: E402
from cockpit.core.store import Store  # noqa: E402
from cockpit.core.store.newrun import NewRun  # noqa: E402


def add_run(store: Store, i: int) -> str:
    rid = store.new_run(NewRun(f"Find item {i} in the shop", "https://example.com/", site=f"site {i % 40}",
                               model=f"model {i % 5}", run_id=f"bench-{i:06d}"))  # many a second: ids of their own
    store.finish_run(rid, "answered" if i % 3 else "failed", answer=f"item {i}")
    return rid


def main():
    ap = harness.Arguments(__doc__, quick={"runs": 500, "repeats": 5})
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from cockpit.ui.review.panel import ReviewPanel
    with tempfile.TemporaryDirectory() as home, Store(home) as store:
        with store.atomic():
            for i in range(args.runs):
                add_run(store, i)
        panel = ReviewPanel(store, annotator="bench")
        panel.resize(1280, 800)
        panel.show()
        QTest.qWaitForWindowExposed(panel)
        panel.watch.stop()  # ticked by hand below, timed
        panel.browser.table.selectRow(3)
        idle, changed, added = [], [], []
        for _ in range(args.repeats * 10):
            with harness.timed(idle):
                assert not panel.follow_store()
        with Store(home) as other:  # the batch's own connection
            shown = panel.browser.model.ids[:args.repeats]
            for i, rid in enumerate(shown):
                other.set_run(rid, answer=f"changed {i}")
                with harness.timed(changed):
                    assert panel.follow_store()
                app.processEvents()
            for i in range(args.repeats):
                add_run(other, args.runs + i)
                with harness.timed(added):
                    assert panel.follow_store()
                app.processEvents()
        listed = panel.browser.model.total
        panel.close()
    a, b, c = harness.summary(idle), harness.summary(changed), harness.summary(added)
    print(f"{args.runs:,} runs in the store; {listed:,} listed at the end")
    print(f"a tick, nothing new: median {a['median']:.2f} ms, p95 {a['p95']:.2f} ms ({len(idle)} ticks)")
    for what, t, n in (("changed a listed run", b, changed), ("added a run", c, added)):
        print(f"a tick after another connection {what}: median {t['median']:.1f} ms, p95 {t['p95']:.1f} ms, "
              f"max {t['max']:.1f} ms ({len(n)} ticks)")
    harness.write_json(args.json, {"runs": args.runs, "idle_ms": a, "changed_ms": b, "added_ms": c})


if __name__ == "__main__":
    main()
