"""The window's take-over: the human pauses the agent, acts in its browser by hand, hands back.

A mixin of :class:`cockpit.ui.main_window.MainWindow`: it uses the window's
bridge, take-over panel and error banner. The human's action runs in the
background (the agent's worker does it); its outcome comes back here.
"""
from __future__ import annotations

from cockpit.core.errors import short_message
from cockpit.ui.tasks import run_in_background


class TakeOver:
    def take_over(self) -> None:
        if self.bridge.take_over() is not None:
            self.takeover.set_target(None)
            self.takeover.setVisible(True)
            self.shown_step = None
            self._update_controls()

    def _on_takeover_act(self, action) -> None:
        fut = self.bridge.human_act(action)
        if fut is None:
            self.show_error("There is no run to act in.")
            return
        self.takeover.set_busy(True)
        run_in_background(fut.result, self._after_human_act, name="human-act")

    def _after_human_act(self, done) -> None:
        self.takeover.set_busy(False)
        try:
            row = done.result()
        except Exception as e:
            self.show_error(f"Your action could not run: {short_message(e)}")
            return
        if row.get("status") == "error":
            self.show_error(f"Your action failed: {row.get('error')}")

    def _on_view_point(self, point: tuple) -> None:
        """A click on the screenshot where there is no box: during a take-over, a point to act at."""
        if not self.takeover.isVisible() or self.approval.isVisible():
            return
        x, y = point
        under = self.view.mark_at(x, y)  # the smallest box holding the point, as the pane hit-tests boxes
        label = f"<{under.tag}> {under.label}" if under is not None else ""
        self.takeover.set_point((x, y), label)
        self.view.set_pointer(f"Click ({x}, {y})", None, "#1e88e5")

    def _on_takeover_hand_back(self, note: str) -> None:
        self.takeover.setVisible(False)
        self.bridge.hand_back(note)
