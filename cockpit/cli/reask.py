"""`cockpit reask`: send a recorded step's request to a model again and compare the replies."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from cockpit.cli import common
from cockpit.core.words import plural

HELP = "ask the model again what it would do at a recorded step (no browser is touched)"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "reask", help=HELP,
        description=HELP + ". Rebuilds the exact request sent at STEP (system prompt, history, the "
        "screenshots attached), optionally edited, sends it and prints the original Thought/Action "
        "next to the new one. The run is not changed; the re-ask is kept beside the step's files "
        "(reask-<n>.json). Exit status: 0 done, 2 bad input, 3 the model call failed.")
    p.add_argument("run", help="run id (or a unique prefix; see `cockpit runs`)")
    p.add_argument("step", type=int, help="step number (1 is the first step)")
    g = p.add_argument_group("edits (default: everything as sent at that step)")
    g.add_argument("--model", help="model name (default: the run's model)")
    g.add_argument("--base-url", metavar="URL",
                   help="OpenAI-compatible server URL, or 'openai' for OpenAI's API (default: the run's server)")
    g.add_argument("--temperature", type=float, help="sampling temperature (default: the run's)")
    g.add_argument("--max-tokens", type=int, help="reply length limit (default: the run's)")
    g.add_argument("--prompt-file", type=Path, metavar="FILE", help="replace the system prompt with this file's text")
    g.add_argument("--keep-images", type=int, metavar="N",
                   help="attach only the newest N screenshots (older ones become a note); more than were "
                        "sent restores older ones where their message is on record")
    g.add_argument("--note", metavar="TEXT", help="text appended to the last user message")
    out = p.add_argument_group("output")
    out.add_argument("--show-request", action="store_true",
                     help="print the messages sent (screenshots shown as [screenshot of step j])")
    out.add_argument("--json", action="store_true", help="print the result as JSON")
    out.add_argument("--no-save", action="store_true", help="do not keep this re-ask beside the step's files")


def run(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.llm.client import ModelCancelled, ModelError
    from cockpit.core.replay.reask import ReaskEdit, reask
    from cockpit.core.store import Store
    if args.step < 1:
        return common.fail(f"STEP must be 1 or more, not {args.step}", 2)
    if args.keep_images is not None and args.keep_images < 0:
        return common.fail(f"--keep-images must be 0 or more, not {args.keep_images}", 2)
    system = None
    if args.prompt_file is not None:
        try:
            system = args.prompt_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as e:
            why = getattr(e, "strerror", None) or e
            return common.fail(f"cannot read the prompt file {args.prompt_file}: {why}", 2)
        if not system:
            return common.fail(f"the prompt file {args.prompt_file} is empty", 2)
    base_url = args.base_url
    if base_url is not None and base_url.strip().lower() in ("openai", ""):
        base_url = ""
    edit = ReaskEdit(system=system, keep_images=args.keep_images, model=args.model, base_url=base_url,
                     temperature=args.temperature, max_tokens=args.max_tokens, extra_user_note=args.note)
    try:
        with Store() as store:
            run_id = store.resolve(args.run)
            try:
                result = reask(store, run_id, args.step, edit, save=not args.no_save)
            except ModelError as e:
                return common.fail(f"the model call failed: {e}", 3)
            except ModelCancelled as e:
                return common.fail(str(e), 130)
    except CockpitError as e:
        return common.fail(str(e), 2)
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
        return 0
    _print(result, edit, args.show_request)
    return 0


def _print(r, edit, show_request: bool, stream=None) -> None:
    from cockpit.core.replay.reask import request_text
    stream = stream or sys.stdout

    def say(text: str = "") -> None:
        print(text, file=stream)

    if show_request:
        say(f"REQUEST SENT ({plural(len(r.messages_sent), 'message')})")
        say(request_text(r.messages_sent))
        say()
    shots = ", ".join(str(j) for j in r.images) or "none"
    say(f"run {r.run_id}, step {r.step}: re-asked with {plural(len(r.messages_sent), 'message')}, screenshots of "
        f"steps: {shots}")
    say(f"edits: {', '.join(edit.describe()) or 'none (the request as sent)'}")
    say()
    say(f"ORIGINAL ({r.original_model})")
    _reply(say, r.original_thought, r.original_action, "" if r.original_reply is not None else
           "(no reply was recorded for this step)", r.original_reply)
    say()
    say(f"NEW ({r.model})")
    _reply(say, r.new_thought, r.new_action, r.parse_error, r.new_reply)
    say()
    verdict = "same action as recorded" if not r.changed else "a different action"
    cost = "cost unknown" if r.cost is None else f"${r.cost:.4f}"
    say(f"-> {verdict}")
    say(f"model {r.model} at {r.base_url}, temperature {r.temperature:g}; {r.prompt_tokens} + "
        f"{r.completion_tokens} = {plural(r.tokens, 'token')}, {cost}, {r.seconds:.1f} s")
    if r.saved:
        say(f"kept as {r.saved} (re-ask #{r.n})")
    elif r.save_error:
        say(f"not kept: {r.save_error}")


def _reply(say, thought: str, action: str | None, problem: str, raw: str | None) -> None:
    say("  Thought: " + _indent(thought or "(none)"))
    say("  Action:  " + (action if action else f"(none) {problem}".strip()))
    if not action and raw:
        say("  Reply:   " + _indent(raw))


def _indent(text: str) -> str:
    lines = text.strip().splitlines() or [""]
    return lines[0] + "".join("\n" + textwrap.indent(line, " " * 11) for line in lines[1:])
