"""Observation cost against a raw CDP screenshot, on synthetic pages.

For pages of 100 / 1,000 / 5,000 / 20,000 elements (cockpit.devtools.pagegen),
times a full observation (marking script + screenshot + overlay drawn and
encoded as the image the model is sent + element text) and a raw CDP
Page.captureScreenshot alone, in alternating order, and prints medians and the
ratio. Targets (issue #2): <= 1.5x at 1,000 elements, <= 3x at 20,000.

The model is sent a JPEG by default (--image-format png: as WebVoyager, PNG).
The lossless PNG kept for review is encoded afterwards, off the observation's
path (the agent does it while the model is thinking); its time is shown apart
as "kept png" and is not in the ratio. bench/step_bench.py measures the whole
step, that included.

    .venv/bin/python bench/observe_bench.py [--repeats 15] [--sizes 100,1000,5000,20000] [--image-format jpeg]
"""
from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cockpit.core.browser import BrowserSession  # noqa: E402
from cockpit.core.localserver import LocalSite  # noqa: E402
from cockpit.core.observation import observe  # noqa: E402
from cockpit.devtools import pagegen  # noqa: E402


def raw_screenshot(b: BrowserSession) -> bytes:
    res = b.cdp("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
    return base64.b64decode(res["data"])


def full_observation(b: BrowserSession, image_format: str):
    obs = observe(b, image_format=image_format)
    _ = obs.element_text
    return obs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--sizes", default="100,1000,5000,20000")
    ap.add_argument("--image-format", choices=("jpeg", "png"), default="jpeg",
                    help="how the model is sent the marked screenshot (default jpeg, as the agent does)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    root = Path(tempfile.mkdtemp(prefix="cockpit-bench-"))
    for n in sizes:
        (root / f"p{n}.html").write_text(pagegen.generate(n))
    print(f"{'elements':>9} {'marks':>6} {'raw ms':>8} {'observe ms':>11} {'ratio':>6}   "
          f"(observe = marks + screenshot + overlay as {args.image_format}; medians of {args.repeats})")
    with LocalSite(root) as site, BrowserSession() as b:
        for n in sizes:
            b.goto(site.url(f"p{n}.html"))
            for _ in range(3):  # warm up
                raw_screenshot(b)
                full_observation(b, args.image_format)
            raw, full, parts, kept = [], [], [], []
            for i in range(args.repeats):
                order = (0, 1) if i % 2 == 0 else (1, 0)
                for which in order:
                    t = time.perf_counter()
                    if which == 0:
                        raw_screenshot(b)
                        raw.append((time.perf_counter() - t) * 1000)
                    else:
                        obs = full_observation(b, args.image_format)
                        full.append((time.perf_counter() - t) * 1000)
                        parts.append(obs.timings)
                        t = time.perf_counter()
                        obs.render()  # the PNG kept for review, off the observation's path
                        kept.append((time.perf_counter() - t) * 1000)
            r, f = statistics.median(raw), statistics.median(full)
            phase = {k: statistics.median(p[k] for p in parts) for k in parts[0]}
            print(f"{n:>9} {len(obs.marks):>6} {r:>8.1f} {f:>11.1f} {f / r:>6.2f}   "
                  + "  ".join(f"{k[:-3]} {v:.1f}" for k, v in phase.items())
                  + f"   (kept png {statistics.median(kept):.1f})")


if __name__ == "__main__":
    main()
