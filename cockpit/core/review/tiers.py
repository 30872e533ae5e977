"""Human attempts beside the agents' runs: the difficulty tier of each task and the agent/human step ratio.

Online-Mind2Web tiers a task by the steps a person took to do it: 5 or fewer easy, 6 to 10 medium, 11 or more
hard. A person's own attempt is a run whose model is ``human`` (cockpit.core.agent.human_run). Steps are
counted without the final ANSWER step, on both sides (the agent's run may answer in a step; the tier counts
the actions). A task's human steps are the fewest of its answered attempts (the shortest path a person
found); attempts given up are counted apart and give no tier. Each agent run of a task with a human step count
gets its ratio: the agent's steps / the human's (None when the human needed none).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from cockpit.core.store import Store
from cockpit.core.store.key_points import task_key
from cockpit.core.store.newrun import HUMAN

#: Online-Mind2Web's tiers: (the most human steps, tier), in order; more than the last is hard.
TIERS = ((5, "easy"), (10, "medium"))
HARD = "hard"
ORDER = ("easy", "medium", "hard", "")


def tier(human_steps: int) -> str:
    """The difficulty tier of a task a person did in `human_steps` steps."""
    return next((name for most, name in TIERS if human_steps <= most), HARD)


@dataclass
class AgentRun:
    run_id: str
    model: str
    status: str
    steps: int
    ratio: float | None  # steps / the task's human steps


@dataclass
class TaskTier:
    task_key: str  # the task id, or its text
    task: str
    human_steps: int | None  # the fewest of its answered human attempts; None: none answered
    tier: str  # easy | medium | hard | "" (no answered attempt)
    attempts: list[str] = field(default_factory=list)  # the human runs, answered or not
    gave_up: int = 0
    agents: list[AgentRun] = field(default_factory=list)


def tier_report(store: Store) -> dict:
    """Every task with a human attempt: its tier and its agent runs' step ratios, the tasks in tier order; and
    the counts per tier and each agent model's mean ratio over the tasks it ran."""
    steps = store.action_step_counts()
    runs = [r for r in store.run_summaries() if r["id"] in steps]
    tasks: dict[str, TaskTier] = {}
    for r in runs:
        if r["model"] == HUMAN:
            t = tasks.setdefault(task_key(r), TaskTier(task_key(r), r["task"], None, ""))
            t.attempts.append(r["id"])
            if r["status"] == "answered":
                n = steps[r["id"]]
                t.human_steps = n if t.human_steps is None else min(t.human_steps, n)
            else:
                t.gave_up += 1
    for t in tasks.values():
        t.tier = "" if t.human_steps is None else tier(t.human_steps)
    for r in runs:
        t = tasks.get(task_key(r))
        if r["model"] != HUMAN and t is not None:
            n = steps[r["id"]]
            ratio = n / t.human_steps if t.human_steps else None
            t.agents.append(AgentRun(r["id"], r["model"] or "", r["status"], n, ratio))
    ordered = sorted(tasks.values(), key=lambda t: (ORDER.index(t.tier), t.task_key))
    ratios: dict[str, list[float]] = {}
    for t in ordered:
        for a in t.agents:
            if a.ratio is not None:
                ratios.setdefault(a.model, []).append(a.ratio)
    return {"tasks": [asdict(t) for t in ordered],
            "tiers": {name: sum(t.tier == name for t in ordered) for name in ORDER[:3]},
            "mean_ratio": {m: sum(v) / len(v) for m, v in sorted(ratios.items())}}
