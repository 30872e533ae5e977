"""`cockpit adjudicate list | set`: settle disagreements between annotators, or between them and a judge; a
batch's QA reviewer goes over all its runs."""
from __future__ import annotations

from cockpit.cli import common

HELP = "list runs where annotators (or annotators and a judge) disagree, and set their adjudicated verdicts"
DESCRIPTION = HELP + """. list: each run where the annotators gave two of success, fail and not executable, or
where their consensus (the majority; unsure left out) and a judge's verdict differ, with every annotator's and
judge's verdict and reason side by side, each annotator's key-point ticks (key point N met at step S), and the
adjudicated verdict when there is one; with --batch and --qa, every run of the batch (the QA reviewer's pass,
`cockpit annotate assign --qa`). set: records a run's adjudicated verdict (success, fail, or not_executable with
--why), its reason and who decided, and with --met the final key points (setting it again replaces it).
`cockpit agreement` then reports the judges against the adjudicated verdicts as well: the adjudicated verdict
replaces the consensus where there is one, and the success rates use it; a run adjudicated not executable is
reported apart, never as a failure. Exports (labels-om2w, bundles) carry the adjudicated verdict."""


def add_parser(sub) -> None:
    p = sub.add_parser("adjudicate", help=HELP, description=DESCRIPTION)
    s = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    ls = s.add_parser("list", help="runs to adjudicate, verdicts and reasons side by side")
    ls.add_argument("--batch", metavar="NAME", help="only the runs of this annotation batch")
    ls.add_argument("--open", action="store_true", help="leave out runs already adjudicated")
    ls.add_argument("--qa", action="store_true", help="with --batch: every run of the batch, not only disputed ones")
    st = s.add_parser("set", help="record a run's adjudicated verdict")
    st.add_argument("run", metavar="RUN", help="run id (or a unique prefix)")
    st.add_argument("--verdict", required=True, choices=("success", "fail", "not_executable"))
    st.add_argument("--reason", required=True, metavar="TEXT", help="the rationale")
    st.add_argument("--why", default="", metavar="TEXT", help="with not_executable: why the task could not be "
                    "attempted (CAPTCHA, 'Site down', 'Login wall', 'Blocked region' or your own words)")
    st.add_argument("--by", required=True, metavar="NAME", help="who adjudicated")
    st.add_argument("--met", action="append", metavar="N:STEP", help="final key points: key point N was met at "
                    "step STEP (repeat for each met one; the others are not met); --met none: none was met")


def run(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.store import Store
    try:
        with Store() as store:
            if args.action == "set":
                return _set(store, args)
            return _list(store, args)
    except CockpitError as e:
        return common.fail(str(e), 2)


def _set(store, args) -> int:
    from cockpit.core.review.consensus import NAMES, consensus
    from cockpit.core.store.adjudications import set_adjudication
    rid = store.resolve(args.run)
    if args.why and args.verdict != "not_executable":
        return common.fail("--why goes with --verdict not_executable", 2)
    points = _final_points(store, rid, args.met) if args.met else None
    before = consensus(store).get(rid)
    set_adjudication(store, rid, args.verdict, args.reason, args.by, category=args.why, key_points=points)
    was = "no consensus (a tie or no labels)" if before is None else f"consensus {NAMES[before]}"
    what = args.verdict.replace("_", " ") + (f" ({args.why.strip()})" if args.why.strip() else "")
    met = "" if points is None else f"; key points: {sum(p['step'] is not None for p in points)} of {len(points)} met"
    print(f"{rid}: adjudicated {what} by {args.by}{met} (the annotators' {was})")
    return 0


def _final_points(store, rid: str, met: list[str]) -> list[dict]:
    """--met N:STEP ... as the final key points of the run (all of its key points, met or not)."""
    from cockpit.core.errors import CockpitError
    from cockpit.core.review.key_points import of_run
    points = of_run(store, store.run(rid)).points
    if not points:
        raise CockpitError(f"run {rid} has no key points to settle (type them in Review with K, or judge it with "
                           "WebJudge)")
    steps: dict[int, int] = {}
    for item in met:
        if item.strip().lower() == "none":
            continue
        n, _, step = item.partition(":")
        if not (n.strip().isdigit() and step.strip().isdigit() and 1 <= int(n) <= len(points)):
            raise CockpitError(f"--met wants N:STEP with N from 1 to {len(points)} (the run's key points) and a "
                               f"step number, not {item!r}")
        steps[int(n) - 1] = int(step)
    return [{"position": i, "point": p, "step": steps.get(i)} for i, p in enumerate(points)]


def _list(store, args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.review.to_adjudicate import to_adjudicate
    if args.qa and not args.batch:
        raise CockpitError("--qa goes with --batch NAME: the batch whose runs the QA reviewer goes over")
    rows = [r for r in to_adjudicate(store, args.batch, every=args.qa) if not (args.open and r["adjudication"])]
    if not rows:
        print("nothing to adjudicate")
        return 0
    for r in rows:
        why = [w for w, on in (("annotators disagree", r["annotators_disagree"]),
                               ("a judge disagrees with the consensus", r["judge_disagrees"])) if on]
        ne = sum(lab["verdict"] == "not_executable" for lab in r["labels"].values())
        cons = {1: "success", 0: "fail", None: "not executable" if 2 * ne > len(r["labels"]) else "none (tie)"}[
            r["consensus"]]
        print(f"{r['run_id']}  {(r['task'] or '')[:70]}")
        print(f"    {'; '.join(why) or 'no disagreement'}; consensus {cons}")
        for name, lab in r["labels"].items():
            extra = ": ".join(x for x in (lab["category"], lab["comment"]) if x)
            print(f"    {name:<14} {lab['verdict']:<9} {_one_line(extra)}")
        for j in r["judges"]:
            who = f"{j['judge']} k={j['k_label']}"
            print(f"    {who:<14} {j['verdict']:<9} {_one_line(j['reason'])}")
        _print_key_points(r)
        a = r["adjudication"]
        if a:
            what = a["verdict"] + (f" ({a['category']})" if a.get("category") else "")
            print(f"    adjudicated    {what:<9} {_one_line(a['reason'])} (by {a['by']})")
    return 0


def _print_key_points(r: dict) -> None:
    """The run's key points, then each annotator's ticks and the final ones: 'ada  2 of 3 met: 1@3 3@5'."""
    from cockpit.core.store.adjudications import final_key_points
    points = r["key_points"]
    if not points:
        return
    print("    key points: " + "; ".join(f"{i + 1}. {_one_line(p, 60)}" for i, p in enumerate(points)))
    rows = [(name, ticks) for name, ticks in sorted(r["ticks"].items())]
    final = final_key_points(r["adjudication"])
    if final is not None:
        rows.append(("final", {p["position"]: p["step"] for p in final if p.get("step") is not None}))
    for name, ticks in rows:
        met = " ".join(f"{i + 1}@{step}" for i, step in sorted(ticks.items()))
        print(f"    {name:<14} {len(ticks)} of {len(points)} met" + (f": {met}" if met else ""))


def _one_line(text: str, width: int = 100) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[:width - 1] + "…"
