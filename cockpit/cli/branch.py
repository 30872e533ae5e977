"""`cockpit branch`: replay a recorded run up to a step and continue from there, or just replay it."""
from __future__ import annotations

import dataclasses
import re
import sys

from cockpit.cli import common
from cockpit.cli.progress import StepPrinter
from cockpit.core.words import plural

HELP = "replay a run's steps 1..STEP-1 in a new browser and continue from STEP (or only replay)"

#: Exit code when the replay no longer matches the recorded run.
DIVERGED = 4


def add_parser(sub) -> None:
    p = sub.add_parser("branch", help=HELP, description=(
        "Open a new browser, replay the recorded actions of RUN before STEP (checking after each "
        "that the page still matches: URL and marks similarity) and continue from STEP with the "
        "agent, as a new run that records RUN and STEP as its parent. With --replay-only, stop "
        "after the replay (STEP 0 replays the whole run). With --recorded the replay is served from "
        "RUN's web recording (the site as it was, even changed or gone since). Model options default to the parent "
        "run's model, server and settings. Exit codes: 0 done, 1 the new run failed, 2 bad "
        "input, 3 the browser or model could not be used, 4 the replay diverged."))
    p.add_argument("run", help="run id or a unique prefix (see `cockpit runs`)")
    p.add_argument("step", type=int, help="the step to continue from; steps before it are replayed")
    g = p.add_argument_group("replay")
    g.add_argument("--replay-only", action="store_true",
                   help="replay steps 1..STEP-1 (the whole run when STEP is 0) and stop; no model is called")
    g.add_argument("--speed", type=float, default=0.0, metavar="S",
                   help="replay at S times the recorded pace (0: as fast as the pages settle, the default)")
    g.add_argument("--min-similarity", type=float, default=0.6, metavar="X",
                   help="marks similarity (0..1) below which a page no longer matches (default 0.6)")
    g.add_argument("--no-check", action="store_true", help="replay without comparing the pages")
    g.add_argument("--recorded", action="store_true",
                   help="replay from RUN's web recording instead of the live site: every request is answered "
                        "from the recording (none reaches the network; one it lacks fails and is listed), time "
                        "and randomness are as recorded, irreversible steps are not asked about again (nothing "
                        "is sent), typed secrets are answered from the recording. A branch then goes on live")
    p.add_argument("--allow-domain", action="append", default=[], metavar="DOMAIN", dest="allow_domain",
                   help="only let the new run visit this domain (and its subdomains); repeat for more. When "
                        "the parent run was limited, its allowed domains and start host stay and these add to them")
    say_run_defaults(common.add_model_options(p, from_run=True), "the parent run's")
    agent = common.add_agent_options(p)  # these are the new run's, not taken from the parent
    agent["max_steps"].help = "agent steps the new run may take after the replay (default 15, whatever the parent's budget)"
    agent["ask_before"].help = ("which actions go through the gate: irreversible ones, every action, none (default: "
                                "as the parent run asked; a branch must not ask less than its parent did without "
                                "being told)")
    agent["ask_before"].default = None
    common.add_browser_options(p)


#: Model options that a command going on from a recorded run takes from that run when not given
#: (see model_config); --price too, the run's prices.
FROM_RUN = ("base_url", "model", "temperature", "max_tokens", "timeout", "retries", "image_detail",
            "image_max_width", "image_format", "price")


def say_run_defaults(options: dict, whose: str = "the run's") -> None:
    """Make the model options' help (`options`: add_model_options' by dest) say "(default: the run's)" instead of
    the defaults of a new run."""
    for a in options.values():
        if a.dest in FROM_RUN and a.help:
            text = re.sub(r"\s*\(default [^()]*\)\s*$|;\s*default: OpenAI\s*$", "", a.help)
            what = {"base_url": " server", "model": " model"}.get(a.dest, "")
            a.help = f"{text} (default: {whose}{what})"


def run(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.store import Store
    if args.speed < 0:
        return common.fail("--speed must be 0 or more", 2)
    if not 0.0 <= args.min_similarity <= 1.0:
        return common.fail("--min-similarity must be between 0 and 1", 2)
    try:
        with Store() as store:
            run_id = store.resolve(args.run)
            if args.replay_only:
                return _replay_only(args, store, run_id)
            return _branch(args, store, run_id)
    except CockpitError as e:  # only from opening the store or finding the run
        return common.fail(str(e), 2)


def _check_step(store, run_id: str, step: int | None, **kw) -> str | None:
    from cockpit.core.errors import CockpitError
    from cockpit.core.replay.replay import check_step
    try:
        check_step(store, run_id, step, **kw)
    except CockpitError as e:
        return str(e)
    return None


def _not_recorded(args, store, run_id: str) -> str | None:
    """Why RUN cannot be replayed from its recording (--recorded), or None."""
    if not args.recorded:
        return None
    from cockpit.core.store.webarchive import WebArchive
    arc = WebArchive.of(store.run_dir(run_id))
    if arc is None:
        return (f"run {run_id} has no web recording (made with recording off, before Cockpit recorded the web, "
                "or imported without it); replay it without --recorded")
    if not arc.meta.get("network"):
        return f"run {run_id} recorded no network ({arc.meta.get('why_not') or 'unknown'}); replay it without --recorded"
    return None


def _session(args, offline: bool = False):
    """A browser; `offline` (a replay only, as recorded): one whose requests cannot leave this machine."""
    from cockpit.core.browser.session import BrowserSession
    config = common.browser_config(args)
    if offline and not config.webdriver_url:
        from cockpit.core.replay.recorded import OFFLINE_ARGS
        config.extra_args += list(OFFLINE_ARGS)
    return BrowserSession(config).start()


def _replay_only(args, store, run_id: str) -> int:
    from cockpit.core.agent.approval import approver_for
    from cockpit.core.agent.start import RunContext
    from cockpit.core.errors import CockpitError
    from cockpit.core.replay.replay import Diverged, ReplayOptions, replay
    upto = args.step or None
    if args.step < 0 or (why := _check_step(store, run_id, upto) or _not_recorded(args, store, run_id)):
        return common.fail(why or "STEP must be 0 (the whole run) or a step number", 2)
    try:
        gate_as_parent(args, store.run(run_id))
        ac = common.agent_config(args)
    except CockpitError as e:
        return common.fail(str(e), 2)
    how = " from its recording" if args.recorded else ""
    what = "the whole run" if upto is None else f"steps 1-{upto - 1}" if upto > 2 else \
        "step 1" if upto == 2 else "nothing (only the start page)"
    print(f"replaying {what} of {run_id}{how}", file=sys.stderr)
    try:
        session = _session(args, offline=args.recorded)
    except CockpitError as e:
        return common.fail(str(e), 3)
    try:
        done = replay(RunContext(session, store, approver=approver_for(args.approval),
                                 on_replay=lambda n, info: print(info.describe(), flush=True)), run_id, upto,
                      ReplayOptions(speed=args.speed or None, check=not args.no_check,
                                    min_similarity=args.min_similarity, policy=ac.approval_policy,
                                    rules=ac.risk_rules, recorded=args.recorded))
    except Diverged as e:
        print(f"DIVERGED {e}", flush=True)
        return common.fail(f"the replay of {run_id} diverged: {e}", DIVERGED)
    except CockpitError as e:
        return common.fail(str(e), 3)
    finally:
        session.close()
    steps = [d for d in done if not d.is_check]
    moved = sum(d.id_changed for d in steps)
    missing = [m for d in steps for m in d.missing]
    matched = "the pages matched" if any(d.similarity is not None for d in done) else "the pages were not checked"
    print(f"replayed {plural(len(steps), 'step')} of {run_id}{how}; {matched}"
          + (f" ({moved} element ids changed)" if moved else ""), flush=True)
    if args.recorded:
        print(f"{plural(len(missing), 'request')} not in the recording, answered with a network error"
              + (":" if missing else ""), flush=True)
        for m in missing:
            print(f"  {m}", flush=True)
    return 0


def gate_as_parent(args, parent: dict) -> None:
    """--ask-before not given: the parent run's approval policy (as resume keeps the run's)."""
    if args.ask_before is None:
        from cockpit.core.replay.resume import recorded_approval_policy
        args.ask_before = recorded_approval_policy(parent)


def model_config(args, parent: dict):
    from cockpit.core.replay.reask import model_config_of
    mc = model_config_of(parent)  # as the parent run was configured, screenshots sent in its format
    given = {"base_url": args.base_url, "model": args.model, "temperature": args.temperature,
             "max_tokens": args.max_tokens, "timeout": args.timeout, "max_retries": args.retries,
             "image_detail": args.image_detail, "image_max_width": args.image_max_width,
             "image_format": args.image_format, "qwen_min_pixels": args.qwen_min_pixels,
             "qwen_max_pixels": args.qwen_max_pixels}
    for k, v in given.items():
        if v is not None:
            setattr(mc, k, v)
    if args.price:
        try:
            mc.price_in, mc.price_out = (float(v) for v in args.price.split(","))
        except ValueError:
            raise SystemExit(common.fail(f"--price wants two numbers like 2.5,10, not {args.price!r}", 2)) from None
    return mc


def _branch(args, store, run_id: str) -> int:
    from cockpit.core.agent.approval import approver_for
    from cockpit.core.agent.control import RunControl
    from cockpit.core.agent.start import RunContext
    from cockpit.core.errors import CockpitError
    from cockpit.core.llm.client import ModelClient
    from cockpit.core.replay.branch import branch
    if why := _check_step(store, run_id, args.step) or _not_recorded(args, store, run_id):
        return common.fail(why, 2)
    parent = store.run(run_id)
    try:
        gate_as_parent(args, parent)
        mc, ac = model_config(args, parent), common.agent_config(args)
        if args.allow_domain:  # added to the parent's recorded limits by core.branch
            ac = dataclasses.replace(ac, allowed_domains=args.allow_domain)
    except CockpitError as e:
        return common.fail(str(e), 2)
    if parent.get("demo") and args.base_url is None:
        return common.fail(f"run {run_id} was driven by the offline demo policy, which only runs inside "
                           "`cockpit demo`; give --base-url and --model of a real model to branch it", 2)
    try:
        client = ModelClient(mc)
    except CockpitError as e:
        return common.fail(str(e), 3)
    printer = StepPrinter()
    control = RunControl()
    holder = {}
    print(f"branching {run_id} at step {args.step} with {mc.model} at {mc.display_url}", file=sys.stderr)
    try:
        session = _session(args)
    except CockpitError as e:
        client.close()
        return common.fail(str(e), 3)
    try:
        ctx = RunContext(session, store, client, approver_for(args.approval), control, printer,
                         on_replay=lambda n, info: print(f"replay {info.describe()}", file=sys.stderr, flush=True),
                         on_agent=lambda a: holder.setdefault("agent", a))
        result = branch(ctx, run_id, args.step, ac, min_similarity=args.min_similarity, check=not args.no_check,
                        recorded=args.recorded)
    except KeyboardInterrupt:
        agent = holder.get("agent")
        if agent is not None and agent.run_id:
            store.finish_run(agent.run_id, "stopped", error="interrupted (Ctrl+C)")
        print("cockpit: interrupted", file=sys.stderr)
        return 130
    finally:
        session.close()
        client.close()
    print(result.run_id)
    if result.divergence is not None:
        print(f"DIVERGED {result.divergence.message}")
        return common.fail(f"the replay of {run_id} diverged; run {result.run_id} is marked failed", DIVERGED)
    tail = f": {result.error}" if result.error else ""
    print(result.answer if result.answer is not None else f"({result.status}{tail})")
    return 1 if result.status == "failed" else 0
