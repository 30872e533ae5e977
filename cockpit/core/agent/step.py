"""What one step of the agent loop gathered so far (:class:`Step`); its record becomes a store row.

The step's record is the store's own typed step (:class:`cockpit.core.store.records.Step`): the phases
write its fields (:meth:`Step.write`, which refuses a field the record does not have) and the run record
stores it (cockpit.core.agent.record); what the store gives back is the same class."""
from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field

from cockpit.core.actions.coords import Voice
from cockpit.core.llm.streaming import Partial
from cockpit.core.page.observation import Observation
from cockpit.core.safety.target import Target
from cockpit.core.store import records


@dataclass
class Step:
    """What one step gathered so far; becomes a store row."""
    n: int
    started: float
    obs: Observation | None = None
    files: dict = field(default_factory=dict)
    request: list = field(default_factory=list)
    record: records.Step = field(default_factory=records.Step)  # what is stored of it, as far as it got
    decision: dict | None = None
    press_enter: bool = True  # False: a Type whose Enter could submit an irreversible form
    target: Target | None = None  # what the action acts on: its box, or what is under its point (safety.target)
    voice: Voice | None = None  # how points are named to a pixel model (cockpit.core.agent.pixelstep.voice)
    marked_write: Future | None = None  # the marked PNG being encoded and written; see Agent._files()
    partial: Partial | None = None  # the reply so far while it streams (kept when Stop cuts it off)

    def write(self, **fields) -> None:
        """Set fields of the step's record (TypeError for a name the record does not have)."""
        self.record = self.record.but(**fields)

    def live_row(self) -> dict:
        """What the step has written so far, as a row with its number (a person's step resolves to it)."""
        return dict(self.record.to_row(), step=self.n)


class Numbering:
    """A run's step numbers: the agent's and a person's steps share one sequence."""

    def __init__(self, first: int = 1):
        self.next_n = first

    def take(self) -> int:
        n, self.next_n = self.next_n, self.next_n + 1
        return n
