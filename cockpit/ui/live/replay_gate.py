"""The approval gate of "Replay in browser" in the Live pane (walkthrough 8, B1): what the person approves is the
page as it is now, not as it was recorded. The pane stayed dark ("Replaying run …"), the step's row opened the
recorded page (Invoice 102 listed, its Delete boxed) while the click went to the live page (where the first row was
Invoice 103), and the caption named another run.

While the gate asks about a replayed step, the pane shows the request's own picture of the page
(:attr:`~cockpit.core.agent.approval.ApprovalRequest.page`, taken just before asking), the element found on it
now boxed (or a pixel step's crosshair), captioned as the page now, and the details show the recorded step."""
from __future__ import annotations

from cockpit.core.agent.approval import ApprovalRequest
from cockpit.core.errors import CockpitError

#: The caption's head while the gate asks about a replayed step: the picture is the live page's, not the recording's.
PAGE_NOW = "the page now"


def asked_now(pane) -> ApprovalRequest | None:
    """The question the gate asks about a replayed step, with its picture of the page now (else None)."""
    req = pane.approval.request
    if not pane.replayed_run or req is None or not req.page:
        return None
    return req


def caption(req: ApprovalRequest, run_id: str) -> str:
    """"the page now — step 3 of run <id> — <address>": what the picture is, and which step of which run."""
    return f"{PAGE_NOW} — step {req.step} of run {run_id}" + (f" — {req.url}" if req.url else "")


def show_page_now(pane, req: ApprovalRequest, color: str) -> None:
    """The page the gate asks about as it is now: its target boxed in `color` (a pixel step: the crosshair, and the
    element under it now), the caption, the step's row, and the recorded step's details beside it."""
    pane.shown_step = pane.live_step = None
    pane.view.set_screenshot(req.page, [req.mark] if req.mark is not None else [])
    if req.action.point is not None:
        under = {"resolved": {"box": list(req.mark.bbox)}} if req.mark is not None else None
        pane.view.set_pointer(req.action, under, color)
    elif req.mark is not None:
        pane.view.set_highlight(req.mark.id, color)
    pane.banner.setText(caption(req, pane.replayed_run))
    pane.approval.set_away(False)
    if pane.log_panel.current_step() != req.step:
        pane.log_panel.select_step(req.step)  # its row, current (it opens this page again: show_step)
    try:
        run = pane.store.run(pane.replayed_run)
        row = pane.store.step(pane.replayed_run, req.step)
    except CockpitError:  # the run is gone from the store meanwhile: the question's panel says what it asks
        return
    if row is not None:
        pane.details.show_step(pane.store, run, row)


def shown(pane, step: int | None, color: str) -> bool:
    """Show the page now when the gate asks about replayed step `step` (None: whichever it asks about); False (the
    pane shows what it would) when it does not ask, or about another step."""
    req = asked_now(pane)
    if req is None or step is not None and step != req.step:
        return False
    show_page_now(pane, req, color)
    return True
