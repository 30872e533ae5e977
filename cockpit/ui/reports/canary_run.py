"""Reports' Judge runs the canary runs first, as `cockpit judge` does: the canaries judged on the judge's thread,
and the line that says how the judge did on them."""
from __future__ import annotations

import asyncio

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTableWidget

from cockpit.core.demo.canaries import check_judge
from cockpit.core.errors import CockpitError
from cockpit.core.llm.client import ModelClient
from cockpit.core.review.canary_audit import describe
from cockpit.core.words import plural
from cockpit.ui.fieldnames import JUDGE_SERVER_FIELD, in_window_terms
from cockpit.ui.plaintext import tip


def judge_canaries(options: dict, making) -> dict:
    """On the judge's thread: the canary runs judged with the judge of `options` (Reports' judge options: store_root,
    config, k, protocol, redo), made first when needed (making(name) before each); {"error": why} when they could
    not be (no browser to make them, no server). A judge with no API key raises here (ModelError), before any
    canary is made, as `cockpit judge` says so first."""
    ModelClient(options["config"]).close()
    try:
        return asyncio.run(check_judge(options["store_root"], config=options["config"], k=options["k"],
                                       protocol=options["protocol"], redo=options["redo"], progress=making))
    except CockpitError as e:
        return {"error": str(e)}


def canary_line(canary: dict, model: str) -> tuple[str, bool]:
    """What to say of the judge's canary result, and whether it is bad news (flagged, or not all judged)."""
    if "error" in canary:
        return (in_window_terms(f"Canary runs: could not be judged ({canary['error']}); judge {model} reads as not "
                                "checked", JUDGE_SERVER_FIELD), True)
    missing = (f"; {plural(len(canary['errors']), 'canary')} not judged: {', '.join(canary['errors'])}"
               if canary["errors"] else "")
    text = f"Canary runs: judge {model} {'is ' if canary['flagged'] else ''}{describe(canary)}{missing}"
    if canary["flagged"]:
        text += ". Its verdicts are reported as flagged and left out of the success rates."
    return text, bool(canary["flagged"] or canary["errors"])


def mark_flagged(table: QTableWidget, judges: list[dict]) -> None:
    """A judge the canaries flagged is seen in the judges table's first column (⚠, red, why in its tooltip), not
    only in the canary column at the far right, which a 1024-px window shows only when scrolled sideways."""
    for i, r in enumerate(judges):
        if r["canary"]["flagged"]:
            item = table.item(i, 0)
            item.setText(f"⚠ {r['judge']}")
            item.setForeground(QColor("#c0392b"))
            item.setToolTip(tip(f"{r['judge']}: FLAGGED by the canary runs: {describe(r['canary'])}"))
