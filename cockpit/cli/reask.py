"""`cockpit reask` (being written)."""
from __future__ import annotations

HELP = "(being written)"


def add_parser(sub) -> None:
    sub.add_parser("reask", help=HELP)


def run(args) -> int:
    raise SystemExit("cockpit reask: not written yet")
