"""`cockpit import webvoyager DIR | mind2web DIR | browser-use PATH | bundle FILE | labels FILE`: bring runs and
labels into the store (cockpit.core.review.importing, as the window's File → Import runs… does)."""
from __future__ import annotations

import sys
from pathlib import Path

from cockpit.cli import common

HELP = ("bring in WebVoyager run folders (webvoyager: made by WebVoyager or by `cockpit export`), Online-Mind2Web "
        "result folders (mind2web: any agent's), browser-use histories (browser-use), a bundle (bundle) or a label "
        "export (labels)")
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
`labels-csv`): the labels merge the same way; their runs must be in the store. labels human_label.json
(Online-Mind2Web's published human labels: per task, <agent>_human_label 0 fail, 1 success, 2 not executable):
each label goes to the runs of that task id whose model is that agent (as --agent named it when the runs were
imported; case, spaces, _ and - do not matter), under the annotator --annotator names (default
online-mind2web); entries no run matches are listed as unmatched. A bundle or label file that
is damaged, altered or does not fit the store is refused with the reason, and nothing is changed. A path that
holds nothing of the kind asked for is refused (exit 2) with the layout that kind expects, and the kind the path
holds where it holds another. Exit 1 when some folders could not be imported (listed; importing again retries
them)."""


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
    p.add_argument("--annotator", metavar="NAME", default="",
                   help="labels from human_label.json: the annotator they are stored under (default online-mind2web)")
    p.add_argument("--task", metavar="TEXT", default="",
                   help="browser-use: the task the history was for (its file does not hold it)")
    p.add_argument("--answers", type=Path, metavar="FILE", help="webvoyager: WebVoyager reference answers JSON")


def run(args) -> int:
    problem = _misplaced_option(args)
    if problem:
        return common.fail(problem, 2)
    from cockpit.core.errors import CockpitError
    from cockpit.core.review.importing import ImportRequest, run_import
    from cockpit.core.store import Store
    req = ImportRequest(args.format, args.dir, tasks=args.tasks, answers=args.answers, agent=args.agent,
                        task=args.task, annotator=args.annotator)
    try:
        with Store() as store:
            result = run_import(store, req, progress=_progress,
                                warn=lambda text: print(f"warning: {text}", file=sys.stderr))
    except CockpitError as e:
        return common.fail(str(e), 2)
    except OSError as e:  # the folder itself cannot be read
        what = f"cannot read {e.filename or args.dir}: {e.strerror or e}"
        return common.fail(what + ("; nothing was imported" if args.format in ("bundle", "labels") else ""), 2)
    if sys.stderr.isatty() and result.total and args.format not in ("bundle", "labels"):
        print(file=sys.stderr)
    for p in result.problems[:200]:
        print(f"warning: {p}", file=sys.stderr)
    for f in result.failed:
        common.fail(f)
    print(result.headline)
    for line in result.skipped[:200]:  # "<path>: already imported as run <id>"
        print(f"  skipped {line}")
    for line in result.details:
        print(line)
    if args.format == "webvoyager":
        for rid in result.imported:
            print(rid)
    return result.exit_code


def _misplaced_option(args) -> str | None:
    """Why an option does not go with this kind, or None."""
    if args.annotator and (args.format != "labels" or args.dir.suffix.lower() != ".json"):
        return "--annotator is for `cockpit import labels human_label.json` (Online-Mind2Web's human labels)"
    if args.format in ("mind2web", "browser-use"):
        if args.answers:
            return "--answers is for `cockpit import webvoyager`"
        if args.format == "mind2web" and args.task:
            return "--task is for `cockpit import browser-use` (mind2web folders hold their task)"
        if args.format == "browser-use" and args.tasks:
            return "--tasks is for `cockpit import mind2web` (give a browser-use history's task with --task)"
        return None
    if args.task:
        return "--task is for `cockpit import browser-use`"
    if args.agent:
        return "--agent is for `cockpit import mind2web`"
    if args.format != "webvoyager" and (args.tasks or args.answers):
        return "--tasks and --answers are for `cockpit import webvoyager`"
    return None


def _progress(i: int, n: int, folder) -> None:
    if sys.stderr.isatty():
        print(f"\rimporting {i}/{n}", end="", file=sys.stderr, flush=True)
