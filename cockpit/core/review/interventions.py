"""What people did during a run: the figures that tell an assisted success from an autonomous one.

A run is *assisted* when a person, not a policy, did any of these while it ran (all read from what the run
recorded):

- approved or rejected an action at the approval gate (decisions by ``human:<name>``; a policy's
  automatic decisions do not count);
- edited the action before approving it (the decision's ``edited_action``);
- took the browser over: each step a person performed (``steps.actor = 'human'``);
- handed back with a note for the agent (the next step's ``note: ...`` flag);
- resumed a run paused at a breakpoint (the step's ``breakpoint: ...`` flag: a breakpoint holds the run
  until someone resumes it).

Everything else is *autonomous*. Runs recorded elsewhere (imports) have no interventions on record.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from cockpit.core.store import Store

KINDS = ("approved", "rejected", "edited", "takeover_steps", "notes", "breakpoints")
_WORDS = {"approved": ("approval", "approvals"), "rejected": ("rejection", "rejections"),
          "edited": ("edited action", "edited actions"), "takeover_steps": ("take-over step", "take-over steps"),
          "notes": ("note", "notes"), "breakpoints": ("breakpoint resumed", "breakpoints resumed")}


@dataclass
class Interventions:
    approved: int = 0
    rejected: int = 0
    edited: int = 0
    takeover_steps: int = 0
    notes: int = 0
    breakpoints: int = 0

    @property
    def assisted(self) -> bool:
        return any(getattr(self, k) for k in KINDS)

    def describe(self) -> str:
        """'2 approvals, 1 rejection, 3 take-over steps'; 'none' for an autonomous run."""
        parts = [f"{n} {_WORDS[k][n != 1]}" for k in KINDS if (n := getattr(self, k))]
        return ", ".join(parts) or "none"

    def to_dict(self) -> dict:
        return {**asdict(self), "assisted": self.assisted}


def of_runs(store: Store, run_id: str | None = None) -> dict[str, Interventions]:
    """The interventions of every run (or of `run_id`) that had any (a run absent from the result was
    autonomous)."""
    out: dict[str, Interventions] = {}
    for d in store.human_decisions(run_id):
        iv = out.setdefault(d["run_id"], Interventions())
        if d["approved"]:
            iv.approved += 1
        else:
            iv.rejected += 1
        if d.get("edited_action"):
            iv.edited += 1
    for s in store.intervened_steps(run_id):
        iv = out.setdefault(s["run_id"], Interventions())
        if s["actor"] == "human":
            iv.takeover_steps += 1
        flags = json.loads(s["flags"]) if s.get("flags") else []
        iv.notes += sum(1 for f in flags if f.startswith("note: "))
        iv.breakpoints += sum(1 for f in flags if f.startswith("breakpoint: "))
    return {r: iv for r, iv in out.items() if iv.assisted}


def of_run(store: Store, run_id: str) -> Interventions:
    return of_runs(store, run_id).get(run_id, Interventions())
