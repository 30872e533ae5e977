"""`cockpit judge`: score recorded runs with an LLM judge (WebVoyager's or WebJudge's protocol) and reference
checks."""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from cockpit.cli import common
from cockpit.core.store.newrun import HUMAN
from cockpit.core.words import plural

HELP = "score runs with an LLM judge (WebVoyager's or Online-Mind2Web's WebJudge) and reference-answer checks"

VERDICT_TEXT = {1: "SUCCESS", 0: "NOT SUCCESS", None: "undecided"}
CHECK_SHORT = {"exact_match": "exact", "must_include": "include", "fuzzy_match": "fuzzy"}


def _k(text: str) -> int:
    try:
        k = int(text)
        if k < 0:
            raise ValueError
        return k
    except ValueError:
        raise argparse.ArgumentTypeError(f"--k wants 1, 2, 3 (last k screenshots) or 0 (all), not {text!r}") from None


def add_parser(sub) -> None:
    p = sub.add_parser("judge", help=HELP, description=(
        "--protocol webvoyager (the default): send each run's task, final answer and last k screenshots to a "
        "judge model, which answers SUCCESS or NOT SUCCESS (WebVoyager section 5); runs that did not end with "
        "ANSWER score 0 without asking. --protocol webjudge: Online-Mind2Web's WebJudge, three stages per run: "
        "key points from the task alone, each screenshot scored 1-5 for evidence, then a success/failure "
        "judgement over the key points, the action history and the screenshots scored 3 or more (at most 50); "
        "every stage's request and reply is stored with the verdict (`cockpit runs RUN --judge` shows them). "
        "Both answer success only. Runs with reference answers (imported WebVoyager runs, WebArena/MMInA tasks) also get the "
        "exact_match / must_include checks and, through the judge model, fuzzy_match. Verdicts are stored "
        "with the judge model, k and prompt version; runs already judged that way are skipped. "
        "Canaries: before the runs, the judge judges Cockpit's canary runs, six runs on the bundled demo shop "
        "with known outcomes (two clear successes, two clear failures, a run that answers without doing the "
        "task, a run stopped by a CAPTCHA page), made once in headless Chromium and kept in the data "
        "folder's canaries store. A judge that gets any wrong, or whose replies parse as neither verdict, is "
        "flagged: the flag is stored (the canary verdicts) and `cockpit agreement` and the Reports tab name "
        "the canaries it missed wherever its verdicts are used. --no-canary skips them."))
    what = p.add_argument_group("which runs")
    what.add_argument("runs", nargs="*", metavar="RUN", help="run ids (or unique prefixes)")
    what.add_argument("--all", action="store_true", help="every finished run in the store (people's own attempts only when named by id)")
    what.add_argument("--status", help="only runs with this status (e.g. answered)")
    what.add_argument("--batch", metavar="ID", help="only runs of this batch")
    how = p.add_argument_group("judging")
    how.add_argument("--protocol", choices=("webvoyager", "webjudge"), default="webvoyager",
                     help="webvoyager: one request per run, last K screenshots (default); webjudge: "
                          "Online-Mind2Web's three-stage judge over all screenshots (--k is not used)")
    how.add_argument("--k", type=_k, default=3, metavar="K",
                     help="screenshots shown to the judge: the last K (1, 2, 3) or 0 for all (default 3)")
    how.add_argument("--concurrency", type=int, default=4, metavar="N", help="requests in flight (default 4)")
    how.add_argument("--redo", action="store_true", help="judge again runs that already have this verdict")
    how.add_argument("--reference-only", action="store_true",
                     help="only the reference-answer checks (fuzzy_match still asks the judge model)")
    how.add_argument("--no-canary", action="store_true",
                     help="do not judge the canary runs first (the judge then reads as not checked in reports)")
    temperature = common.add_model_options(p)["temperature"]  # the judge is asked at temperature 0, as in WebVoyager
    temperature.default = 0.0
    temperature.help = "sampling temperature of the judge (default 0)"


def _select(store, args) -> list[str]:
    if args.runs:
        ids = list(dict.fromkeys(store.resolve(r) for r in args.runs))
        if args.status or args.batch:
            rows = {r["id"]: r for r in (store.run(i) for i in ids)}
            ids = [i for i in ids if (not args.status or rows[i]["status"] == args.status)
                   and (not args.batch or rows[i]["batch"] == args.batch)]
        return ids
    if not (args.all or args.status or args.batch):
        raise SystemExit(common.fail("say which runs to judge: RUN ids, --all, --status STATUS or --batch ID", 2))
    rows = store.runs(limit=10 ** 9, status=args.status, batch=args.batch)
    return [r["id"] for r in sorted(rows, key=lambda r: r["started"] or 0)  # people's own attempts: named only
            if r["status"] != "running" and r["model"] != HUMAN]


def run(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.store import Store, liveness
    if args.concurrency < 1:
        return common.fail("--concurrency must be at least 1", 2)
    config = common.model_config(args)
    try:
        with Store() as store:
            liveness.mark_interrupted(store)
            ids = _select(store, args)
            root = store.root
            tasks = {i: store.run(i)["task"] for i in ids}
    except CockpitError as e:
        return common.fail(str(e), 2)
    if not ids:
        return common.fail("no runs matched the selection (see `cockpit runs`)", 2)
    if not (args.no_canary or args.reference_only):
        try:
            _check_key(config)
        except CockpitError as e:
            return common.fail(str(e), 2)
        try:
            canary = asyncio.run(_canaries(root, config, args))
        except CockpitError as e:  # no browser to make them, no key
            print(f"cockpit judge: the canary runs could not be judged ({e}); the judge reads as not checked "
                  "(--no-canary skips them)", file=sys.stderr)
        else:
            _say_canaries(canary, config)
    try:
        report = asyncio.run(_judge(ids, root, config, args))
    except CockpitError as e:  # no key, store problems
        return common.fail(str(e), 2)
    _summary(report, ids, tasks, config, args)
    if report.cancelled:
        print("cockpit: interrupted; the verdicts so far are stored, run the same command again to finish",
              file=sys.stderr)
        return 130
    return 1 if report.errors else 0


def _check_key(config) -> None:
    """A judge with no API key fails here, before the canaries are made (ModelError, 'no API key')."""
    from cockpit.core.llm.client import ModelClient
    ModelClient(config).close()


async def _canaries(root, config, args) -> dict:
    from cockpit.core.demo.canaries import check_judge

    def making(name: str) -> None:
        print(f"cockpit judge: making canary run {name} on the demo shop (once, in headless Chromium)",
              file=sys.stderr, flush=True)
    return await check_judge(root, config=config, k=args.k, protocol=args.protocol, redo=args.redo,
                             progress=making)


def _say_canaries(entry: dict, config) -> None:
    from cockpit.core.review.canary_audit import describe
    errors = f"; {plural(len(entry['errors']), 'canary')} not judged: {', '.join(entry['errors'])}" \
        if entry["errors"] else ""
    if entry["flagged"]:
        print(f"cockpit judge: WARNING: judge {config.model} is {describe(entry)}{errors}. Its verdicts are "
              "reported as flagged and left out of the success rates.", file=sys.stderr)
    else:
        print(f"cockpit judge: judge {config.model} {describe(entry)}{errors}", file=sys.stderr)


async def _judge(ids, root, config, args):
    from cockpit.core.review.judge import judge_runs
    cancel = asyncio.Event()
    loop = asyncio.get_running_loop()
    handled = False
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, cancel.set)  # Ctrl+C: stop cleanly, keep what is judged
        handled = True
    said = _Progress(args.reference_only)
    try:
        return await judge_runs(ids, store_root=root, config=config, k=args.k, concurrency=args.concurrency,
                                progress=said, cancel=cancel, redo=args.redo,
                                reference_only=args.reference_only, protocol=args.protocol, stage_progress=said.stage)
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGINT)


class _Progress:
    """'[12/40] <run> SUCCESS' on stderr as each run is done (details and errors come in the table)."""

    def __init__(self, reference_only: bool):
        self.reference_only = reference_only

    def __call__(self, done: int, total: int, run_id: str, verdict) -> None:
        text = "checked" if self.reference_only else "no verdict" if verdict is None else VERDICT_TEXT.get(
            verdict, str(verdict))
        print(f"[{done}/{total}] {run_id} {text}", file=sys.stderr, flush=True)

    @staticmethod
    def stage(run_id: str, text: str) -> None:
        """Where a run's judgement is: a WebJudge run's stages ('  <run>: screenshots 3/12 scored'), why one is
        undecided ('  <run>: undecided: no 'Status:' line …')."""
        print(f"  {run_id}: {text}", file=sys.stderr, flush=True)


def _summary(report, ids, tasks, config, args, stream=None) -> None:
    stream = stream or sys.stdout
    rows = [("run", "verdict", "reference checks", "task / error")]
    for rid in ids:
        r = report.runs.get(rid)
        if r is None or not r.done:
            rows.append((rid, "not judged", "", tasks.get(rid, "")[:70]))
            continue
        if args.reference_only:
            verdict = "-"
        elif r.judged:
            verdict = VERDICT_TEXT.get(r.verdict, str(r.verdict)) + (" (stored)" if r.skipped else "")
        else:
            verdict = "error" if r.error else "-"
        checks = " ".join(f"{CHECK_SHORT.get(n, n)}={'?' if v is None else v}" for n, v in r.references.items())
        last = f"error: {r.error}" if r.error else f"undecided: {r.why}" if r.judged and r.verdict is None and r.why \
            else tasks.get(rid, "").replace("\n", " ")[:70]
        rows.append((rid, verdict, checks or "-", last))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1], file=stream)
    c = report.counts()
    cost = "" if report.cost is None else f", ${report.cost:.4f}"
    usage = (f"{plural(report.requests, 'request')}, "
             f"{plural(report.prompt_tokens + report.completion_tokens, 'token')}{cost}")
    if args.reference_only:
        print(f"{plural(len(ids), 'run')}, reference checks only: {plural(c['errors'], 'error')}; {usage}", file=stream)
    else:
        judged = c["success"] + c["not"] + c["undecided"]
        rate = f" ({c['success'] / judged:.1%} success)" if judged else ""
        how = "WebJudge" if args.protocol == "webjudge" else f"k={args.k or 'all'}"
        print(f"{plural(len(ids), 'run')}, judge {config.model}, {how}: {c['success']} SUCCESS, "
              f"{c['not']} NOT SUCCESS{_by_rule(report)}, {c['undecided']} undecided, {plural(c['errors'], 'error')}{rate}; {usage}",
              file=stream)
    tally: dict[str, list[int]] = {}  # check -> [passed, failed, undecided]
    for r in report.runs.values():
        for name, v in r.references.items():
            tally.setdefault(name, [0, 0, 0])[0 if v == 1 else 1 if v == 0 else 2] += 1
    if tally:
        parts = [f"{name} {t[0]}/{sum(t)} passed" + (f" ({t[2]} undecided)" if t[2] else "")
                 for name, t in tally.items()]
        print("reference checks: " + ", ".join(parts), file=stream)


def _by_rule(report) -> str:
    """How many NOT SUCCESS verdicts are the rule's (no answer), not the judge's (walkthrough 9)."""
    rule = report.by_rule()
    return f" ({rule} by rule: no answer)" if rule else ""
