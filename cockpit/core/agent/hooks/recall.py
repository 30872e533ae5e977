"""Procedural memory as a step hook: similar past successful runs put after the task in the first prompt.

:mod:`cockpit.core.agent.procedural_memory` finds them; which ones were used is
stored with the run (``runs.memories``) and sent as :class:`events.MemoriesUsed`.
"""
from __future__ import annotations

import json
import logging

from cockpit.core.agent import events as ev
from cockpit.core.agent import procedural_memory as memory
from cockpit.core.agent.hooks.base import RunScope, StepHook
from cockpit.core.errors import CockpitError, short_message

log = logging.getLogger(__name__)


class Recall(StepHook):
    def __init__(self, run: RunScope):
        super().__init__(run)
        self.task = ""

    def started(self, start) -> None:
        self.task = start.task

    def first_prompt(self, lead: str) -> str:
        run = self.run
        try:
            found = memory.retrieve(run.store, self.task, run.config.memory_k, exclude=run.run_id)
        except CockpitError as e:
            log.warning("run %s: no memories (%s)", run.run_id, short_message(e))
            return lead
        ids = [m.run_id for m in found]
        run.store.set_run(run.run_id, memories=json.dumps(ids))
        run.emit(ev.MemoriesUsed(run.run_id, tuple(ids)))
        return f"{lead}\n{memory.memory_text(found)}" if found else lead
