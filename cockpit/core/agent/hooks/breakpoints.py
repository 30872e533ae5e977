"""Breakpoints as a step hook: the run pauses where one of the settings' breakpoints says, and says why.

The conditions are :mod:`cockpit.core.agent.breakpoints`; this hook checks them
at their points of the step: before it (``step``), after the reply
(``unparsable``), when the model call fails (``model_error``: resuming calls it
again), and before the gate (``loop``, and the action's kind, target text,
address or risk). A hit flags the step (``breakpoint: <reason>``), sends
:class:`events.BreakpointHit` and pauses the run; inside a step the hook waits
for the human to resume, then honours a stop.
"""
from __future__ import annotations

from cockpit.core.agent import events as ev
from cockpit.core.agent.breakpoints import first, on_action
from cockpit.core.agent.hooks.base import StepHook


class Breakpoints(StepHook):
    def step_due(self, n: int) -> None:
        if first(self.run.config.breakpoints, "step", n):
            self._pause(n, f"step {n}")

    def model_failed(self, n: int, error) -> bool:
        if first(self.run.config.breakpoints, "model_error") is None:
            return False
        self._pause(n, f"model error: {error}", wait=True)  # resuming tries the call again
        return True

    def replied(self, st, action) -> None:
        if action is None and first(self.run.config.breakpoints, "unparsable"):
            self._pause(st.n, "unparsable reply")

    def proposed(self, st, action, mark, risk) -> None:
        if action.kind == "answer":
            return
        bps, loops = self.run.config.breakpoints, self.run.loops
        if loops.looping and first(bps, "loop"):
            why = (f"{action} {loops.same} times on an unchanged page" if loops.same >= loops.repeats
                   else f"{loops.noops} actions in a row did nothing")
            self._pause(st.n, f"loop: {why}", wait=True)
            self.run.control.check_stop()
            return
        bp = on_action(bps, action=action, mark=mark, url=st.obs.url, risk_level=risk.level)
        if bp is not None:
            # the action as recorded: secrets masked
            self._pause(st.n, f"{bp.describe()}: {st.record.action}", wait=True)
            self.run.control.check_stop()

    def _pause(self, n: int, reason: str, *, wait: bool = False) -> None:
        """Pause, say why, and (inside a step) wait for the human."""
        run = self.run
        run.flag(n, f"breakpoint: {reason}")
        run.emit(ev.BreakpointHit(run.run_id, n, reason))
        run.control.pause()
        if wait:
            run.control.wait_turn(on_pause=lambda: run.emit(ev.RunPaused(run.run_id, n, between_steps=False)))
