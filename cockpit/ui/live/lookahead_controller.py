"""The window's side of previews and planning (issue #7), wired by the window in a few lines.

Owns the "Plan" toolbar box, the Plan tab (:class:`~cockpit.ui.live.plan_table.PlanTable`)
and the status bar's planning-cost label; turns core events into what they
show; and builds the agent's preview and planning configs from the settings.
Picking another candidate goes through the approval panel (its `pick`), which
sends the Decision to the bridge like every other answer.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QCheckBox, QLabel, QTabWidget, QToolBar

from cockpit.core.agent import events as ev
from cockpit.ui.live.plan_table import PlanTable


def tokens_text(n: int) -> str:
    return f"{n} tok" if n < 1000 else f"{n / 1000:.1f}k tok" if n < 1_000_000 else f"{n / 1e6:.1f}M tok"


class LookaheadController:
    def __init__(self, settings: Callable, following: Callable[[], bool]):
        """`settings()`: today's Settings; `following()`: the Live pane follows the run (shows no past step)."""
        self._settings, self._following = settings, following
        self.table = PlanTable()
        self.box = QCheckBox("Plan")
        self.box.setToolTip("Planning mode: the agent proposes several candidate actions, the world model "
                            "simulates and scores each, the best one runs (through the approval gate). More "
                            "model calls per step; set the world model and k in Model…. Not with the demo policy.")
        self.box.setChecked(settings().planning)
        self.status = QLabel("")
        self.status.setToolTip("Look-ahead model calls (previews, refine, simulate, score), apart from the "
                               "agent's own")
        self._live: tuple[int, dict] | None = None  # the running step's plan, from PlanMade

    # ---------- wiring (called from the window) ----------
    def install(self, tabs: QTabWidget, toolbar: QToolBar, approval) -> None:
        """The Plan tab into `tabs`; the Plan box at the end of `toolbar` (the run's options: beside Memory and
        Demo)."""
        self.tabs = tabs
        tabs.addTab(self.table, "Plan")
        toolbar.addWidget(self.box)
        self.approval = approval
        self.table.candidatePicked.connect(approval.pick)

    def agent_options(self, demo: bool) -> dict:
        """AgentConfig's `preview` and `planning` for a run started now (none with the demo policy)."""
        s = self._settings()
        s.planning = self.box.isChecked()
        if demo:
            return {"preview": None, "planning": None}
        return {"preview": s.preview_config(), "planning": s.planning_config()}

    def settings_changed(self) -> None:
        self.box.setChecked(self._settings().planning)

    # ---------- a run ----------
    def reset(self) -> None:
        self._live = None
        self.table.clear()
        self.status.setText("")

    def on_event(self, e: ev.Event) -> None:
        if isinstance(e, ev.PlanMade):
            if self._live is None:  # the run's first plan: bring the Plan tab forward, once
                self.tabs.setCurrentWidget(self.table)
            self._live = (e.step, e.plan)
            if self._following():
                self.table.show_plan(e.step, e.plan)
        elif isinstance(e, ev.PlanningCost):
            tok = e.total_prompt_tokens + e.total_completion_tokens
            cost = f", ${e.total_cost:.4f}" if e.total_cost else ""
            self.status.setText(f"plan: {e.total_calls} call{'s' if e.total_calls != 1 else ''}, "
                                f"{tokens_text(tok)}{cost}")
        elif isinstance(e, ev.ApprovalDecided) and e.approved and self._live and self._live[0] == e.step:
            # the human picked another candidate: that row runs now
            for c in self._live[1].get("candidates") or []:
                if c.get("kept") and c.get("action") == e.action and c.get("index") != self._live[1].get("chosen"):
                    self._live = (e.step, dict(self._live[1], picked=c["index"], picked_by=e.by))
                    self.table.set_picked(e.step, c["index"], e.by)
                    break

    def on_approval(self, req) -> None:
        """The gate is open: show the step's plan and let the human pick from the table."""
        if not req.candidates:
            return
        if self.table.step != req.step:
            plan = self._live[1] if self._live and self._live[0] == req.step else \
                {"candidates": list(req.candidates), "chosen": req.chosen}
            self.table.show_plan(req.step, plan)
        self.table.set_pickable(req.step, self.approval.pickable())

    def on_approval_closed(self) -> None:
        self.table.set_pickable(None, ())

    def show_step(self, step: int, row: dict) -> None:
        """A past step was opened: its stored plan."""
        self.table.show_plan(step, row.get("plan"))
