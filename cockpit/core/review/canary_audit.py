"""How each judge did on the canary runs: runs with known outcomes, kept in a store of their own.

The canaries (built by :mod:`cockpit.core.demo.canaries` on the demo shop) live in the ``canaries`` folder of
the data folder, a run store like any other, so they never mix with the user's runs, labels or success
rates. Each canary run's known outcome is stored there as a label by the annotator :data:`KNOWN`; a canary's
name is its run's task id. ``cockpit judge`` judges the canaries with the same judge model, k and prompt
version before the user's runs, and the verdicts stay in that store: they are the judge's stored flag.

A judge (model, k, prompt version) is *flagged* when it got any canary wrong, or when its reply on a canary
parsed as neither success nor failure (undecided): such a judge's verdicts are not to be trusted as they
stand. A judge with no verdict on any canary is *unchecked*. Every report that uses a judge's verdicts
(:func:`cockpit.core.review.agreement.report`, ``cockpit agreement``, the Reports tab) says which.
"""
from __future__ import annotations

from pathlib import Path

from cockpit.core.review.consensus import BINARY
from cockpit.core.store import labels as L
from cockpit.core.store.db import DB_NAME, Store

#: The canary store's folder, inside the data folder (the user's store's root).
FOLDER = "canaries"
#: The annotator whose labels are the canaries' known outcomes.
KNOWN = "canary-known-outcome"


def canary_root(store_root: Path | str) -> Path:
    """The canary store's folder for the run store at `store_root`."""
    return Path(store_root) / FOLDER


def known_outcomes(store: Store) -> dict[str, tuple[str, int]]:
    """The canary store's runs with a known outcome: ``{run_id: (canary name, 1 | 0)}``."""
    names = {r["id"]: r["task_id"] or r["id"] for r in store.run_summaries()}
    return {row["run_id"]: (names.get(row["run_id"], row["run_id"]), BINARY[row["verdict"]])
            for row in L.labels(store, annotator=KNOWN) if row["verdict"] in BINARY}


def audit_store(store: Store) -> dict[tuple[str, int, str], dict]:
    """Each judge's result on the canaries of `store` (the canary store), keyed by (judge, k, prompt version):
    ``{total, judged, missed: [names], unreadable: [names], flagged, checked}``; missed: decided the wrong
    way; unreadable: the reply parsed as neither (undecided)."""
    known = known_outcomes(store)
    out: dict[tuple[str, int, str], dict] = {}
    for v in L.verdicts(store):
        if v["run_id"] not in known:
            continue
        key = (v["judge"], v["k"] or 0, v["prompt_version"] or "")
        entry = out.setdefault(key, {"total": len(known), "judged": 0, "missed": [], "unreadable": []})
        name, expected = known[v["run_id"]]
        entry["judged"] += 1
        if v["verdict"] is None:
            entry["unreadable"].append(name)
        elif int(v["verdict"]) != expected:
            entry["missed"].append(name)
    for entry in out.values():
        entry["missed"].sort()
        entry["unreadable"].sort()
        entry["flagged"] = bool(entry["missed"] or entry["unreadable"])
        entry["checked"] = True
    return out


def audit(store_root: Path | str) -> dict[tuple[str, int, str], dict]:
    """:func:`audit_store` of the canary store beside the run store at `store_root` ({} when there is none)."""
    root = canary_root(store_root)
    if not (root / DB_NAME).is_file():
        return {}
    with Store(root, read_only=True) as store:
        return audit_store(store)


UNCHECKED = {"checked": False, "flagged": False, "total": 0, "judged": 0, "missed": [], "unreadable": []}


def result_for(results: dict, judge: str, k: int, prompt_version: str) -> dict:
    """One judge's canary result, or :data:`UNCHECKED` (a copy) when it never judged the canaries."""
    return results.get((judge, k or 0, prompt_version or ""), None) or dict(UNCHECKED)


def describe(entry: dict) -> str:
    """One line for reports: 'passed 6 of 6 canaries', 'FLAGGED: missed buy-refused, ...', 'not checked ...'."""
    if not entry["checked"]:
        return "not checked on the canaries"
    if not entry["flagged"]:
        return f"passed {entry['judged']} of {entry['total']} canaries"
    parts = []
    if entry["missed"]:
        parts.append("missed " + ", ".join(entry["missed"]))
    if entry["unreadable"]:
        parts.append("unreadable replies on " + ", ".join(entry["unreadable"]))
    return "FLAGGED by the canaries: " + "; ".join(parts)
