"""What the window does with the bridge's signals: the run's events, observations, approvals, states, end.

A mixin of :class:`cockpit.ui.main_window.MainWindow` (connected in its
``_connect``): it draws into the window's view, banner, panels and status bar.
"""
from __future__ import annotations

import functools

from cockpit.core.agent import events as ev
from cockpit.core.errors import CockpitError
from cockpit.core.store.records import status_text
from cockpit.ui.live.bridge import REPLAYING, STOPPING, TAKEN_OVER, WAITING_MODEL

HIGHLIGHT_AGENT, HIGHLIGHT_HUMAN = "#e53935", "#1e88e5"


def while_open(slot):
    """A bridge slot that does nothing once the window has closed: a queued signal posted before closeEvent
    disconnected it is still delivered, and the window's store is closed by then."""
    @functools.wraps(slot)
    def guarded(self, *args):
        if getattr(self, "_unhooked", False):
            return None
        return slot(self, *args)
    return guarded


class BridgeEvents:
    @while_open
    def _on_bridge_event(self, e: ev.Event) -> None:
        self.began = True
        self.log_panel.add_event(e)
        self.lookahead.on_event(e)
        if isinstance(e, ev.RunStarted):
            self.run_id = e.run_id
            self.setWindowTitle(f"Cockpit — {e.task[:80]}")
            label = " [DEMO POLICY: rule-based, not a model]" if self.demo_box.isChecked() else ""
            self.banner.setText(f"Run {e.run_id}{label}")
            self.st_browser.setText("browser: running")
            self._show_fence(e.run_id)
        elif isinstance(e, ev.ObservationReady):
            self.last_marks = list(e.marks)
            if e.stored:
                self.latest_step = e.step
        elif isinstance(e, ev.ActionProposed) and self.shown_step is None and (e.target or e.pointer):
            if e.pointer:  # a pixel action: the crosshair and the element under it, before the gate asks
                self.view.set_pointer(e.action, e.pointer, HIGHLIGHT_AGENT)
            else:
                self.view.set_highlight(e.target, HIGHLIGHT_AGENT)
        elif isinstance(e, ev.ModelReplied):
            self.tokens += e.prompt_tokens + e.completion_tokens
            self.cost += e.cost or 0.0
            self.agent_steps += 1
        elif isinstance(e, ev.StepFinished):
            if e.actor == "human":
                self.takeover.set_busy(False)
        elif isinstance(e, ev.RunFinished):
            status = status_text(e.status)  # "refused (stopped at the gate)"
            self.statusBar().showMessage(f"Run finished ({status})" + (f": {e.answer}" if e.answer else ""), 30000)
            if self.shown_step is None:  # else the pane's caption stays that of the step shown
                self.banner.setText(f"Run {e.run_id} finished: {status}" + (f" — answer: {e.answer[:120]}"
                                                                             if e.answer else ""))
        elif isinstance(e, ev.RunFailed):
            self.show_error(f"The run failed: {e.error}")
        elif isinstance(e, ev.BreakpointHit):
            self.statusBar().showMessage(f"Paused at step {e.step}: breakpoint {e.reason}", 30000)
            self.bp_panel.refresh()
        elif isinstance(e, ev.HopsTracked):
            self.hop_strip.set_hops(list(e.names))
        elif isinstance(e, ev.HopPassed):
            self.hop_strip.pass_hop(e.hop, e.step)
            if not e.again:  # hops passed before a resume: on the strip, not news
                self.statusBar().showMessage(f"Hop {e.hop}/{e.total} passed at step {e.step}: {e.name}", 15000)
        elif isinstance(e, ev.MemoriesUsed):
            self.hop_strip.set_memories([(rid, self._task_of(rid)) for rid in e.run_ids])
        self._sync_details(getattr(e, "step", None))
        self._update_status()

    def _show_fence(self, run_id: str) -> None:
        """Say in the status bar when the run may only visit some sites (as recorded with the run)."""
        from cockpit.core.safety.runlimits import recorded_policy
        try:
            nav = recorded_policy(self.store.run(run_id))
        except CockpitError:  # the run's row cannot be read here (StoreError): nothing to add
            return
        if nav is not None and nav.restricted:
            before = self.statusBar().currentMessage()
            self.statusBar().showMessage((before + " — " if before else "") +
                                         f"this run may only visit {nav.describe_domains()}", 30000)

    def _task_of(self, run_id: str) -> str:
        try:
            return self.store.run(run_id)["task"]
        except Exception:  # a memory's run was deleted meanwhile: show its id alone
            return "?"

    @while_open
    def _on_bridge_observed(self, e: ev.ObservationReady, image) -> None:
        self.takeover.forget_target()  # a new page, or the same one looked at again: marks are numbered anew
        if self.shown_step is None:
            self.view.set_screenshot(image, list(e.marks), keep_view=True)
            what = (f"step {e.step}: what the model sees" if e.stored else
                    "live page now (during take-over)" if self.bridge.taken_over else "live page now (paused)")
            self.banner.setText(f"{what} — {e.title[:60]} — {e.url[:80]}")
            self.live_step = None if e.stored else e.step
            if not e.stored:  # marks corrected on it go to the step that will see this page (a human's acts on it)
                self._show_corrections(e.step)

    @while_open
    def _on_bridge_failed(self, message: str) -> None:
        self.show_error(message)
        if not self.began:  # it never started: nothing of it (or of the last run) to show
            self.banner.setText("The run did not start.")
            self.view.clear("The run did not start; the red banner above says why.")
            self.st_time.setText("")
            self._update_status()

    def _on_bridge_approval(self, req) -> None:
        self.approval.show_request(req, self.step_label(req.step))
        self.lookahead.on_approval(req)
        if self.shown_step is None and req.mark is not None:
            self.view.set_highlight(req.mark.id, HIGHLIGHT_AGENT)
        self.raise_()

    @while_open
    def _on_bridge_state(self, state: str) -> None:
        self.st_state.setText(state + (" (you have the browser)" if self.bridge.taken_over
                                       and state != TAKEN_OVER else ""))
        self.takeover.setVisible(self.bridge.taken_over and state != STOPPING)
        self._update_controls()

    @while_open
    def _on_bridge_replayed(self, step: int, what: str) -> None:
        self.began = True
        self.banner.setText(f"replay: {what}" if step == 0 else f"replayed step {step}: {what}")
        self.statusBar().showMessage(what, 10000)

    @while_open
    def _on_bridge_live(self, image) -> None:
        if self.shown_step is None and self.bridge.state in (WAITING_MODEL, REPLAYING):
            self.view.set_screenshot(image, self.last_marks, keep_view=True)

    @while_open
    def _on_bridge_ended(self, result) -> None:
        self.running = False
        self.approval.close_request()
        self.takeover.setVisible(False)
        self._sync_details(self.log_panel.current_step())  # stored now, with the run's answer
        self.st_browser.setText("browser: " + ("open" if self.bridge.session and self.bridge.session.driver
                                               else "closed"))
        self._update_controls()
