"""`cockpit adjudicate list | set`: settle disagreements between annotators, or between them and a judge."""
from __future__ import annotations

from cockpit.cli import common

HELP = "list runs where annotators (or annotators and a judge) disagree, and set their adjudicated verdicts"
DESCRIPTION = HELP + """. list: each run where the annotators gave both success and fail, or where their
consensus (the majority; unsure left out) and a judge's verdict differ, with every annotator's and judge's
verdict and reason side by side, and the adjudicated verdict when there is one. set: records a run's
adjudicated verdict, its reason and who decided (setting it again replaces it). `cockpit agreement` then
reports the judges against the adjudicated verdicts as well: the adjudicated verdict replaces the
consensus where there is one, and the success rates use it."""


def add_parser(sub) -> None:
    p = sub.add_parser("adjudicate", help=HELP, description=DESCRIPTION)
    s = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    ls = s.add_parser("list", help="runs to adjudicate, verdicts and reasons side by side")
    ls.add_argument("--batch", metavar="NAME", help="only the runs of this annotation batch")
    ls.add_argument("--open", action="store_true", help="leave out runs already adjudicated")
    st = s.add_parser("set", help="record a run's adjudicated verdict")
    st.add_argument("run", metavar="RUN", help="run id (or a unique prefix)")
    st.add_argument("--verdict", required=True, choices=("success", "fail"))
    st.add_argument("--reason", required=True, metavar="TEXT", help="the rationale")
    st.add_argument("--by", required=True, metavar="NAME", help="who adjudicated")


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
    before = consensus(store).get(rid)
    set_adjudication(store, rid, args.verdict, args.reason, args.by)
    was = "no consensus (a tie or no labels)" if before is None else f"consensus {NAMES[before]}"
    print(f"{rid}: adjudicated {args.verdict} by {args.by} (the annotators' {was})")
    return 0


def _list(store, args) -> int:
    from cockpit.core.review.to_adjudicate import to_adjudicate
    rows = [r for r in to_adjudicate(store, args.batch) if not (args.open and r["adjudication"])]
    if not rows:
        print("nothing to adjudicate")
        return 0
    for r in rows:
        why = [w for w, on in (("annotators disagree", r["annotators_disagree"]),
                               ("a judge disagrees with the consensus", r["judge_disagrees"])) if on]
        cons = {1: "success", 0: "fail", None: "none (tie)"}[r["consensus"]]
        print(f"{r['run_id']}  {(r['task'] or '')[:70]}")
        print(f"    {'; '.join(why)}; consensus {cons}")
        for name, lab in r["labels"].items():
            extra = ": ".join(x for x in (lab["category"], lab["comment"]) if x)
            print(f"    {name:<14} {lab['verdict']:<9} {_one_line(extra)}")
        for j in r["judges"]:
            who = f"{j['judge']} k={j['k_label']}"
            print(f"    {who:<14} {j['verdict']:<9} {_one_line(j['reason'])}")
        a = r["adjudication"]
        if a:
            print(f"    adjudicated    {a['verdict']:<9} {_one_line(a['reason'])} (by {a['by']})")
    return 0


def _one_line(text: str, width: int = 100) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[:width - 1] + "…"
