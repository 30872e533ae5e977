"""`cockpit export`: write runs as WebVoyager run folders, labels tables, HTML reports, GIFs or COCO marks."""
from __future__ import annotations

import sys
from pathlib import Path

from cockpit.cli import common, runfilter
from cockpit.cli.trainingexport import write_training
from cockpit.core.words import plural

HELP = ("write runs out: WebVoyager or Online-Mind2Web run folders, labels as JSONL/CSV, a bundle (runs with labels, for "
        "another machine), HTML reports, GIFs, marks as COCO JSON, corrected clicks of pixel runs (JSONL, COCO "
        "keypoints), training data (SFT, preference, process labels, grounding), the recorded web as HAR")

#: Formats written to one file for all the runs given; the others write one folder or file per run.
SINGLE_FILE = ("labels-jsonl", "labels-csv", "labels-om2w", "bundle", "coco", "clicks-jsonl", "clicks-coco")
#: Training data (cockpit.core.training): OUT is a folder with the data files and a dataset card.
TRAINING = ("sft", "preference", "process", "grounding")
FORMATS = ("webvoyager", "mind2web") + SINGLE_FILE + ("html", "gif", "har") + TRAINING


DESCRIPTION = (
    "Write runs out of the run store. "
    "webvoyager: OUT/task<id>/screenshot{k}.png, screenshot{k}_no_box.png, interact_messages.json, "
    "agent.log (WebVoyager's layout, for its judge script), one reply per screenshot (a person's step as "
    "the action they took), and cockpit_steps.json with what the layout cannot hold (who acted, refusals, a pixel "
    "model's dialect), for `cockpit import webvoyager`; another run of the same task goes to "
    "OUT/task<id>-<run id> (WebVoyager's judge reads only task<id>), and exporting a run again writes "
    "over its own folder. "
    "mind2web: OUT/<task_id>/result.json (task_id, task, final_result_response, action_history, "
    "thoughts) and OUT/<task_id>/trajectory/<k>_screenshot.png, Online-Mind2Web's submission layout for its "
    "judges (actions that never ran, refused at the gate or failed, are left out of action_history and kept in "
    "result.json's cockpit_not_executed for `cockpit import mind2web`; a person's steps are marked (human)); another run of the same task goes to OUT/<task_id>-<run id>. "
    "labels-jsonl / labels-csv: the human labels, one row per run and annotator (a run nobody labelled "
    "gets one row with an empty annotator), OUT is the file. "
    "labels-om2w: Online-Mind2Web's human_label.json (per task id, <model>_human_label: 0 fail, 1 success, "
    "2 not executable) from the human consensus after adjudication, or from one annotator's labels with "
    "--annotator; runs without a human verdict are left out and counted; OUT is the file. "
    "bundle: one zip with the runs (their rows, screenshots and marks) and every annotator's labels, "
    "checked by a manifest of sha256 hashes, for `cockpit import bundle` on another machine; OUT is "
    "the file; the runs' web recordings go with them, their credentials only with --with-credentials. "
    "har: OUT/<run id>.har, the run's recorded requests and responses as HAR 1.2 (one page per step) for "
    "Chrome DevTools, Playwright's routeFromHAR or any HAR viewer; Authorization, Cookie and Set-Cookie are "
    "left out unless --with-credentials. "
    "html: OUT/<run id>.html, a self-contained report with the screenshots embedded (with --annotator "
    "NAME, a run a blind batch gives NAME that NAME has not labelled yet leaves out the judges' verdicts "
    "and the agent's own claim: its answer, status and ANSWER step). "
    "gif: OUT/<run id>.gif, the marked screenshots animated (html and gif write over an earlier "
    "export of the run). "
    "coco: the Set-of-Mark boxes and their human corrections as COCO JSON, OUT is the file "
    "(image file names are relative to the data dir). "
    "clicks-jsonl / clicks-coco: pixel steps whose click a human corrected (a point correction, or a wrong-"
    "target label with the right mark), for training: screenshot, task, thought, predicted and corrected "
    "point (CSS and image pixels) as JSONL, or as COCO keypoints (predicted, corrected); OUT is the file. "
    "sft / preference / process / grounding: training data from the runs and what people did to them (accepted, "
    "edited, rejected and taken-over steps at the gate; targets, points and judgements from Review), written "
    "into the folder OUT with a dataset card (README.md) and sources.jsonl: sft as --layout openai (chat JSONL, "
    "images as data URLs, split to OpenAI's limits), hf (Parquet with Image features) or sharegpt (LLaMA-Factory); "
    "preference as trl (Parquet: prompt, chosen, rejected, images) or sharegpt; process as trl (stepwise "
    "supervision: prompt, completions, labels); grounding as screenspot (JSON, screenshots beside) or hf. "
    "Corrected actions are written in the run's dialect, points in the model's coordinate space. Parquet "
    "(hf, trl) needs pyarrow: pip install 'cockpit[parquet]'.")


def add_parser(sub) -> None:
    p = sub.add_parser("export", help=HELP, description=DESCRIPTION)
    p.add_argument("runs", nargs="+", metavar="RUN", help="run ids (or unique prefixes); 'all' for every run")
    p.add_argument("--format", choices=FORMATS, default="webvoyager", help="what to write (default webvoyager)")
    p.add_argument("--out", type=Path, required=True, metavar="PATH",
                   help="folder to write into; the file to write for labels-jsonl, labels-csv, labels-om2w, bundle "
                        "and coco")
    p.add_argument("--drop-spurious", action="store_true",
                   help="coco: leave out marks a human flagged as on nothing (default: keep them, flagged)")
    p.add_argument("--annotator", metavar="NAME",
                   help="html: the report is for this annotator (blind batches: see above); labels-om2w: write "
                        "this annotator's labels instead of the consensus")
    p.add_argument("--with-credentials", action="store_true",
                   help="har and bundle: include the Authorization, Cookie and Set-Cookie headers, cookies and "
                        "storage the web recording kept on this computer (default: left out)")
    p.add_argument("--seconds-per-step", type=float, default=1.5, metavar="S", help="gif: frame time (default 1.5)")
    p.add_argument("--width", type=int, default=800, metavar="PX", help="gif: frame width (default 800)")
    p.add_argument("--layout", choices=("openai", "hf", "trl", "sharegpt", "screenspot"),
                   help="training data: the files' layout (default: openai for sft, trl for preference and "
                        "process, screenspot for grounding)")
    p.add_argument("--steps", choices=("default", "approved", "corrected", "all"), default="default",
                   help="sft and grounding: the steps kept. default: steps of runs people labelled success, and "
                        "every corrected step; approved: also steps a person approved at the gate; corrected: only "
                        "corrected steps; all: every step that ran")
    runfilter.add_options(p)


def run(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.store.db import open_for_reading
    errors = incomplete = 0
    problem = _bad_options(args)
    if problem:
        return common.fail(problem, 2)
    try:
        flt = runfilter.run_filter(args)
    except ValueError as e:
        return common.fail(str(e), 2)
    try:
        store = open_for_reading()  # exporting from a read-only data folder works too
    except CockpitError as e:
        return common.fail(str(e), 2)
    with store:
        every = args.runs == ["all"]
        if args.format in TRAINING:
            return write_training(store, args, flt, None if every else args.runs)
        if runfilter.given(args):  # Review's filters: the runs it would list
            try:
                args.runs, every = runfilter.passing(store, None if every else args.runs, flt), False
            except CockpitError as e:
                return common.fail(str(e))
            if not args.runs:
                return common.fail("no run passes the filters given; nothing written")
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
            notes: list[str] = []  # what the format could not hold, and how it was written instead
            try:
                print(_write_one(store, args, store.resolve(ref), problems, notes))
            except (CockpitError, OSError) as e:
                errors += 1
                common.fail(f"{ref}: {e}")
            _say(ref, problems, notes)
            incomplete += bool(problems)
    if incomplete:  # still a success: what is there is written, the gaps are legal in each format
        print(f"cockpit: {plural(incomplete, 'run')} written with files missing (see the warnings above)", file=sys.stderr)
    return 1 if errors else 0


def _say(ref: str, problems: list[str], notes: list[str]) -> None:
    for p in problems:  # written, but without these files
        print(f"cockpit: warning: {ref}: {p}", file=sys.stderr)
    for n in notes:  # written, in another form than the run's own (a format that cannot hold it)
        print(f"cockpit: note: {ref}: {n}", file=sys.stderr)


def _bad_options(args) -> str:
    """What is wrong with the options together ("" when nothing is)."""
    if args.format in SINGLE_FILE and args.out.is_dir():
        return f"--out {args.out} is a folder; {args.format} writes one file: give its name"
    if args.annotator and args.format not in ("html", "labels-om2w"):
        return "--annotator is for --format html and labels-om2w"
    if args.with_credentials and args.format not in ("har", "bundle"):
        return "--with-credentials is for --format har and bundle"
    if args.width < 16 or args.seconds_per_step <= 0:
        return "--width must be at least 16 and --seconds-per-step above 0"
    if args.layout and args.format not in TRAINING:
        return "--layout is for the training formats (sft, preference, process, grounding)"
    return ""


def _write_single(store, args, ids) -> Path:
    from cockpit.core.review import label_tables
    from cockpit.core.review.exports import write_json
    if args.format == "bundle":
        from cockpit.core.store.bundle import write_bundle
        return write_bundle(store, label_tables.run_ids_or_all(store, ids), args.out,
                            credentials=args.with_credentials)
    if args.format == "labels-om2w":
        from cockpit.core.review.om2w_labels import write_human_labels
        rep = write_human_labels(store, ids, args.out, annotator=args.annotator)
        print(f"{plural(rep.labels, 'label')} of {plural(rep.tasks, 'task')}; {plural(len(rep.without), 'run')} "
              "without a human verdict left out", file=sys.stderr)
        for d in rep.doubled:
            print(f"warning: two runs of one task and agent, {d}", file=sys.stderr)
        return rep.path
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


def _write_one(store, args, run_id: str, problems: list[str], notes: list[str]) -> Path:
    from cockpit.core.store.exchange import export_run, missing_step_files
    if args.format == "webvoyager":
        return export_run(store, run_id, args.out, problems, notes)
    if args.format == "mind2web":
        from cockpit.core.store.mind2web import export_mind2web
        return export_mind2web(store, run_id, args.out, problems, notes)
    if args.format == "har":
        from cockpit.core.review.har import NoArchive, write_har
        args.out.mkdir(parents=True, exist_ok=True)
        try:
            return write_har(store, run_id, args.out / f"{run_id}.har", credentials=args.with_credentials)
        except NoArchive as e:
            from cockpit.core.errors import CockpitError
            raise CockpitError(str(e)) from None
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
