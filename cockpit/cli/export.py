"""`cockpit export`: write runs as WebVoyager run folders, labels tables, HTML reports, GIFs or COCO marks."""
from __future__ import annotations

from pathlib import Path

from cockpit.cli import common
from cockpit.core.words import plural

HELP = ("write runs out: WebVoyager or Online-Mind2Web run folders, labels as JSONL/CSV, a bundle (runs with labels, for another "
        "machine), HTML reports, GIFs, marks as COCO JSON, corrected clicks of pixel runs (JSONL, COCO keypoints)")

#: Formats written to one file for all the runs given; the others write one folder or file per run.
SINGLE_FILE = ("labels-jsonl", "labels-csv", "bundle", "coco", "clicks-jsonl", "clicks-coco")
FORMATS = ("webvoyager", "mind2web") + SINGLE_FILE + ("html", "gif")


def add_parser(sub) -> None:
    p = sub.add_parser("export", help=HELP, description=(
        "Write runs out of the run store. "
        "webvoyager: OUT/task<id>/screenshot{k}.png, screenshot{k}_no_box.png, interact_messages.json, "
        "agent.log (WebVoyager's layout, for its judge script); another run of the same task goes to "
        "OUT/task<id>-<run id> (WebVoyager's judge reads only task<id>), and exporting a run again writes "
        "over its own folder. "
        "mind2web: OUT/<task_id>/result.json (task_id, task, final_result_response, action_history, "
        "thoughts) and OUT/<task_id>/trajectory/<k>_screenshot.png, Online-Mind2Web's submission layout for its "
        "judges; another run of the same task goes to OUT/<task_id>-<run id>. "
        "labels-jsonl / labels-csv: the human labels, one row per run and annotator (a run nobody labelled "
        "gets one row with an empty annotator), OUT is the file. "
        "bundle: one zip with the runs (their rows, screenshots and marks) and every annotator's labels, "
        "checked by a manifest of sha256 hashes, for `cockpit import bundle` on another machine; OUT is "
        "the file. "
        "html: OUT/<run id>.html, a self-contained report with the screenshots embedded (with --annotator "
        "NAME, a run a blind batch gives NAME that NAME has not labelled yet leaves out the judges' verdicts "
        "and the agent's own claim: its answer, status and ANSWER step). "
        "gif: OUT/<run id>.gif, the marked screenshots animated (html and gif write over an earlier "
        "export of the run). "
        "coco: the Set-of-Mark boxes and their human corrections as COCO JSON, OUT is the file "
        "(image file names are relative to the data dir). "
        "clicks-jsonl / clicks-coco: pixel steps whose click a human corrected (a point correction, or a wrong-"
        "target label with the right mark), for training: screenshot, task, thought, predicted and corrected "
        "point (CSS and image pixels) as JSONL, or as COCO keypoints (predicted, corrected); OUT is the file."))
    p.add_argument("runs", nargs="+", metavar="RUN", help="run ids (or unique prefixes); 'all' for every run")
    p.add_argument("--format", choices=FORMATS, default="webvoyager", help="what to write (default webvoyager)")
    p.add_argument("--out", type=Path, required=True, metavar="PATH",
                   help="folder to write into; the file to write for labels-jsonl, labels-csv, bundle and coco")
    p.add_argument("--drop-spurious", action="store_true",
                   help="coco: leave out marks a human flagged as on nothing (default: keep them, flagged)")
    p.add_argument("--annotator", metavar="NAME",
                   help="html: the report is for this annotator (blind batches: see above)")
    p.add_argument("--seconds-per-step", type=float, default=1.5, metavar="S", help="gif: frame time (default 1.5)")
    p.add_argument("--width", type=int, default=800, metavar="PX", help="gif: frame width (default 800)")


def run(args) -> int:
    import sys

    from cockpit.core.errors import CockpitError
    from cockpit.core.store.db import open_for_reading
    errors = incomplete = 0
    if args.format in SINGLE_FILE and args.out.is_dir():
        return common.fail(f"--out {args.out} is a folder; {args.format} writes one file: give its name", 2)
    if args.annotator and args.format != "html":
        return common.fail("--annotator is for --format html", 2)
    if args.width < 16 or args.seconds_per_step <= 0:
        return common.fail("--width must be at least 16 and --seconds-per-step above 0", 2)
    try:
        store = open_for_reading()  # exporting from a read-only data folder works too
    except CockpitError as e:
        return common.fail(str(e), 2)
    with store:
        every = args.runs == ["all"]
        if args.format in SINGLE_FILE:
            ids = None
            if not every:
                ids = []
                for ref in args.runs:
                    try:
                        ids.append(store.resolve(ref))
                    except CockpitError as e:
                        errors += 1
                        common.fail(f"{ref}: {e}")
                if errors:
                    return common.fail(f"nothing written to {args.out}")
            try:
                print(_write_single(store, args, ids))
            except (CockpitError, OSError) as e:
                return common.fail(f"cannot write {args.out}: {e}")
            return 0
        # 'all': oldest first, so a task's first run gets its plain task<id> folder
        refs = [r["id"] for r in reversed(store.runs(limit=10**9))] if every else args.runs
        for ref in refs:
            problems: list[str] = []
            try:
                print(_write_one(store, args, store.resolve(ref), problems))
            except (CockpitError, OSError) as e:
                errors += 1
                common.fail(f"{ref}: {e}")
            for p in problems:  # written, but without these files
                print(f"cockpit: warning: {ref}: {p}", file=sys.stderr)
            incomplete += bool(problems)
    if incomplete:  # still a success: what is there is written, the gaps are legal in each format
        print(f"cockpit: {plural(incomplete, 'run')} written with files missing (see the warnings above)", file=sys.stderr)
    return 1 if errors else 0


def _write_single(store, args, ids) -> Path:
    from cockpit.core.review import label_tables
    from cockpit.core.review.exports import write_json
    if args.format == "bundle":
        from cockpit.core.store.bundle import write_bundle
        return write_bundle(store, label_tables.run_ids_or_all(store, ids), args.out)
    if args.format in ("clicks-jsonl", "clicks-coco"):
        from cockpit.core.review import clicks
        if args.format == "clicks-coco":
            return write_json(clicks.click_coco(store, ids), args.out)
        return clicks.write_jsonl(clicks.click_rows(store, ids), args.out)
    if args.format == "coco":
        from cockpit.core.review.coco_marks import coco_marks
        return write_json(coco_marks(store, ids, include_spurious=not args.drop_spurious), args.out)
    rows = label_tables.labels_rows(store, ids)
    if args.format == "labels-csv":
        return label_tables.write_labels_csv(rows, args.out, label_tables.LABEL_FIELDS)
    return label_tables.write_labels_jsonl(rows, args.out)


def _write_one(store, args, run_id: str, problems: list[str]) -> Path:
    from cockpit.core.store.exchange import export_run, missing_step_files
    if args.format == "webvoyager":
        return export_run(store, run_id, args.out, problems)
    if args.format == "mind2web":
        from cockpit.core.store.mind2web import export_mind2web
        return export_mind2web(store, run_id, args.out, problems)
    problems += [f"{p}; the {args.format} shows the other screenshot of the step, or none"
                 for p in missing_step_files(store, run_id)]
    from cockpit.core.review import exports
    args.out.mkdir(parents=True, exist_ok=True)
    if args.format == "html":
        path = args.out / f"{run_id}.html"
        path.write_text(exports.html_report(store, run_id, annotator=args.annotator), encoding="utf-8")
        return path
    return exports.run_gif(store, run_id, args.out / f"{run_id}.gif",
                           seconds_per_step=args.seconds_per_step, width=args.width)
