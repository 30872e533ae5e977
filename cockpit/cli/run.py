"""`cockpit run`: run the agent on one task or a task file, headless."""
from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
from pathlib import Path

from cockpit.cli import common, lookahead
from cockpit.cli.progress import BatchCounter, StepPrinter, say, summary_table
from cockpit.core.words import plural

HELP = "run the agent on a task or a task file (headless)"


def add_parser(sub) -> None:
    p = sub.add_parser("run", help=HELP, description=(
        "Run the WebVoyager-style agent. Every step is recorded in the run store "
        "(see `cockpit runs`). With --tasks, tasks whose run already finished are skipped, "
        "so rerunning the same command resumes a batch."))
    what = p.add_argument_group("what to run")
    what.add_argument("--task", help="the task text")
    what.add_argument("--url", help="start URL (or a local HTML file, served on 127.0.0.1)")
    what.add_argument("--tasks", type=Path, metavar="FILE",
                      help="WebVoyager task JSONL, plain JSONL of {task, url}, or a WebArena/MMInA JSON file")
    what.add_argument("--ids", help="only these task ids (comma-separated)")
    what.add_argument("--sites", help="only tasks of these sites (web_name, comma-separated)")
    what.add_argument("--site", action="append", default=[], metavar="NAME=URL",
                      help="where a WebArena placeholder points (--site shopping=http://localhost:7770 for "
                           "__SHOPPING__), repeatable; without it the environment's SHOPPING, SHOPPING_ADMIN, "
                           "REDDIT, GITLAB, MAP, WIKIPEDIA and HOMEPAGE are used, as WebArena does")
    what.add_argument("--concurrency", type=int, default=1, metavar="N", help="browsers in parallel (default 1)")
    what.add_argument("--serve-host", default="127.0.0.1", metavar="HOST",
                      help="the address this machine serves local task pages on (default 127.0.0.1); with "
                           "--webdriver-url on other machines, one the Grid's nodes can reach")
    what.add_argument("--no-resume", action="store_true", help="run tasks again even if they finished before")
    what.add_argument("--keep-browser-state", action="store_true",
                      help="with --tasks: run each worker's tasks in one browser, so cookies, storage and log-ins "
                           "carry over from task to task (default: each task starts clean, as WebVoyager's driver per "
                           "task does: a new browser context in the worker's Chrome, else a new browser)")
    what.add_argument("--headless", action="store_true", help="no browser window (the default)")
    what.add_argument("--dry-run", action="store_true",
                      help="read the task file (or --task/--url), report its problems and what would run, and "
                           "stop: no browser, no model; exit status 1 if the file has problems")
    what.add_argument("--allow-domain", action="append", default=[], metavar="DOMAIN", dest="allow_domain",
                      help="only let the agent visit this domain (and its subdomains); repeat for more. The start "
                           "URL's host is always allowed; a task file's \"allowed_domains\" add to these")
    common.add_model_options(p)
    common.add_agent_options(p)
    lookahead.add_options(p)  # hook: world-model preview and planning
    common.add_browser_options(p)


def _tasks(args):
    from cockpit.core.tasks.task import Task
    from cockpit.core.tasks.taskfile import load_tasks, select
    if args.tasks:
        if args.task or args.url:
            raise SystemExit(common.fail("give either --tasks FILE or --task with --url, not both", 2))
        from cockpit.core.errors import CockpitError
        from cockpit.core.tasks.webarena_sites import parse_site
        try:
            sites = dict(parse_site(t) for t in args.site)
        except CockpitError as e:
            raise SystemExit(common.fail(str(e), 2)) from None
        tf = load_tasks(args.tasks, sites)
        _report_problems(args.tasks, tf)
        if not tf.tasks:
            why = ("the file is empty" if args.tasks.stat().st_size == 0 else
                   f"{plural(tf.problem_count, 'problem')}, see above" if tf.problems else "only blank lines")
            raise SystemExit(common.fail(f"no tasks in {args.tasks} ({why})", 2))
        args.problems, args.notes = tf.problem_count, tf.note_count
        ids = [i.strip() for i in args.ids.split(",")] if args.ids else None
        sites = [s.strip() for s in args.sites.split(",")] if args.sites else None
        sel = select(tf.tasks, ids=ids, sites=sites)
        for i in sel.unknown_ids:
            print(f"cockpit: {args.tasks}: no task with id {i!r}", file=sys.stderr)
        for site in sel.unknown_sites:
            print(f"cockpit: {args.tasks}: no task on site {site!r}", file=sys.stderr)
        chosen = sel.tasks
        if not chosen:
            raise SystemExit(common.fail(f"no task in {args.tasks} matches the selection", 2))
        return chosen, None
    if not (args.task and args.url):
        raise SystemExit(common.fail("give --task TEXT and --url URL, or --tasks FILE", 2))
    return [Task(id="", task=args.task, url=args.url)], args.url


SHOW_PROBLEMS = 20  # problems of a task file printed; the rest are counted


def _report_problems(path: Path, tf) -> None:
    """A task file's problems and notes (guessed schemes: the task is fine), the first SHOW_PROBLEMS of them."""
    listed = tf.problems[:-1] if tf.dropped else tf.problems  # the last one sums up those not listed
    for pr in listed[:SHOW_PROBLEMS]:
        print(f"cockpit: {path}: {pr.message}" + (" (a note, not a problem)" if pr.note else ""), file=sys.stderr)
    shown = listed[:SHOW_PROBLEMS]
    problems = tf.problem_count - sum(not p.note for p in shown)
    notes = tf.note_count - sum(p.note for p in shown)
    if problems or notes:
        more = " and ".join(([plural(problems, "more problem")] if problems else [])
                            + ([plural(notes, "more note")] if notes else []))
        in_all = _counts(tf.problem_count, tf.note_count) if tf.note_count else tf.problem_count
        print(f"cockpit: {path}: ... {more} ({in_all} in all; "
              "--dry-run checks a file without running it)", file=sys.stderr)


def _counts(problems: int, notes: int) -> str:
    return plural(problems, "problem") + (f", {plural(notes, 'note')}" if notes else "")


def _todo(args, tasks, quiet: bool = False) -> list:
    """The tasks a run would run: without those that finished before (unless --no-resume)."""
    from cockpit.core.errors import CockpitError
    from cockpit.core.store.db import open_for_reading
    done = set()
    if not args.no_resume:
        try:
            with open_for_reading() as store:
                done = store.done_tasks()
        except CockpitError as e:  # no store yet, or unreadable: say so, assume nothing finished
            if not quiet:
                print(f"cockpit: note: {e}; not checking which tasks finished before", file=sys.stderr)
    return [t for t in tasks if (t.id, t.task, t.url) not in done]


def _dry_run(args, tasks) -> int:
    todo = _todo(args, tasks)
    if args.tasks:
        size = args.tasks.stat().st_size
        shown = (f"{size / 2**20:.1f} MB" if size >= 2**20 else f"{size / 1024:.1f} KB" if size >= 1024
                 else plural(size, "byte"))
        print(f"{args.tasks} ({shown}): {plural(len(tasks), 'task')} selected, "
              f"{_counts(getattr(args, 'problems', 0), getattr(args, 'notes', 0))}")
    for t in todo[:10]:
        print(f"  {t.id or '(task)'}  {t.url}  {t.task[:80]}")
    if len(todo) > 10:
        print(f"  ... and {len(todo) - 10} more")
    print(f"would run {plural(len(todo), 'task')}" + (f", skip {len(tasks) - len(todo)} that finished before"
                                                        if len(todo) < len(tasks) else ""))
    return 1 if getattr(args, "problems", 0) else 0  # notes (a guessed scheme) are not problems


def run(args) -> int:
    from cockpit.core.agent.approval import approver_for
    from cockpit.core.errors import CockpitError
    if args.concurrency < 1:
        return common.fail("--concurrency must be at least 1", 2)
    try:
        tasks, single_url = _tasks(args)
        mc, ac = common.model_config(args), common.agent_config(args)
        ac = lookahead.apply(args, mc, ac)  # hook: world-model preview and planning
        if args.allow_domain:  # hook: navguard
            ac = dataclasses.replace(ac, allowed_domains=args.allow_domain)
    except CockpitError as e:
        return common.fail(str(e), 2)
    if args.dry_run:
        return _dry_run(args, tasks)
    try:
        from cockpit.core.replay.localfiles import ServedFolders
        with _single(single_url) as url, ServedFolders(host=args.serve_host) as local:
            if single_url:
                tasks = [type(tasks[0])(id="", task=tasks[0].task, url=url)]
            tasks = [local.served(t) for t in tasks]  # file:// URLs: their folders served, and recorded
            return _run_batch(args, tasks, mc, ac, approver_for)
    except CockpitError as e:  # e.g. --url names a file that is not there
        return common.fail(str(e), 2)


def _run_batch(args, tasks, mc, ac, approver_for) -> int:
    from cockpit.core.agent.batch import Batch
    from cockpit.core.errors import CockpitError
    many = len(tasks) > 1
    printer = StepPrinter(verbose_steps=args.concurrency == 1, label_tasks=many)
    batch = Batch(tasks, mc, ac, common.browser_config(args), approver_factory=lambda: approver_for(args.approval),
                  concurrency=args.concurrency, resume=not args.no_resume, keep_browser=args.keep_browser_state,
                  batch_id=time.strftime("batch-%Y%m%d-%H%M%S") if many else "",
                  on_event=printer, on_item=BatchCounter(len(tasks)) if many else None,
                  on_requeue=lambda it, why: print(f"cockpit: {it.task.id or 'the task'} lost its browser ({why}); "
                                                   f"running it again (attempt {it.attempt})", file=sys.stderr))
    if many and (todo := len(_todo(args, tasks, quiet=True))):  # the browsers take a while: say so at once
        skipped = len(tasks) - todo  # (walkthrough 8: nothing for 20-30 s, as if it hung)
        say(f"starting {plural(min(args.concurrency, todo), 'browser')} for {plural(todo, 'task')}"
            + (f" ({skipped} finished before: skipped)" if skipped else "") + "…", sys.stderr)
    try:
        items = batch.run()
    except CockpitError as e:
        return common.fail(str(e), 3)
    if many:
        summary_table(items)
    failed = [it for it in items if it.result and it.result.status == "failed"]
    if not many and items[0].skipped:
        print(f"cockpit: skipped {items[0].task.id}: it finished in an earlier run (--no-resume runs it again)",
              file=sys.stderr)
    if not many and items[0].result:
        r = items[0].result
        print(r.answer if r.answer is not None else f"({r.status}{': ' + r.error if r.error else ''})")
    if batch.stopped_because:
        print(f"cockpit: {batch.stopped_because}", file=sys.stderr)
        return 1
    if batch.interrupted:
        print("cockpit: interrupted" + ("; run the same command again to resume" if many else ""), file=sys.stderr)
        return 130
    return 1 if failed else 0


@contextlib.contextmanager
def _single(url: str | None):
    """--url as given: a web address, or a local HTML file as a file:// URL (ServedFolders serves it), read as
    the window reads its URL field (core.tasks.starturl.start_address)."""
    yield common.start_url(url).url if url else None
