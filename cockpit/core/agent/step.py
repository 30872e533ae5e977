"""What one step of the agent loop gathered so far (:class:`Step`); it becomes a store row."""
from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field

from cockpit.core.actions.coords import Voice
from cockpit.core.llm.streaming import Partial
from cockpit.core.page.observation import Observation
from cockpit.core.safety.target import Target


@dataclass
class Step:
    """What one step gathered so far; becomes a store row."""
    n: int
    started: float
    obs: Observation | None = None
    files: dict = field(default_factory=dict)
    request: list = field(default_factory=list)
    row: dict = field(default_factory=dict)
    decision: dict | None = None
    press_enter: bool = True  # False: a Type whose Enter could submit an irreversible form
    target: Target | None = None  # what the action acts on: its box, or what is under its point (safety.target)
    voice: Voice | None = None  # how points are named to a pixel model (cockpit.core.agent.pixelstep.voice)
    marked_write: Future | None = None  # the marked PNG being encoded and written; see Agent._files()
    partial: Partial | None = None  # the reply so far while it streams (kept when Stop cuts it off)



class Numbering:
    """A run's step numbers: the agent's and a person's steps share one sequence."""

    def __init__(self, first: int = 1):
        self.next_n = first

    def take(self) -> int:
        n, self.next_n = self.next_n, self.next_n + 1
        return n
