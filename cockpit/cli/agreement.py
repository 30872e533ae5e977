"""`cockpit agreement` (being written)."""
from __future__ import annotations

HELP = "(being written)"


def add_parser(sub) -> None:
    sub.add_parser("agreement", help=HELP)


def run(args) -> int:
    raise SystemExit("cockpit agreement: not written yet")
