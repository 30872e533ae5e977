"""`cockpit import webvoyager DIR | mind2web DIR | bundle FILE | labels FILE`: bring runs and labels into the store."""
from __future__ import annotations

import sys
from pathlib import Path

from cockpit.cli import common

HELP = ("import WebVoyager run folders (made by WebVoyager or by `cockpit export`), Online-Mind2Web result "
        "folders (any agent's), a bundle, or a label export")
DESCRIPTION = HELP + """. webvoyager DIR: every task* folder below DIR is read; folders imported before
are skipped; damaged files are reported and the rest kept; each folder is imported whole or not at all.
mind2web DIR: every <task_id>/result.json folder below DIR (Online-Mind2Web's submission layout, v1 or v2,
as any harness writes it), with its trajectory/ screenshots; action strings kept verbatim, and drawn as a
point where Cockpit's grammar reads them; missing or Git LFS pointer screenshots leave their step without
one (counted); a harness's own verdict (judge score, result_status) becomes a judge verdict named
<agent>:<name>; --agent NAME says which agent made the runs (Review filters by it); --tasks
Online_Mind2Web.json gives the start URL, site, level and reference length. browser-use PATH: a history
file saved by browser-use (Agent.save_history / AgentHistoryList.save_to_file; the 0.1-0.2 shape with
base64 screenshots and the later one with screenshot files), or every such file below a folder; one step
per browser-use step, its actions as written, the task from --task or a result.json beside the file.
bundle FILE (from `cockpit export --format bundle`): its runs are added with their files; a run already
here with the same id and content is skipped, one with the same id and other content refuses the import;
labels merge per run and annotator, and where the same annotator labelled a run differently the newer
label is kept and reported. labels FILE (.jsonl or .csv from `cockpit export --format labels-jsonl` or
`labels-csv`): the labels merge the same way; their runs must be in the store. A bundle or label file that
is damaged, altered or does not fit the store is refused with the reason, and nothing is changed."""


def add_parser(sub) -> None:
    p = sub.add_parser("import", help=HELP, description=DESCRIPTION)
    p.add_argument("format", choices=("webvoyager", "mind2web", "browser-use", "bundle", "labels"),
                   help="what to import")
    p.add_argument("dir", type=Path, metavar="PATH",
                   help="webvoyager, mind2web: a results folder (or one task folder); bundle, labels: the file")
    p.add_argument("--tasks", type=Path, metavar="FILE",
                   help="webvoyager: the task JSONL, to fill in tasks the folders lack; mind2web: Online_Mind2Web.json")
    p.add_argument("--agent", metavar="NAME", default="",
                   help="mind2web, browser-use: the agent that made the runs (default for browser-use: "
                        "browser-use); recorded as the run's model")
    p.add_argument("--task", metavar="TEXT", default="",
                   help="browser-use: the task the history was for (its file does not hold it)")
    p.add_argument("--answers", type=Path, metavar="FILE", help="webvoyager: WebVoyager reference answers JSON")


def run(args) -> int:
    if args.format in ("mind2web", "browser-use"):
        return _mind2web(args)
    if args.task:
        return common.fail("--task is for `cockpit import browser-use`", 2)
    if args.agent:
        return common.fail("--agent is for `cockpit import mind2web`", 2)
    if args.format != "webvoyager":
        if args.tasks or args.answers:
            return common.fail("--tasks and --answers are for `cockpit import webvoyager`", 2)
        from cockpit.cli.importlabels import run_bundle_or_labels
        return run_bundle_or_labels(args)
    from cockpit.core.errors import CockpitError
    from cockpit.core.store import Store
    from cockpit.core.store.exchange import import_folders
    from cockpit.core.tasks.taskfile import load_reference_answers, load_tasks
    try:
        tf = load_tasks(args.tasks) if args.tasks else None
        for pr in tf.problems[:20] if tf else []:
            print(f"warning: {args.tasks}: {pr.message}", file=sys.stderr)
        tasks = {t.id: t for t in tf.tasks} if tf else {}
        answers = load_reference_answers(args.answers) if args.answers else {}
        with Store() as store:
            report = import_folders(store, args.dir, tasks=tasks, answers=answers, progress=_progress)
    except CockpitError as e:
        return common.fail(str(e), 2)
    except OSError as e:  # the folder itself cannot be read
        return common.fail(f"cannot read {e.filename or args.dir}: {e.strerror or e}", 2)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    for p in report.problems:
        print(f"warning: {p}", file=sys.stderr)
    for f in report.failed:
        common.fail(f)
    print(f"imported {len(report.imported)} runs, skipped {len(report.skipped)} already imported, "
          f"{len(report.problems)} problems" + (f", {len(report.failed)} folders NOT imported (see above; "
                                                "importing again retries them)" if report.failed else ""))
    for rid in report.imported:
        print(rid)
    return 1 if report.failed else 0


def _progress(i: int, n: int, folder) -> None:
    if sys.stderr.isatty():
        print(f"\rimporting {i}/{n}", end="", file=sys.stderr, flush=True)


def _mind2web(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.store import Store
    from cockpit.core.store.m2w_import import import_browser_use, import_mind2web, load_task_file
    if args.answers:
        return common.fail("--answers is for `cockpit import webvoyager`", 2)
    if args.format == "mind2web" and args.task:
        return common.fail("--task is for `cockpit import browser-use` (mind2web folders hold their task)", 2)
    if args.format == "browser-use" and args.tasks:
        return common.fail("--tasks is for `cockpit import mind2web` (give a browser-use history's task with --task)", 2)
    try:
        tasks = load_task_file(args.tasks) if args.tasks else {}
        with Store() as store:
            if args.format == "browser-use":
                report = import_browser_use(store, args.dir, task=args.task.strip(),
                                            agent=args.agent.strip() or "browser-use", progress=_progress)
            else:
                report = import_mind2web(store, args.dir, tasks=tasks, agent=args.agent.strip(), progress=_progress)
    except CockpitError as e:
        return common.fail(str(e), 2)
    except OSError as e:
        return common.fail(f"cannot read {e.filename or args.dir}: {e.strerror or e}", 2)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    for p in report.problems[:200]:
        print(f"warning: {p}", file=sys.stderr)
    for f in report.failed:
        common.fail(f)
    print(f"imported {len(report.imported)} runs, skipped {len(report.skipped)} already imported, "
          f"{report.missing_screenshots} steps without a screenshot, {report.unparsed_actions} actions kept verbatim "
          "only" + (f", {len(report.failed)} folders NOT imported (see above; importing again retries them)"
                    if report.failed else ""))
    return 1 if report.failed else 0
