"""`cockpit branch` (being written)."""
from __future__ import annotations

HELP = "(being written)"


def add_parser(sub) -> None:
    sub.add_parser("branch", help=HELP)


def run(args) -> int:
    raise SystemExit("cockpit branch: not written yet")
