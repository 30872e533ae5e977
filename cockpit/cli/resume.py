"""`cockpit resume` and `cockpit close`: continue an interrupted run in a new browser, or give up on it."""
from __future__ import annotations

import dataclasses
import sys

from cockpit.cli import common
from cockpit.cli.branch import say_run_defaults
from cockpit.cli.progress import StepPrinter
from cockpit.core.words import plural

HELP = "continue an interrupted (or failed) run in a new browser, as the same run"
CLOSE_HELP = "mark an interrupted run closed (its steps are kept; it can no longer be resumed)"


def add_parser(sub) -> None:
    p = sub.add_parser("resume", help=HELP, description=(
        HELP + ". A run whose process died (killed, crashed) shows as interrupted in `cockpit runs`. "
        "Resuming keeps its run id and recorded steps: new steps are numbered after the last one, the "
        "model is given the conversation so far, and the page is restored by opening the address the "
        "last step ended on (or, with --replay, by replaying the recorded actions). Model options "
        "default to the run's model, server and settings, and the run's world-model preview and planning "
        "settings are used again (--no-lookahead: go on without them). Exit codes: 0 done, 1 the run failed, "
        "2 the run cannot be resumed or bad input, 3 the browser or model could not be used."))
    p.add_argument("run", help="run id or a unique prefix (see `cockpit runs`)")
    p.add_argument("--replay", action="store_true",
                   help="restore the page by replaying the recorded actions (irreversible ones are asked "
                        "about again) instead of opening the last address")
    p.add_argument("--no-lookahead", action="store_true",
                   help="go on without the world-model preview and planning the run was started with "
                        "(default: use them again)")
    say_run_defaults(common.add_model_options(p, from_run=True))
    agent = common.add_agent_options(p)
    p.set_defaults(max_steps=None, ask_before=None)
    # the budget and the gate mean something else here
    agent["max_steps"].help = "agent steps allowed from here (default: what is left of the run's budget)"
    agent["ask_before"].help = "which actions go through the gate (default: as the run was started)"
    agent["keep_images"].help = ("screenshots attached to each request; older ones become a note (default 3, "
                                 "whatever the run used)")
    agent["memory"].help = ("procedural memory for a run resumed before its first step: include the action "
                            "sequences of the K most similar past successful runs as examples (default 0 = off); a "
                            "run with steps goes on with the prompt it had")
    common.add_browser_options(p)


def run(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.replay.resume import plan
    from cockpit.core.store import Store
    try:
        with Store() as store:
            run_id = store.resolve(args.run)
            try:
                p = plan(store, run_id, replay=args.replay, max_steps=args.max_steps)
            except CockpitError as e:
                return common.fail(f"cannot resume: {e}", 2)
            return _resume(args, store, run_id, p)
    except CockpitError as e:  # only from opening the store or finding the run
        return common.fail(str(e), 2)


def _resume(args, store, run_id: str, p) -> int:
    from cockpit.cli.branch import gate_as_parent, model_config
    from cockpit.core.agent.approval import approver_for
    from cockpit.core.agent.control import RunControl
    from cockpit.core.agent.start import RunContext
    from cockpit.core.browser.session import BrowserSession
    from cockpit.core.errors import CockpitError
    from cockpit.core.llm.client import ModelClient
    from cockpit.core.replay.resume import resume, usable_lookahead
    run = p.run
    if run.get("demo") and args.base_url is None:
        return common.fail(f"run {run_id} was driven by the offline demo policy, which only runs inside "
                           "the window; give --base-url and --model of a real model to resume it", 2)
    try:
        mc = model_config(args, run)
        args.max_steps = p.budget  # (checked again by resume)
        gate_as_parent(args, run)  # the run's own gate: a resume must not ask less than the run did
        ac = common.agent_config(args)
    except CockpitError as e:
        return common.fail(str(e), 2)
    try:
        client = ModelClient(mc)
    except CockpitError as e:
        return common.fail(str(e), 3)
    how = "replaying its steps" if args.replay else f"at {p.url}"
    print(f"resuming {run_id} at step {p.first_step} ({plural(p.budget, 'agent step')} left), {how}, "
          f"with {mc.model} at {mc.display_url}", file=sys.stderr)
    if not args.no_lookahead:  # the run's own look-ahead, looked up once here (its keys too) and handed on
        preview, planning = usable_lookahead(run, mc)
        ac = dataclasses.replace(ac, preview=preview, planning=planning)
        if said := lookahead_note(preview, planning):
            print(said, file=sys.stderr)
    try:
        session = BrowserSession(common.browser_config(args)).start()
    except CockpitError as e:
        client.close()
        return common.fail(str(e), 3)
    try:
        ctx = RunContext(session, store, client, approver_for(args.approval), RunControl(), StepPrinter(),
                         on_replay=lambda n, info: print(f"replay {info.describe()}", file=sys.stderr, flush=True))
        result = resume(ctx, run_id, ac, replay=args.replay, max_steps=p.budget, keep_lookahead=False, planned=p)
    except KeyboardInterrupt:
        store.finish_run(run_id, "stopped", error="interrupted (Ctrl+C)")
        print("cockpit: interrupted", file=sys.stderr)
        return 130
    except CockpitError as e:
        return common.fail(f"cannot resume: {e}", 2)
    finally:
        session.close()
        client.close()
    tail = f": {result.error}" if result.error else ""
    print(result.answer if result.answer is not None else f"({result.status}{tail})")
    return 1 if result.status == "failed" else 0


def lookahead_note(preview, planning) -> str | None:
    """The line saying the resume goes on with the run's recorded preview / planning (those it can use:
    core.resume.usable_lookahead); None without them."""
    said = []
    if preview is not None:
        said.append(f"world-model preview (model {preview.model.model} at {preview.model.display_url})")
    if planning is not None:
        world = planning.world
        said.append(f"planning (k={planning.k}, horizon {planning.horizon}"
                    + (f", world model {world.model.model} at {world.model.display_url})" if world else ")"))
    if not said:
        return None
    return (f"resuming with the run's {' and '.join(said)}; --no-lookahead goes on without "
            + ("it" if len(said) == 1 else "them"))


class Close:
    """`cockpit close RUN`."""

    @staticmethod
    def add_parser(sub) -> None:
        p = sub.add_parser("close", help=CLOSE_HELP, description=CLOSE_HELP + ". For a run whose process "
                           "died and that you do not want to resume (see `cockpit resume`).")
        p.add_argument("run", help="run id or a unique prefix (see `cockpit runs`)")

    @staticmethod
    def run(args) -> int:
        from cockpit.core.errors import CockpitError
        from cockpit.core.replay.resume import close
        from cockpit.core.store import Store
        try:
            with Store() as store:
                run_id = store.resolve(args.run)
                close(store, run_id)
                steps = store.run(run_id)["steps"]
        except CockpitError as e:
            return common.fail(f"cannot close: {e}", 2)
        print(f"closed {run_id} ({plural(steps, 'step')} kept)")
        return 0
