"""`cockpit judge` (being written)."""
from __future__ import annotations

HELP = "(being written)"


def add_parser(sub) -> None:
    sub.add_parser("judge", help=HELP)


def run(args) -> int:
    raise SystemExit("cockpit judge: not written yet")
