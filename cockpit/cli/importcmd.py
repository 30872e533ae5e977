"""`cockpit import webvoyager DIR`: bring WebVoyager run folders into the store."""
from __future__ import annotations

import sys
from pathlib import Path

from cockpit.cli import common

HELP = "import WebVoyager run folders (made by WebVoyager or by `cockpit export`)"


def add_parser(sub) -> None:
    p = sub.add_parser("import", help=HELP, description=HELP + ". Every task* folder below DIR is read; "
                       "folders imported before are skipped; damaged files are reported and the rest kept.")
    p.add_argument("format", choices=("webvoyager",), help="what kind of folders")
    p.add_argument("dir", type=Path, help="a results folder, a timestamp folder or one task folder")
    p.add_argument("--tasks", type=Path, metavar="FILE", help="the task JSONL, to fill in tasks the folders lack")
    p.add_argument("--answers", type=Path, metavar="FILE", help="WebVoyager reference answers JSON")


def run(args) -> int:
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
