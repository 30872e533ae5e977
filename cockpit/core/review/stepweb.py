"""A step as it was, from the run's web archive: the element under the model's mark or point, and the requests
its action caused (what Review's step view shows under "Recorded page").

The element comes from the step's DOM snapshot (:mod:`cockpit.core.page.snapshot`), at the point the action
aimed at: a mark's hit-tested point (or its box's centre), or a pixel action's point. The requests the action
caused are those that began between the moment the action began (the archive's ``act``) and the start of the
next step (the store's rows, so a human's steps in between count as theirs).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from cockpit.core.actions.grammar import parse_action
from cockpit.core.errors import ActionParseError
from cockpit.core.page.snapshot import SnapElement, element_at
from cockpit.core.store import Store
from cockpit.core.store.stepmarks import step_marks
from cockpit.core.store.webarchive import WebArchive


@dataclass
class StepWeb:
    recorded: bool  # the run has a web archive
    snapshot: bool = False  # the step has a DOM snapshot
    point: tuple[float, float] | None = None
    how: str = ""  # where the point comes from: "mark [3]", "the point (600, 475)"
    element: SnapElement | None = None
    requests: list[dict] = field(default_factory=list)  # method, url, status, type, size, error
    note: str = ""


def step_web(store: Store, run_id: str, row: dict, archive: WebArchive | None = None) -> StepWeb:
    """What the archive keeps of step `row` of run `run_id` (`archive`: already read, to save reading it)."""
    arc = archive or WebArchive.of(store.run_dir(run_id))
    if arc is None:
        return StepWeb(False, note="This run has no web recording (recording was off, or the run is older "
                                   "or imported).")
    n = row["step"]
    out = StepWeb(True)
    rec = arc.steps().get(n)
    snap = arc.body((rec or {}).get("snapshot"))
    out.point, out.how = _aim(store, row)
    if snap is None:
        out.note = "No page snapshot was recorded for this step."
    else:
        out.snapshot = True
        if out.point is not None:
            out.element = element_at(json.loads(snap), *out.point)
    out.requests = caused(store, run_id, row, arc)
    return out


def caused(store: Store, run_id: str, row: dict, arc: WebArchive) -> list[dict]:
    """The recorded requests that began after step `row`'s action began and before the next step started."""
    n = row["step"]
    start = arc.acts().get(n)
    if start is None:
        return []
    later = [r.get("started") for r in store.steps(run_id, with_request=False) if r["step"] > n and r.get("started")]
    end = min(later) if later else float("inf")
    out = []
    for e in arc.requests():
        if start <= e["t"] < end:
            out.append({"method": e.get("method", ""), "url": e.get("url", ""), "status": e.get("status") or 0,
                        "type": e.get("type") or "", "size": (e.get("body") or {}).get("size") or 0,
                        "error": e.get("error") or "", "t": e["t"]})
    return sorted(out, key=lambda r: r["t"])


def _aim(store: Store, row: dict) -> tuple[tuple[float, float] | None, str]:
    try:
        action = parse_action(row.get("action") or "")
    except ActionParseError:
        return None, ""
    if action.point is not None:
        return (float(action.point[0]), float(action.point[1])), f"the point {tuple(action.point)}"
    if action.target is None:
        return None, ""
    marks = step_marks(store, row) or []
    mark = next((m for m in marks if m.id == action.target), None)
    if mark is None:
        return None, ""
    if mark.point is not None:
        return (float(mark.point[0]), float(mark.point[1])), f"mark [{mark.id}]"
    x, y, w, h = mark.bbox
    return (x + w / 2, y + h / 2), f"mark [{mark.id}]"
