"""Branch a new run from a recorded run's step k.

:func:`branch` replays steps 1..k-1 (:func:`cockpit.core.replay.replay.replay`)
inside a new run and lets the agent continue from step k with the parent's
conversation so far (:func:`history_before`). The new run records its parent
run and step; its own steps are numbered from 1 (its step 1 is the parent's
step k).

What it must not do: call a model while replaying (the recorded replies are
history, not questions), write anything into the parent run (it is only read),
record the replayed steps as steps of the new run, re-execute a step that is,
or was, irreversible without an approver's yes, or import Qt.

Branching "by hand": give the context ``control=RunControl(paused=True)`` and
keep the Agent given to its ``on_agent``; after the replay the run waits at its
step 1, where ``agent.take_over()``, ``agent.human_act(action)`` and
``agent.hand_back(note)`` work as in any run.

A step that typed into a secret field cannot be replayed live (its text was never
stored): branching after it stops with :class:`Diverged` (reason ``secret``). Replayed
from the recording (``recorded=True``) it can: the recording answers what the field sent.
"""
from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field

from cockpit.core.agent.config import AgentConfig, RunResult
from cockpit.core.agent.loop import Agent
from cockpit.core.agent.start import Branch, RunContext
from cockpit.core.errors import CockpitError
from cockpit.core.llm import prompt
from cockpit.core.replay.localfiles import with_run_files
from cockpit.core.replay.replay import (
    MIN_SIMILARITY,
    Diverged,
    Divergence,
    ReplayOptions,
    StepReplay,
    check_step,
    replay,
)
from cockpit.core.safety.runlimits import kept_domains
from cockpit.core.store import Store


@dataclass
class BranchResult(RunResult):
    """A branch run's result; `divergence` is set when its replay stopped (the run is then failed)."""
    divergence: Divergence | None = None
    replayed: list[StepReplay] = field(default_factory=list)


# ---------------------------------------------------------------- branch

def history_before(store: Store, run_id: str, step: int) -> tuple[list[dict], str]:
    """(seed, lead): the conversation of run `run_id` before step `step`'s observation.

    Normally the request sent at `step` minus its last user message, and as
    lead what that message said before its observation (the task, or the
    feedback on step-1's action with any human notes). When `step` has no
    stored request (a human step, an imported run, the step after the last),
    the history is rebuilt from the latest earlier request and the steps since:
    replies as they were, screenshots as the omitted-note, feedback as the
    agent loop words it.
    """
    run = store.run(run_id)
    rows = {r["step"]: r for r in store.steps(run_id)}
    row = rows.get(step)
    if row and isinstance(row.get("request"), list) and row["request"]:  # not a Responses API body: rebuilt
        req = row["request"]
        return list(req[:-1]), prompt.lead_of(req[-1])
    base = max((n for n, r in rows.items() if n < step and isinstance(r.get("request"), list) and r["request"]),
               default=None)
    if base is not None:
        seed = list(rows[base]["request"])
        seed.append({"role": "assistant", "content": rows[base].get("reply") or ""})
        lead, start = prompt.feedback_after(rows[base]), base + 1
    else:
        seed, lead, start = [], prompt.task_text(run["task"], run["url"]), 1
    acts: list[str] = []
    for n in range(start, step):
        r = rows.get(n)
        if r is None:
            continue
        if r.get("actor") == "human":
            what = r.get("outcome") or f"failed: {r.get('error') or 'unknown error'}"
            acts.append(f"- {r.get('action')}: {what}")
            continue
        lead, acts = _with_acts(lead, acts), []
        seed.append({"role": "user", "content": prompt.omitted_note(lead)})
        seed.append({"role": "assistant", "content": r.get("reply") or ""})
        lead = prompt.feedback_after(r)
    return seed, _with_acts(lead, acts)


def _with_acts(lead: str, acts: list[str]) -> str:
    if not acts:
        return lead
    text = "While you were paused, the human supervisor took over and did:\n" + "\n".join(acts)
    return f"{lead}\n{text}" if lead else text


@with_run_files
def branch(ctx: RunContext, run_id: str, step: int, config: AgentConfig | None = None, *,
           min_similarity: float = MIN_SIMILARITY, check: bool = True, recorded: bool = False) -> BranchResult:
    """A new run of `run_id`'s task that replays its steps 1..step-1 and goes on from `step`.

    The new run is created first (parent run and step recorded), so it is
    there whatever happens: when the replay diverges it ends 'failed' with the
    divergence as its error, and the result's `divergence` says where; Stop
    during the replay ends it 'stopped'. The agent then continues with the
    parent's conversation before `step` (:func:`history_before`), with
    `ctx.client` as its model. `ctx.approver` answers the agent's gate and the
    replay's (irreversible recorded steps). `ctx.on_replay(step, info)` reports
    each replayed step; `ctx.on_agent(agent)` receives the Agent before it runs,
    for a caller that takes over by hand (see the module docstring). The new run
    keeps the parent's allowed domains (:mod:`cockpit.core.safety.runlimits`); those in
    `config` add to them. `recorded`: steps 1..step-1 are replayed from the parent's web
    recording (:mod:`cockpit.core.replay.recorded`: nothing reaches the site, irreversible steps
    are not asked about again, typed secrets are answered from the recording); from `step` on
    the agent goes on against the live site.
    """
    store = ctx.store
    parent = store.run(run_id)
    config = config or AgentConfig()
    # The parent's navigation limits stay (its start host too: the branch starts at its URL);
    # domains given now add to them.
    config = dataclasses.replace(config, allowed_domains=kept_domains(parent, config.allowed_domains))
    check_step(store, run_id, step)
    if not 0.0 <= min_similarity <= 1.0:
        raise CockpitError(f"the similarity threshold must be between 0 and 1, not {min_similarity:g}")
    seed, lead = history_before(store, run_id, step)
    agent = Agent.within(ctx, config)
    replayed: list[StepReplay] = []
    found: dict = {}

    def progress(n: int, info: StepReplay) -> None:
        replayed.append(info)
        if ctx.on_replay is not None:
            ctx.on_replay(n, info)

    def prelude() -> None:
        try:
            replay(dataclasses.replace(ctx, approver=agent.approver, on_replay=progress), run_id, step,
                   ReplayOptions(check=check, min_similarity=min_similarity, policy=config.approval_policy,
                                 rules=config.risk_rules, run_label=agent.run_id, recorded=recorded))
        except Diverged as e:
            found["divergence"] = e.divergence
            raise

    if ctx.on_agent is not None:
        ctx.on_agent(agent)
    result = agent.run(Branch(task=parent["task"], url=parent["url"], task_id=parent.get("task_id") or "",
                              site=parent.get("site") or "", parent_run=run_id, parent_step=step,
                              task_extra=(parent.get("config") or {}).get("task_extra"), prelude=prelude,
                              seed=seed, lead=lead))
    return BranchResult(**asdict(result), divergence=found.get("divergence"), replayed=replayed)
