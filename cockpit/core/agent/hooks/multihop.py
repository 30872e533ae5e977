"""Multihop tracking as a step hook: a task's hop queue (:mod:`cockpit.core.tasks.hops`) advanced each step.

Each run tracks a fresh copy of the settings' queue (a resumed run the queue
as the resume restored it). The queue is stored with the run (``runs.hops``)
whenever a hop passes, its progress with each step (``steps.hops``), and each
passed hop is an event (:class:`events.HopPassed`).
"""
from __future__ import annotations

import json

from cockpit.core.agent import events as ev
from cockpit.core.agent.hooks.base import RunScope, StepHook
from cockpit.core.agent.start import Resume
from cockpit.core.tasks.hops import HopTracker


class Multihop(StepHook):
    def __init__(self, run: RunScope):
        super().__init__(run)
        self.tracker: HopTracker | None = None  # the run's; None until it starts

    def started(self, start) -> None:
        """A fresh copy of the config's hop queue; resuming, the queue as it is (restored by core.resume)."""
        hops, run = self.run.config.hops, self.run
        self.tracker = t = hops if isinstance(start, Resume) else hops.fresh()
        run.store.set_run(run.run_id, hops=json.dumps(t.to_dict()))
        run.emit(ev.HopsTracked(run.run_id, tuple(t.names())))
        for k, step in enumerate(t.steps, 1):  # passed before a resume: shown as passed again
            run.emit(ev.HopPassed(run.run_id, step or 0, k, t.name(k), k, t.total, again=True))

    def committing(self, st, answer: str | None) -> None:
        """After the step's observation (and its ANSWER, if any): advance the hop queue, record it."""
        t, run = self.tracker, self.run
        if t is None or st.obs is None:
            return
        new = t.update(st.obs.url, answer, step=st.n)
        st.write(hops=t.snapshot(new))
        for k in new:
            run.emit(ev.HopPassed(run.run_id, st.n, k, t.name(k), k, t.total))
        if new:
            run.store.set_run(run.run_id, hops=json.dumps(t.to_dict()))
