"""Recording the web with every run (issue #41): what it costs, how big it is, and how faithful a replay from
it is on a real app that changed since.

    .venv/bin/python -m bench.webrecord [--parts cost,size,fidelity] [--quick] [--json FILE]

cost      the demo shop, recording on and off taking turns in one bench run: each step's time outside the model
          call (target: on <= 10 % more than off, median), and the archive's size per step there;
          --model-delay S gives the loopback model a thinking time (the page snapshot is taken meanwhile)
size      the archive's size per step on the grounding bench's real apps (bench.apps install first):
          median and p95 (target: median <= 1 MB per step)
fidelity  Datasette (PyPI) serving a shop: recorded runs, then the data reseeded (prices, order, a renamed and a
          new product), each run branched at its last step live and as recorded: the share that reaches it with
          the same marks and a near-identical screenshot (target: 100 % recorded); and the requests that left a
          browser during recorded replays, counted by a proxy that forwards nothing (target: 0)
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from bench import harness
from bench.apps import APPS_DIR


def main(argv=None) -> int:
    ap = harness.Arguments(__doc__, repeats=3, repeats_help="cost: rounds of a run on and a run off (default 3)",
                           quick={"repeats": 1, "steps": 6, "runs": 2, "app_steps": 3})
    ap.add_argument("--parts", default="cost,size,fidelity", help="which parts, comma-separated")
    ap.add_argument("--steps", type=int, default=15, help="cost: steps per run (default 15)")
    ap.add_argument("--model-delay", type=float, default=0.0, metavar="S",
                    help="cost: the loopback model's thinking time per call (default 0: instant)")
    ap.add_argument("--runs", type=int, default=8, help="fidelity: recorded runs (default 8)")
    ap.add_argument("--app-steps", type=int, default=6, help="size: steps per real app (default 6)")
    ap.add_argument("--apps", default="", help="size: which apps (default all of bench/grounding's)")
    args = ap.parse_args(argv)
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    results = {}
    with tempfile.TemporaryDirectory(prefix="webrecord-bench-") as tmp:
        if "cost" in parts:
            from bench.webrecord import cost
            results["cost"] = cost.report(cost.measure(Path(tmp) / "cost", args.repeats, args.steps,
                                                       args.model_delay), args.model_delay)
        if "size" in parts:
            from bench.webrecord import apps_size
            sizes = apps_size.measure(Path(tmp) / "size", args.app_steps,
                                      [a for a in args.apps.split(",") if a] or None)
            table = harness.Table(("app", "app", "<12"), ("steps", "steps", ">5d"),
                                  ("median_kb", "median", ">8.1f", "kB"), ("p95_kb", "p95", ">8.1f", "kB"))
            print("archive per step on the grounding bench's real apps:")
            print(table.header())
            every = []
            for name, vals in sizes.items():
                s = harness.summary(vals)
                every += vals
                print(table.row(name, len(vals), s["median"] / 1e3, s["p95"] / 1e3))
            s = harness.summary(every)
            print(table.row("all", len(every), s["median"] / 1e3, s["p95"] / 1e3) + "   (target median <= 1000 kB)")
            results["size"] = {"rows": table.rows}
        if "fidelity" in parts:
            from bench.webrecord import fidelity
            results["fidelity"] = fidelity.report(fidelity.measure(Path(tmp) / "fidelity", args.runs,
                                                                   APPS_DIR / "webrecord"))
    harness.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
