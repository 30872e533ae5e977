"""`cockpit hops`: hop and task success of multihop runs (MMInA Tables 2 and 3)."""
from __future__ import annotations

from cockpit.cli import common

HELP = "hop success and task success of multihop (MMInA) runs, and the per-hop breakdown by task length"

DESCRIPTION = HELP + """. Only runs that tracked hops count (tasks whose file gave MMInA's procedure or
per-hop conditions, or a WebArena reference_url). Hops pass in order, so a run that passed k of its N hops
passed hops 1..k. Hop success rate = hops passed / hops; task success rate = runs with every hop passed / runs.
The table has one row per task length N and the share of those runs that passed hop 1, 2, ... N."""


def add_parser(sub) -> None:
    p = sub.add_parser("hops", help=HELP, description=DESCRIPTION)
    p.add_argument("runs", nargs="*", metavar="RUN", help="only these runs (ids or unique prefixes)")
    p.add_argument("--batch", metavar="ID", help="only the runs of this batch")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args) -> int:
    from cockpit.core.tasks.hop_report import hop_report
    return common.store_report(
        lambda store: hop_report(store, [store.resolve(r) for r in args.runs] if args.runs else None,
                                 batch=args.batch), print_report, args.json)


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def print_report(rep: dict) -> None:
    if not rep["runs"]:
        print("No multihop runs yet: run tasks whose file gives hop conditions (MMInA procedure, "
              "per-hop eval, or a WebArena reference_url).")
        return
    print(f"Runs {rep['runs']}   hops {rep['hops_passed']}/{rep['hops']} passed "
          f"(hop success {_pct(rep['hop_success_rate'])})   tasks {rep['tasks_passed']}/{rep['runs']} "
          f"fully passed (task success {_pct(rep['task_success_rate'])})")

    print("\nBy task length (MMInA Table 2 columns)")
    print(f"  {'length':<9} {'runs':>5} {'hop SR':>8} {'task SR':>8}")
    for b in rep["by_bucket"]:
        print(f"  {b['bucket']:<9} {b['runs']:>5} {_pct(b['hop_success_rate']):>8} "
              f"{_pct(b['task_success_rate']):>8}")

    rows = rep["by_length"]
    width = max(r["hops"] for r in rows)
    print("\nPer hop, by task length (MMInA Table 3: share of runs that passed hop k)")
    head = "".join(f"{_ordinal(k):>8}" for k in range(1, width + 1))
    print(f"  {'hops':>4} {'runs':>5} {'task SR':>8}{head}")
    for r in rows:
        cells = "".join(f"{_pct(x):>8}" for x in r["per_hop"]) + f"{'-':>8}" * (width - r["hops"])
        print(f"  {r['hops']:>4} {r['runs']:>5} {_pct(r['task_success_rate']):>8}{cells}")


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"
