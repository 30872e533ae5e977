"""The human's own actions during a take-over: sent to the agent's browser, their outcome reported back.

The take-over panel says what the human wants (a box, a point, an address); this runs it in the background
(the agent's worker does it) and says when it failed. The panel is busy meanwhile.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from cockpit.core.errors import short_message
from cockpit.ui.background import run_in_background
from cockpit.ui.live.bridge import AgentBridge
from cockpit.ui.live.takeover_panel import TakeOverPanel


class HumanActs(QObject):
    error = Signal(str)

    def __init__(self, bridge: AgentBridge, panel: TakeOverPanel, parent=None):
        super().__init__(parent)
        self.bridge, self.panel = bridge, panel
        panel.act.connect(self.act)
        panel.handBack.connect(self.hand_back)

    def act(self, action) -> None:
        fut = self.bridge.human_act(action)
        if fut is None:
            self.error.emit("There is no run to act in.")
            return
        self.panel.set_busy(True)
        run_in_background(fut.result, self._done, name="human-act")

    def _done(self, done) -> None:
        self.panel.set_busy(False)
        try:
            row = done.result()
        except Exception as e:
            self.error.emit(f"Your action could not run: {short_message(e)}")
            return
        if row.get("status") == "error":
            self.error.emit(f"Your action failed: {row.get('error')}")

    def hand_back(self, note: str) -> None:
        self.panel.setVisible(False)
        self.bridge.hand_back(note)
