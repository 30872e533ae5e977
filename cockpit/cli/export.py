"""`cockpit export`: write runs as WebVoyager run folders."""
from __future__ import annotations

from pathlib import Path

from . import common

HELP = "write runs in WebVoyager's run-folder layout (for its judge script and other tools)"


def add_parser(sub) -> None:
    p = sub.add_parser("export", help=HELP, description=HELP + ": OUT/task<id>/screenshot{k}.png, "
                       "screenshot{k}_no_box.png, interact_messages.json, agent.log.")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run ids (or unique prefixes); 'all' for every run")
    p.add_argument("--format", choices=("webvoyager",), default="webvoyager", help="output layout")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder to write into")


def run(args) -> int:
    from ..core.errors import CockpitError
    from ..core.store import Store
    from ..core.store.exchange import export_run
    errors = 0
    try:
        store = Store()
    except CockpitError as e:
        return common.fail(str(e), 2)
    with store:
        refs = [r["id"] for r in store.runs(limit=10**9)] if args.runs == ["all"] else args.runs
        for ref in refs:
            try:
                folder = export_run(store, store.resolve(ref), args.out)
                print(folder)
            except CockpitError as e:
                errors += 1
                common.fail(f"{ref}: {e}")
    return 1 if errors else 0
