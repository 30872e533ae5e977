"""The agent loop's extensions, one step hook each (the interface: :mod:`cockpit.core.agent.hooks.base`).

:func:`for_run` lists the hooks a run's settings call for, in the order the
loop calls them: the navigation fence, multihop tracking, procedural memory,
look-ahead (preview and planning), breakpoints, and the web archive (recording the network and each step's
page, on unless the run's settings turn it off).
"""
from __future__ import annotations

from cockpit.core.agent.hooks.base import RunScope, StepHook
from cockpit.core.agent.hooks.breakpoints import Breakpoints
from cockpit.core.agent.hooks.lookahead import Lookahead
from cockpit.core.agent.hooks.multihop import Multihop
from cockpit.core.agent.hooks.navfence import NavFence
from cockpit.core.agent.hooks.recall import Recall
from cockpit.core.agent.hooks.webrecord import WebRecord


def for_run(run: RunScope) -> list[StepHook]:
    """A new run's hooks, each with its own state for that run."""
    cfg = run.config
    hooks: list[StepHook] = [NavFence(run)]
    if cfg.hops is not None:
        hooks.append(Multihop(run))
    if cfg.memory_k > 0:
        hooks.append(Recall(run))
    if cfg.preview is not None or cfg.planning is not None:
        hooks.append(Lookahead(run))
    hooks.append(Breakpoints(run))  # always: the list may be edited while the run goes
    if cfg.record_web:
        hooks.append(WebRecord(run))
    return hooks
