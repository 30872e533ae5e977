"""What a run started from the window is, as a value the window builds and the bridge dispatches on (issue #40):
a new run of the task bar's task (or a person's own attempt at it), a branch of a recorded run from one of its
steps, a replay of a recorded run in the browser, or the resume of an interrupted run.

The core has the same split for what it runs (cockpit.core.agent.start: Fresh | Branch | Resume, built there with
the replayed prelude); these are the window's requests, before anything is replayed.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FromTask:
    """A new run of the task; `human` ("human:ada"): that person's own attempt, no model."""
    human: str = ""


@dataclass(frozen=True)
class BranchOf:
    """Replay run `run_id` up to `step`, then the agent goes on; `recorded`: served from its web recording."""
    run_id: str
    step: int
    recorded: bool = False


@dataclass(frozen=True)
class ReplayOf:
    """Run `run_id` again in the browser, no model; `speed` 1.0 is the recorded pace, None as fast as pages
    settle; `recorded`: served from its web recording."""
    run_id: str
    speed: float | None = 1.0
    recorded: bool = False


@dataclass(frozen=True)
class ResumeOf:
    """Go on with the interrupted run `run_id`, as the same run; `replay`: restore its page by replaying it."""
    run_id: str
    replay: bool = False


RunKind = FromTask | BranchOf | ReplayOf | ResumeOf


def calls_model(kind: RunKind) -> bool:
    """A replay and a person's own attempt call no model."""
    return not isinstance(kind, ReplayOf) and not (isinstance(kind, FromTask) and kind.human)


def banner(kind: RunKind, run_id: str, *, model: str, demo: bool, policy: str | None) -> str:
    """What the Live tab and the status bar say while a run of a recorded run `run_id` starts."""
    match kind:
        case ReplayOf():
            verb = "Replaying "
        case ResumeOf():
            verb = "Resuming "
        case FromTask(human=human) if human:
            verb = "Your own attempt at the task of "
        case _:
            verb = "Branching "
    with_model = ""
    if isinstance(kind, BranchOf):
        with_model = " with the demo policy (a demo run goes on as it was made)" if demo else f" with {model}"
    recorded = " as recorded" if getattr(kind, "recorded", False) else ""
    return f"{verb}run {run_id}{recorded}{with_model}" + (f" (approval policy: {policy})" if policy else "") + "…"
