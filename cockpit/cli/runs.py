"""`cockpit runs`: list recorded runs, or show one run's steps."""
from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING

from cockpit.cli import common
from cockpit.core.words import plural

if TYPE_CHECKING:  # the store is imported when a command runs, not when the CLI starts
    from cockpit.core.store.records import Step

HELP = "list recorded runs, or show one run step by step"
STATUSES = (  # "running" and the store's FINAL ones
    "running", "answered", "refused", "max_steps", "stopped", "failed", "interrupted", "closed", "gave_up")
JSON_COLUMNS = ("config", "memories", "hops")  # stored as JSON text; --json prints them as JSON values


def add_parser(sub) -> None:
    p = sub.add_parser("runs", help=HELP, description=HELP + ". Runs left running by a process "
                       "that died are shown as interrupted.")
    p.add_argument("run", nargs="?", help="a run id (or a unique prefix) to show step by step")
    p.add_argument("--search", metavar="WORDS", help="full-text search over task and answer")
    p.add_argument("--status", help=f"only runs with this status ({', '.join(STATUSES)})")
    p.add_argument("--limit", type=int, default=30, help="how many runs (default 30, newest first)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--judge", action="store_true",
                   help="with RUN: its judge verdicts, and for WebJudge each stage (key points, every "
                        "screenshot's score and reason, the outcome) instead of the steps")


def run(args) -> int:
    import sys

    from cockpit.core.errors import CockpitError
    from cockpit.core.store import liveness
    from cockpit.core.store.db import open_for_reading
    if args.status is not None and args.status not in STATUSES:
        return common.fail(f"unknown status {args.status!r}; the statuses are {', '.join(STATUSES)}", 2)
    try:
        with open_for_reading() as store:
            if store.read_only:
                print(f"cockpit: note: {store.root} cannot be written; showing the runs as recorded "
                      "(runs of processes that ended may still show as running)", file=sys.stderr)
            try:  # housekeeping only: a database another program holds must not hide the list
                liveness.mark_interrupted(store, wait=1.0)
            except CockpitError as e:
                print(f"cockpit: note: {e}; runs of processes that ended may still show as running",
                      file=sys.stderr)
            if args.run:
                if args.judge:
                    return _show_judgements(store, store.resolve(args.run), args.json)
                return _show(store, store.resolve(args.run), args.json)
            rows = store.runs(limit=args.limit, status=args.status, search=args.search)
    except CockpitError as e:
        return common.fail(str(e), 2)
    if args.json:
        print(json.dumps([_decoded(r) for r in rows], indent=1, default=str))
        return 0
    if not rows:
        print("no runs yet" if not (args.search or args.status) else "no run matches")
        return 0
    print(f"{'run':<23} {'started':<16} {'status':<11} {'steps':>5} {'tokens':>7} {'cost':>8}  task")
    for r in rows:
        cost = "" if r["cost"] is None else f"${r['cost']:.4f}"
        demo = " [demo]" if r["demo"] else ""
        tokens = (r["prompt_tokens"] or 0) + (r["completion_tokens"] or 0)
        print(f"{r['id']:<23} {_when(r['started']):<16} {r['status']:<11} {r['steps']:>5} {tokens:>7} "
              f"{cost:>8}  {r['task'][:70]}{demo}")
    stuck = [r["id"] for r in rows if r["status"] == "interrupted"]
    if stuck:
        print(f"\n{plural(len(stuck), 'interrupted run')}: continue one with `cockpit resume ID` or give it up with "
              f"`cockpit close ID` (e.g. cockpit resume {stuck[0]} / cockpit close {stuck[0]})")
    return 0


SHOW_CHARS = 2000  # of a thought, in the step listing; --json and the window show it whole


def _clip(text: str) -> str:
    if len(text) <= SHOW_CHARS:
        return text
    return f"{text[:SHOW_CHARS]}... ({len(text) - SHOW_CHARS} more characters; --json shows all)"


def _decoded(run: dict) -> dict:
    """`run` with its JSON-text columns as JSON values (a column that does not parse stays text)."""
    out = dict(run)
    for key in JSON_COLUMNS:
        if isinstance(out.get(key), str):
            try:
                out[key] = json.loads(out[key])
            except ValueError:
                pass
    return out


def _debug_lines(s: Step) -> list[tuple[str, str]]:
    """What the window's step details show beside the outcome: the change the action made, the step's flags
    (no-op, loop, breakpoint), the world model's prediction and the hops passed."""
    lines = []
    if isinstance(s.effect, dict):
        from cockpit.core.page.effects import Effect
        try:
            lines.append(("effect", Effect(**s.effect).describe()))
        except TypeError:  # recorded by another version: shown as it is
            lines.append(("effect", json.dumps(s.effect)))
    if s.flags:
        lines.append(("flags", "; ".join(s.flags)))
    if s.page_note:
        lines.append(("page", s.page_note))
    pred = s.prediction
    if pred and pred.text:
        lines.append(("forecast", _clip(pred.text) + (f"  ({pred.model})" if pred.model else "")))
    hops = s.hops
    if isinstance(hops, dict) and hops.get("new"):
        lines.append(("hops", f"passed hop {', '.join(map(str, hops['new']))} ({hops.get('passed')}/{hops.get('total')})"))
    return lines


def _setup_lines(config: dict) -> list[str]:
    """Where the run's browser ran (a remote WebDriver / Grid), and why it is a second attempt."""
    out = []
    b = config.get("browser")
    if isinstance(b, dict) and b.get("webdriver_url"):
        out.append(f"browser: {b['webdriver_url']}  node {b.get('node') or '(not told)'}  "
                   f"session {b.get('session_id') or '?'}")
    a = config.get("attempt")
    if isinstance(a, dict):
        out.append(f"attempt {a.get('n')}: run {a.get('retry_of') or '?'} lost its browser ({a.get('because')})")
    return out


def _when(ts) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else ""


def _show_judgements(store, run_id: str, as_json: bool) -> int:
    """The run's verdicts, and the stages behind those of a several-question judge (WebJudge)."""
    from cockpit.core.store import judge_stages, labels
    verdicts, stages = labels.verdicts(store, run_id), judge_stages.of(store, run_id)
    if as_json:
        print(json.dumps({"verdicts": verdicts, "stages": stages}, indent=1, default=str))
        return 0
    if not verdicts:
        print(f"run {run_id} has no judge verdicts (`cockpit judge {run_id}`)")
        return 0
    names = {1: "SUCCESS", 0: "NOT SUCCESS", None: "undecided"}
    for v in verdicts:
        print(f"{v['judge']}  k={v['k'] or 'all'}  {v['prompt_version']}: {names.get(v['verdict'], v['verdict'])}")
        mine = [st for st in stages if st["judge"] == v["judge"] and st["prompt_version"] == v["prompt_version"]]
        for st in mine:
            note = f"  [{st['note']}]" if st.get("note") else ""
            if st["stage"] == "image":
                print(f"  step {st['step']} screenshot: score {st['score']}"
                      f"{' (kept)' if st['kept'] else ''}{note}")
            else:
                head = "key points" if st["stage"] == "key_points" else "outcome"
                print(f"  {head}:{note}")
                for line in (st["reply"] or "").strip().splitlines():
                    print(f"    {line}")
        if not mine and v.get("reply"):
            print("  " + _clip(v["reply"]))
    return 0


def _show(store, run_id: str, as_json: bool) -> int:
    from cockpit.core.agent.approval import STOPPED_BY, decided, verdict
    from cockpit.core.store.records import continues_text, outcome_text, outcome_warning, parent_step_text, status_text
    if as_json:
        run, steps = store.run(run_id), store.steps(run_id)
        for s in steps:
            s.pop("request", None)
        print(json.dumps({"run": _decoded(run), "steps": steps}, indent=1, default=str))
        return 0
    run, steps = store.run_record(run_id), store.step_records(run_id)
    print(f"run {run.id}  [{status_text(run.status)}]  model {run.model}{'  (demo policy)' if run.demo else ''}")
    print(f"task: {run.task}\nurl:  {run.url}")
    if continues := continues_text({"parent_run": run.parent_run, "parent_step": run.parent_step}):
        print(f"{continues} (its step 1 is that run's step {run.parent_step})")
    for line in _setup_lines(run.config if isinstance(run.config, dict) else {}):
        print(line)
    imported = (run.source or "") not in ("", "cockpit")  # a WebVoyager folder records no URLs, risks or outcomes
    if imported:
        print(f"imported from {run.source}: its steps record no addresses, risks or outcomes")
    for s in steps:
        print(f"\nstep {s.step}" + (f" ({there})" if (there := parent_step_text(
            {"parent_run": run.parent_run, "parent_step": run.parent_step}, s.step)) else "")
              + (f"  {s.url}" if s.url else ""))
        if s.thought:
            print(f"  thought:  {_clip(s.thought)}")
        print(f"  action:   {s.action or s.action_text or '(none)'}" + (f"   [{s.risk}]" if s.risk else ""))
        if not (s.action or s.action_text) and s.reply:  # e.g. a reply Stop cut off: what the model had written
            print(f"  reply:    {_clip(' '.join(s.reply.split()))}")
        if s.pointer and s.pointer.get("mode") == "pixels":  # what the model wrote, in its space, and what it hit
            p, hit = s.pointer, (s.pointer.get("resolved") or {}).get("desc")
            print(f"  point:    {p.get('dialect')} in {p.get('space') or 'pixels'}: the model wrote "
                  f"{_clip(s.action_text or '')!s}" + (f"; it hit {hit}" if hit else ""))
        if s.decision:
            d = s.decision
            print(f"  decision: {decided(d) if d['by'] == STOPPED_BY else verdict(d) + ' by ' + d['by']}"
                  + (f" (the agent proposed {d['proposed_action']})" if d.get("proposed_action") else "")
                  + (f": {d['message']}" if d.get("message") else ""))
        detail = s.error or s.outcome or ""
        if detail or not imported:
            print(f"  outcome:  {outcome_text(s.status, detail)}")
            if warned := outcome_warning(s.status, s.outcome):
                print(f"  warning:  {warned}")
        for label, text in _debug_lines(s):
            print(f"  {label + ':':<10}{text}")
        print(f"  files:    {store.file(s.screenshot) if s.screenshot else '-'}")
    print(f"\nanswer: {run.answer}" if run.answer is not None else f"\n({run.status}"
          + (f": {run.error})" if run.error else ")"))
    if run.status == "interrupted":
        print(f"continue it: cockpit resume {run.id}  /  give it up: cockpit close {run.id}")
    return 0
