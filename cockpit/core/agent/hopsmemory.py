"""The agent loop's hooks for multihop tasks and procedural memory
(:mod:`cockpit.core.tasks.hops`, :mod:`cockpit.core.review.memory`), mixed into the Agent."""
from __future__ import annotations

import json
import logging

from cockpit.core.agent import events as ev
from cockpit.core.errors import CockpitError, short_message
from cockpit.core.review import memory
from cockpit.core.agent.step import Step

log = logging.getLogger(__name__)


class HopsAndMemory:
    """Needs the Agent's config, store, run_id, hops and _emit."""

    # ---------- hook: multihop tracking and memory (cockpit.core.tasks.hops, cockpit.core.review.memory) ----------
    def _hops_start(self, resuming: bool = False) -> None:
        """A fresh copy of the config's hop queue; resuming, the queue as it is (restored by core.resume)."""
        self.hops = None if self.config.hops is None else self.config.hops if resuming else self.config.hops.fresh()
        if self.hops is not None:
            self.store.set_run(self.run_id, hops=json.dumps(self.hops.to_dict()))
            self._emit(ev.HopsTracked(self.run_id, tuple(self.hops.names())))
            for k, step in enumerate(self.hops.steps, 1):  # passed before a resume: shown as passed again
                self._emit(ev.HopPassed(self.run_id, step or 0, k, self.hops.name(k), k, self.hops.total,
                                        again=True))

    def _hops_update(self, st: Step, answer: str | None) -> None:
        """After the step's observation (and its ANSWER, if any): advance the hop queue, record it."""
        if self.hops is None or st.obs is None:
            return
        new = self.hops.update(st.obs.url, answer, step=st.n)
        st.row["hops"] = self.hops.snapshot(new)
        for k in new:
            self._emit(ev.HopPassed(self.run_id, st.n, k, self.hops.name(k), k, self.hops.total))
        if new:
            self.store.set_run(self.run_id, hops=json.dumps(self.hops.to_dict()))

    def _recall(self, task: str, lead: str) -> str:
        """Procedural memory: similar past successful runs, put after the task text; which ones is stored."""
        try:
            found = memory.retrieve(self.store, task, self.config.memory_k, exclude=self.run_id)
        except CockpitError as e:
            log.warning("run %s: no memories (%s)", self.run_id, short_message(e))
            return lead
        ids = [m.run_id for m in found]
        self.store.set_run(self.run_id, memories=json.dumps(ids))
        self._emit(ev.MemoriesUsed(self.run_id, tuple(ids)))
        return f"{lead}\n{memory.memory_text(found)}" if found else lead
