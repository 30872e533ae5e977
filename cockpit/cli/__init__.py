"""The `cockpit` command: one sub-command per module in this package."""
from __future__ import annotations

import argparse
import sys

from cockpit.cli import (
    adjudicate,
    agreement,
    annotate,
    branch,
    demo,
    export,
    hops,
    importcmd,
    judge,
    key,
    model,
    observe,
    reask,
    run,
    runs,
    store,
    tiers,
)
from cockpit.core.logsetup import setup_logging

COMMANDS = {"run": run, "demo": demo, "runs": runs, "export": export, "import": importcmd,
            "judge": judge, "agreement": agreement, "reask": reask, "branch": branch, "key": key,
            "hops": hops, "observe": observe, "model": model, "annotate": annotate, "adjudicate": adjudicate,
            "store": store, "tiers": tiers}
from cockpit.cli import resume  # noqa: E402

COMMANDS.update({"resume": resume, "close": resume.Close})


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cockpit",
        description="Cockpit: build, supervise and study multimodal web agents. "
                    "With no command, opens the cockpit window.")
    p.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for mod in COMMANDS.values():
        mod.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.verbose)
    if not args.command:
        return _window()
    if not (args.command == "demo" and not args.headless):  # the window checks its data folder itself, with a box
        problem = _data_folder_problem()
        if problem:
            print(f"cockpit: {problem}", file=sys.stderr)
            return 2
    try:
        return COMMANDS[args.command].run(args) or 0
    except KeyboardInterrupt:
        print("cockpit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `cockpit runs | head`: the reader left, nothing to report
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _data_folder_problem() -> str | None:
    """Why the data folder cannot be created (one line: the folder and the fix), or None.

    A folder that exists but cannot be written is not refused here: `cockpit runs` and `export` still read it."""
    from cockpit.core import paths
    try:
        paths.home()
    except paths.DataFolderError as e:
        return str(e)
    return None


def _window() -> int:
    """`cockpit` alone opens the window; without a display, or without a usable data folder, it says what to
    do instead (run_window also shows a data folder problem in a message box)."""
    from cockpit.core.errors import CockpitError
    from cockpit.ui.app import run_window
    try:
        return run_window()
    except CockpitError as e:
        print(f"cockpit: cannot open the window: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
