"""What the Live pane says between the browser being up and the start page shown (walkthrough 8, B2): it said
"Starting the browser…" while the browser was up and a slow start page loaded, and nothing once Stop ended that
load. A branch or a resume replays its steps instead (its own captions say so)."""
from __future__ import annotations

from cockpit.core.agent import events as ev
from cockpit.core.errors import CockpitError


def opening_text(url: str) -> str:
    return f"The browser is up; opening the start page {url}…"


STOPPED_TEXT = "The run was stopped while its start page was loading: no step was taken."


def follow(pane, e: ev.Event) -> None:
    """`e` from the run, for `pane` (the LivePane) while no page of the run has been shown."""
    if pane.live_frame is not None or pane.replayed_run:
        return
    if isinstance(e, ev.RunStarted) and not pane.runs.resumed_at and not _branch(pane, e.run_id):
        pane.view.clear(opening_text(e.url))
    elif isinstance(e, ev.RunFinished) and e.status == "stopped" and pane.runs.latest_step == 0:
        pane.view.clear(STOPPED_TEXT)


def _branch(pane, run_id: str) -> bool:
    try:
        return bool(pane.store.run(run_id).get("parent_run"))
    except CockpitError:
        return False
