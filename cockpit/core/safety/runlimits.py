"""The navigation limits a recorded run was started with, kept by the runs that go on from it.

A run records its policy (:meth:`cockpit.core.safety.navguard.NavPolicy.to_dict`) in its config as
``navigation``. A resume (:mod:`cockpit.core.replay.resume`) and a branch (:mod:`cockpit.core.replay.branch`)
start the agent again with settings of the day (`cockpit resume` has no --allow-domain, the window
uses today's settings, `cockpit branch --allow-domain` may name others); the run's own limits must
still hold there, so the agent cannot go where the recorded run could not.

Pure and Qt-free: it reads a run's row only. (`recorded_domains` was in cockpit.core.replay.resume before.)
"""
from __future__ import annotations

from cockpit.core.safety import navguard


def recorded_domains(run: dict) -> list[str]:
    """The domains the run was limited to (the CLI's and its task's), plus its start host; [] = any."""
    nav = (run.get("config") or {}).get("navigation") or {}
    domains = list(nav.get("allowed_domains") or [])
    if domains and nav.get("start_host"):
        domains.append(nav["start_host"])
    return domains


def kept_domains(run: dict, given=()) -> list[str]:
    """The allowed domains for a run going on from `run`: its recorded ones with `given` (domains
    named now) added; just `given` when the run was not limited."""
    recorded = recorded_domains(run)
    if not recorded:
        return list(given or ())
    return list(dict.fromkeys([*(given or ()), *recorded]))


def recorded_policy(run: dict) -> navguard.NavPolicy | None:
    """The run's navigation policy as recorded; None for a run recorded before there were limits."""
    nav = (run.get("config") or {}).get("navigation")
    if not nav:
        return None
    return navguard.NavPolicy(tuple(nav.get("allowed_domains") or ()), nav.get("start_host") or "",
                              nav.get("local_root") or "")
