"""What a new run's row says about it: :class:`NewRun`, given to :meth:`Store.new_run`."""
from __future__ import annotations

from dataclasses import KW_ONLY, dataclass


@dataclass(frozen=True)
class NewRun:
    """A run's descriptive fields. `run_id` None: a fresh id; `started` None: now; `parent_run` and
    `parent_step`: the run it branched from; `source`: who recorded it (cockpit, or an importer's name)."""
    task: str
    url: str
    _: KW_ONLY
    task_id: str = ""
    site: str = ""
    model: str = ""
    base_url: str = ""
    config: dict | None = None
    approval_policy: str = ""
    parent_run: str | None = None
    parent_step: int | None = None
    source: str = "cockpit"
    demo: bool = False
    batch: str = ""
    run_id: str | None = None
    started: float | None = None
    status: str = "running"


#: The model of a person's own attempt at a task (cockpit.core.agent.human_run): no model was asked.
HUMAN = "human"
