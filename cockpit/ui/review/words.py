"""Identifiers as a person reads them in Review: "wrong target", not "wrong_target"."""
from __future__ import annotations


def words(identifier: str | None) -> str:
    """`wrong_target` -> `wrong target`; text that is not an identifier is returned as it is."""
    return (identifier or "").replace("_", " ")
