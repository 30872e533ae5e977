"""Importing 300 Online-Mind2Web result folders (issue #28), then listing them in Review.

Writes N folders (default 300) of S steps (default 15) in ABP's published layout (v1 result.json with pixel
action strings and thoughts; trajectory/<k>_full_screenshot.png), each screenshot a real-size 1280x720 PNG
(a page-like picture, about 100-200 KB), imports them with `import_mind2web` into a fresh store, and opens
the real Review panel (offscreen) on it, timing until its runs list holds them all and the first run's
first screenshot is on screen.

    .venv/bin/python -m bench.import_bench [--runs 300] [--steps 15] [--quick] [--json FILE]
"""
from __future__ import annotations

import io
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw

from bench import harness
from cockpit.core.store import Store
from cockpit.core.store.m2w_import import import_mind2web

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the Review panel, below

WORDS = "baggage allowance economy class flight search results price total order account help menu".split()
ACTIONS = ["Navigate to https://www.example.com/", "Click at ({x}, {y})", 'Type "query {i}"', "Press ENTER",
           "Scroll (delta_x=0, delta_y=550)", "Hover at ({x}, {y})"]


def screenshots(n: int, seed: int = 7) -> list[bytes]:
    """N distinct page-like 1280x720 PNGs: bars, boxes, text-like noise rows (they compress as pages do)."""
    rnd = random.Random(seed)
    out = []
    for k in range(n):
        im = Image.new("RGB", (1280, 720), "white")
        d = ImageDraw.Draw(im)
        d.rectangle([0, 0, 1280, 64], fill=(20 + k % 40, 60, 120))
        for row in range(96, 700, 22):  # text lines, antialiased as a browser draws them
            d.text((40, row), " ".join(rnd.choice(WORDS) for _ in range(18)), fill=(30, 30, 30))
        for _ in range(1):  # a picture (a product photo, a banner): what makes real screenshots heavy
            photo = Image.effect_noise((240, 150), 40 + k).convert("RGB").resize((320, 200))
            im.paste(photo, (rnd.randint(0, 900), rnd.randint(80, 500)))
        buf = io.BytesIO()
        im.save(buf, "PNG")
        out.append(buf.getvalue())
    return out


def write_folders(root: Path, runs: int, steps: int) -> int:
    shots = screenshots(24)
    total = 0
    for r in range(runs):
        d = root / f"{r:032x}"
        (d / "trajectory").mkdir(parents=True)
        actions = [ACTIONS[i % len(ACTIONS)].format(x=100 + i * 7, y=80 + i * 5, i=i) for i in range(steps)]
        (d / "result.json").write_text(json.dumps({
            "task_id": d.name, "task": f"Task {r}: find something on example.com", "final_result_response": f"answer {r}",
            "result_status": "success" if r % 3 else "error", "action_history": actions,
            "thoughts": [f"Step {i}: I will {a.split(' ')[0].lower()}." for i, a in enumerate(actions)]}))
        for i in range(steps):
            data = shots[(r + i) % len(shots)]
            (d / "trajectory" / f"{i + 1}_full_screenshot.png").write_bytes(data)
            total += len(data)
    return total


def review_list_seconds(store: Store, runs: int) -> tuple[float, float]:
    from PySide6.QtWidgets import QApplication

    from cockpit.ui.review.panel import ReviewPanel
    app = QApplication.instance() or QApplication(sys.argv[:1])
    t0 = time.perf_counter()
    panel = ReviewPanel(store, annotator="bench")
    panel.resize(1280, 800)
    panel.show()
    model = panel.browser.model
    while not (model.total >= runs and model.rowCount() > 0):  # all counted, the first page shown
        app.processEvents()
        if time.perf_counter() - t0 > 120:
            break
    listed = time.perf_counter() - t0
    panel.browser.table.selectRow(0)
    panel.go(1)  # step 2: ABP's layout shoots the page after each action, so step 1 has no screenshot
    while not panel.viewer.view.has_screenshot() and time.perf_counter() - t0 < 120:
        app.processEvents()
        time.sleep(0.002)
    shown = time.perf_counter() - t0
    panel.close()
    return listed, shown


def main() -> int:
    ap = harness.Arguments(__doc__, quick={"runs": 20, "steps": 5})
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--steps", type=int, default=15)
    args = ap.parse_args()
    out = {"runs": args.runs, "steps": args.steps}
    with tempfile.TemporaryDirectory() as tmp:
        src, home = Path(tmp) / "results", Path(tmp) / "home"
        t0 = time.perf_counter()
        size = write_folders(src, args.runs, args.steps)
        out.update(screenshot_bytes=size, write_s=time.perf_counter() - t0)
        print(f"wrote {args.runs} folders of {args.steps} steps, {size / 1e6:.0f} MB of screenshots "
              f"({size / (args.runs * args.steps) / 1e3:.0f} KB each) in {time.perf_counter() - t0:.1f} s")
        with Store(home) as store:
            t0 = time.perf_counter()
            report = import_mind2web(store, src, agent="bench")
            took = time.perf_counter() - t0
            out.update(imported=len(report.imported), failed=len(report.failed), import_s=took)
            print(f"import: {len(report.imported)} runs, {len(report.failed)} failed, in {took:.1f} s "
                  f"({took / max(1, len(report.imported)) * 1000:.0f} ms per run)")
            t0 = time.perf_counter()
            again = import_mind2web(store, src, agent="bench")
            out.update(skipped_again=len(again.skipped), import_again_s=time.perf_counter() - t0)
            print(f"import again: {len(again.skipped)} skipped in {out['import_again_s']:.2f} s")
            listed, shown = review_list_seconds(store, len(report.imported))
            out.update(review_listed_s=listed, review_shown_s=shown)
            print(f"Review: runs listed in {listed:.2f} s, a run's first screenshot on screen at {shown:.2f} s")
    harness.write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
