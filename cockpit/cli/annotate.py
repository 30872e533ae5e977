"""`cockpit annotate assign | qa | status | next | label`: annotation batches, their QA reviewer, each annotator's
queue and progress, and labelling a run from the command line."""
from __future__ import annotations

from pathlib import Path

from cockpit.cli import common
from cockpit.core.words import plural

HELP = ("annotation batches: assign runs to annotators, name a qa reviewer, see their status (progress) and each "
        "one's next run; label a run")
DESCRIPTION = HELP + """. assign: makes a batch (a name, its runs, N annotators per run, a guideline
text) and deals the runs in the order given (all: every finished run, oldest first), each run to the N
annotators with the fewest runs so far, so everyone gets as many runs as the others, give or take one;
the same command always deals the same way. A batch is made once; give a new one another name. --qa NAME (or
qa later) names the batch's QA reviewer, Online-Mind2Web's fourth person: they see every annotator's labels and
key-point ticks on each run of the batch and adjudicate its final verdict and key points (`cockpit adjudicate
list --batch NAME --qa`, or Review's To adjudicate under their name). status:
per annotator, runs labelled / assigned and the median seconds spent per labelled run (from the labels).
next: the annotator's next assigned run they have not labelled (any verdict counts, unsure too).
With --blind, the reports hide the judge's verdicts and the agent's own claim (its answer and status)
from an annotator on a run of the batch until they have labelled it (`cockpit export RUN --format html
--annotator NAME`). label: one annotator's label of one run on AgentRewardBench's three questions: success
(success / fail / unsure, with a failure category; or not_executable, Online-Mind2Web's third label: the task
could not be attempted, with --reason), side effects and repetition (yes / no / unsure); an
answer left out keeps what that annotator said before.""" 


def add_parser(sub) -> None:
    p = sub.add_parser("annotate", help=HELP, description=DESCRIPTION)
    s = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = s.add_parser("assign", help="make a batch and deal its runs to the annotators", description=DESCRIPTION)
    a.add_argument("--batch", required=True, metavar="NAME", help="the batch's name")
    a.add_argument("--runs", required=True, nargs="+", metavar="RUN",
                   help="run ids (or unique prefixes), or all: every finished run")
    a.add_argument("--annotators", required=True, metavar="A,B,C", help="the annotators' names, comma-separated")
    a.add_argument("--per-run", type=int, default=1, metavar="N", help="annotators per run (default 1)")
    a.add_argument("--guideline", type=Path, metavar="FILE", help="the labelling guideline, a text file")
    a.add_argument("--blind", action="store_true",
                   help="blind batch: reports hide the judge's verdicts and the agent's own claim until labelled")
    a.add_argument("--qa", default="", metavar="NAME", help="the batch's QA reviewer, who adjudicates every run")
    qa = s.add_parser("qa", help="name a batch's QA reviewer (who adjudicates its runs)")
    qa.add_argument("--batch", required=True, metavar="NAME")
    qa.add_argument("--reviewer", required=True, metavar="NAME", help="the QA reviewer ('' names none)")
    st = s.add_parser("status", help="per annotator: runs done / assigned, median seconds per run")
    st.add_argument("--batch", metavar="NAME", help="only this batch (default: all batches together)")
    n = s.add_parser("next", help="the annotator's next unlabelled assigned run")
    n.add_argument("--annotator", required=True, metavar="NAME")
    n.add_argument("--batch", metavar="NAME", help="only this batch")
    lab = s.add_parser("label", help="label a run: success, side effects, repetition", description=DESCRIPTION)
    lab.add_argument("run", metavar="RUN", help="a run id (or a unique prefix)")
    lab.add_argument("--annotator", required=True, metavar="NAME")
    lab.add_argument("--verdict", choices=("success", "fail", "unsure", "not_executable"),
                     help="did the agent complete the task? not_executable: the task could not be attempted "
                          "(needed for a first label of the run)")
    lab.add_argument("--category", default="", help="failure category (with --verdict fail)")
    lab.add_argument("--reason", default="", help="why the task could not be attempted (with --verdict "
                     "not_executable): CAPTCHA, Site down, Login wall, Blocked region, or your own words")
    lab.add_argument("--comment", default=None, help="a comment (default: keep the one there)")
    lab.add_argument("--side-effects", choices=("yes", "no", "unsure"),
                     help="did the agent change something nobody asked for?")
    lab.add_argument("--repetition", choices=("yes", "no", "unsure"), help="did the agent loop?")


def run(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.store import Store
    try:
        with Store() as store:
            return {"assign": _assign, "qa": _qa, "status": _status, "next": _next,
                    "label": _label}[args.action](store, args)
    except CockpitError as e:
        return common.fail(str(e), 2)
    except OSError as e:
        return common.fail(f"{e.filename}: {e.strerror or e}", 2)


def _assign(store, args) -> int:
    from cockpit.core.store.assignments import assign
    if args.runs == ["all"]:
        runs = [r["id"] for r in store.run_summaries() if r["status"] != "running"]
    else:
        runs = [store.resolve(r) for r in args.runs]
    guideline = args.guideline.read_text(encoding="utf-8") if args.guideline else ""
    dealt = assign(store, args.batch, runs, args.annotators.split(","), args.per_run, guideline, blind=args.blind,
                   qa=args.qa)
    print(f"batch {args.batch}: {plural(len(runs), 'run')}, {plural(args.per_run, 'annotator')} per run"
          + (", blind" if args.blind else "") + (f", guideline {args.guideline}" if args.guideline else "")
          + (f", QA reviewer {args.qa.strip()}" if args.qa.strip() else ""))
    for name, runs_of in dealt.items():
        print(f"  {name}: {plural(len(runs_of), 'run')}")
    return 0


def _qa(store, args) -> int:
    from cockpit.core.store.assignments import set_qa
    set_qa(store, args.batch, args.reviewer)
    name = args.reviewer.strip()
    print(f"batch {args.batch}: " + (f"QA reviewer {name}" if name else "no QA reviewer"))
    return 0


def _qa_line(store, batch: dict) -> str:
    """', QA reviewer cy (2 of 5 runs adjudicated)' for a batch with one."""
    from cockpit.core.store.adjudications import adjudications
    from cockpit.core.store.assignments import assignments
    if not batch.get("qa"):
        return ""
    runs = {a["run_id"] for a in assignments(store, batch["name"])}
    done = sum(a["run_id"] in runs for a in adjudications(store))
    return f", QA reviewer {batch['qa']} ({done} of {plural(len(runs), 'run')} adjudicated)"


def _status(store, args) -> int:
    from cockpit.core.store.assignments import batches, get_batch, progress
    if args.batch:
        get_batch(store, args.batch)
    rows = progress(store, args.batch)
    if not rows:
        print("no batches yet (see `cockpit annotate assign`)")
        return 0
    for b in batches(store):
        if not args.batch or b["name"] == args.batch:
            print(f"batch {b['name']}: {plural(b['runs'], 'run')}, {b['per_run']} per run" + (", blind" if b["blind"] else "")
                  + _qa_line(store, b))
    w = max(9, *(len(r.annotator) for r in rows))
    print(f"  {'annotator':<{w}} {'done':>5} {'assigned':>8} {'median s/run':>12}")
    for r in rows:
        med = "-" if r.median_seconds is None else f"{r.median_seconds:.1f}"
        print(f"  {r.annotator:<{w}} {r.done:>5} {r.assigned:>8} {med:>12}")
    return 0


def _next(store, args) -> int:
    from cockpit.core.store.assignments import get_batch, next_run, progress
    if args.batch:
        get_batch(store, args.batch)
    rid = next_run(store, args.annotator, args.batch)
    mine = [p for p in progress(store, args.batch) if p.annotator == args.annotator]
    if not mine:
        print(f"{args.annotator} has no runs assigned" + (f" in batch {args.batch}" if args.batch else ""))
        return 1
    done = f"{mine[0].done}/{mine[0].assigned} done"
    if rid is None:
        print(f"{args.annotator}: all assigned runs labelled ({done})")
        return 0
    run = store.run(rid)
    print(rid)
    print(f"  task: {run['task']}")
    print(f"  url:  {run['url'] or ''}")
    print(f"  {args.annotator}: {done}")
    return 0


def _label(store, args) -> int:
    from cockpit.core.store import labels as L
    rid = store.resolve(args.run)
    mine = L.labels(store, rid, args.annotator)
    before = mine[0] if mine else None
    verdict = args.verdict or (before["verdict"] if before else None)
    if verdict is None:
        return common.fail(f"{args.annotator} has not labelled {rid} yet: give --verdict success, fail, unsure "
                           "or not_executable", 2)
    keep = L.KEEP
    if args.category and verdict != "fail":
        return common.fail(f"--category goes with a failure; {rid} would be labelled {verdict}", 2)
    if args.reason and verdict != L.NOT_EXECUTABLE:
        return common.fail(f"--reason goes with not_executable; {rid} would be labelled {verdict}", 2)
    same = before is not None and verdict == before["verdict"]
    category = args.category or args.reason.strip() or (before["category"] if same else "")
    if verdict == L.NOT_EXECUTABLE and not category:
        return common.fail(f"say why {rid} could not be attempted: --reason CAPTCHA, 'Site down', 'Login wall', "
                           "'Blocked region' or your own words", 2)
    L.set_label(store, rid, args.annotator, verdict, category=category or "",
                comment=args.comment if args.comment is not None else (before["comment"] if before else ""),
                seconds=before["seconds"] if before else 0.0, blind=bool(before and before["blind"]),
                side_effects=args.side_effects or keep, repetition=args.repetition or keep)
    now = L.labels(store, rid, args.annotator)[0]
    print(f"{rid}: {args.annotator} says {now['verdict']}" + (f" ({now['category']})" if now["category"] else "")
          + f"; side effects: {now['side_effects'] or '-'}; repetition: {now['repetition'] or '-'}")
    return 0
