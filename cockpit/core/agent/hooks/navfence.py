"""The navigation fence as a step hook: the run's :mod:`cockpit.core.safety.navguard` policy on the executor.

The policy comes from the start URL, the allowed domains of the agent's
settings and the task file's extras; it is recorded with the run's settings
(``config.navigation``). The executor enforces it on every action.
"""
from __future__ import annotations

from cockpit.core.agent.hooks.base import StepHook
from cockpit.core.safety import navguard


class NavFence(StepHook):
    def opening(self, start, settings: dict) -> None:
        ex = self.run.executor
        ex.nav = navguard.policy_for(start.url, self.run.config.allowed_domains, start.task_extra)
        settings["navigation"] = ex.nav.to_dict()
