"""What one step of the agent loop gathered so far (:class:`Step`); it becomes a store row."""
from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field

from cockpit.core.actions.coords import Voice
from cockpit.core.llm.streaming import Partial
from cockpit.core.page.marks import Mark
from cockpit.core.page.observation import Observation


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
    resolved: Mark | None = None  # a pixel action: the element under its point (cockpit.core.agent.pixelstep)
    cursor: str = ""  # and the CSS cursor there
    hit: dict = field(default_factory=dict)  # act.js's answer for it (secret, opaque frame...)
    drag_end: tuple | None = None  # a drag: (the element it ends on, act.js's answer)
    voice: Voice | None = None  # how points are named to a pixel model (cockpit.core.agent.pixelstep.voice)
    marked_write: Future | None = None  # the marked PNG being encoded and written; see Agent._files()
    partial: Partial | None = None  # the reply so far while it streams (kept when Stop cuts it off)

