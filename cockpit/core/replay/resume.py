"""Resume an interrupted run in a new browser, or close it for good.

A run whose process died (kill -9, a crash, a power cut) is left 'running' in
the store; :meth:`Store.mark_interrupted` turns it into 'interrupted'. Its
committed steps are intact. This module continues such a run IN THE SAME RUN
ID (a failed one too, e.g. after the browser died):

* the new steps are numbered from the last recorded step + 1;
* the agent's budget is what is left of the recorded max steps (agent steps
  already taken are spent; human steps never count), or a budget given;
* the conversation is seeded from the stored history
  (:func:`cockpit.core.replay.branch.history_before`), and the first new prompt says
  the run was interrupted and where it was resumed;
* the page is restored in the new browser either by opening the address the
  last step ended on (the default: fast, but whatever the page held beyond its
  address, such as a cart or a form's contents, may be gone), or with
  ``replay=True`` by replaying the recorded actions (:func:`cockpit.core.replay.replay.replay`;
  irreversible recorded steps go through the approver again).

Each resume is recorded in the run's config as ``resumed``: a list of
``{at_step, how, url, time, max_steps, model}``. The run is set back to
'running' with this process's pid, so if this process dies too the run shows
as interrupted again and can be resumed again.

:func:`close` marks an interrupted run 'closed': the user gives up on it,
its steps stay for review. Closed runs cannot be resumed (branch them instead).

What it must not do: import Qt, resume a run another live process is running,
or renumber or rewrite recorded steps.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import time
from dataclasses import dataclass

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.approval import ended_at_gate
from cockpit.core.agent.config import AgentConfig, RunResult
from cockpit.core.agent.loop import Agent
from cockpit.core.agent.start import Resume, RunContext
from cockpit.core.errors import ActionParseError, CockpitError
from cockpit.core.llm.apikeys import get_api_key
from cockpit.core.llm.client import ModelConfig, is_openai
from cockpit.core.lookahead.planning import PlanningConfig
from cockpit.core.lookahead.worldmodel import WorldModelConfig
from cockpit.core.replay.branch import history_before
from cockpit.core.replay.localfiles import with_run_files
from cockpit.core.replay.replay import MIN_SIMILARITY, Diverged, ReplayOptions
from cockpit.core.replay.replay import replay as replay_run
from cockpit.core.safety.runlimits import kept_domains, recorded_policy
from cockpit.core.store import Store, liveness
from cockpit.core.store.records import agent_settings
from cockpit.core.tasks.hops import HopTracker

log = logging.getLogger(__name__)

#: Statuses a run can be resumed from.
RESUMABLE = ("interrupted", "failed")


@dataclass
class Plan:
    """What a resume will do, worked out from the store alone (no browser, no model)."""
    run: dict
    last_step: int  # the last recorded step (0: none)
    first_step: int  # the number of the first new step
    budget: int  # agent steps allowed from here
    taken: int  # agent steps already taken
    url: str  # the page to reopen (how == "url")
    how: str  # "url" or "replay"
    seed: list
    lead: str
    answered: str | None = None  # the last step already answered: nothing left to do but record it


#: Approval policies from the one that asks least to the one that asks most.
_ASKS_MORE = ("never", "irreversible", "every")


def recorded_approval_policy(run: dict) -> str:
    """The approval policy `run` was started with ("irreversible", the default, when none was recorded)."""
    p = agent_settings(run).get("approval_policy") or run.get("approval_policy")
    return p if p in _ASKS_MORE else "irreversible"


def resume_policy(run: dict, current: str) -> str:
    """The approval policy the window resumes `run` under: the stricter of the run's recorded one and
    `current` (the window's today). Stricter rather than the recorded one alone (as `cockpit resume`
    does): a resume must never ask less than the run did (a run that asked before irreversible actions
    must not place an order unasked because today's setting is "never"), and the window gives no way to
    choose a policy for this resume only, so a stricter toolbar setting is the user's wish for now too."""
    current = current if current in _ASKS_MORE else "irreversible"
    return max(recorded_approval_policy(run), current, key=_ASKS_MORE.index)


def _explain_status(run: dict) -> str:
    rid, status = run["id"], run["status"]
    if status == "running":
        return (f"run {rid} is still running (process {run.get('pid')} on {run.get('host') or 'this machine'}); "
                "stop it first, or wait for it to end")
    if status == "closed":
        return (f"run {rid} was closed, so it cannot be resumed; to go on from one of its steps, "
                f"branch it (cockpit branch {rid} STEP)")
    return (f"run {rid} already ended ({status}); only interrupted or failed runs can be resumed. "
            f"To go on from one of its steps, branch it (cockpit branch {rid} STEP)")


def _agent_steps_taken(rows: list[dict]) -> int:
    """Agent steps that spent budget: every agent step except one cut short before the model replied."""
    return sum(1 for r in rows if (r.get("actor") or "agent") == "agent"
               and not (r.get("status") in ("failed", "stopped") and r.get("reply") is None))


def last_url(run: dict, rows: list[dict]) -> str:
    """The address the run's page was at when it ended: the last step's URL after acting, else its URL."""
    for r in reversed(rows):
        for u in (r.get("url_after"), r.get("url")):
            if u and not u.startswith(("chrome-error://", "about:", "data:")):
                return u
    return run["url"]


def _allowed_to_reopen(run: dict, url: str) -> bool:
    policy = recorded_policy(run)
    return policy is None or policy.target_problem(url) is None  # None: recorded before navigation limits


def plan(store: Store, run_id: str, *, replay: bool = False, max_steps: int | None = None) -> Plan:
    """Check that `run_id` can be resumed and work out how; CockpitError (saying why) when it cannot."""
    liveness.mark_interrupted(store)
    run = store.run(run_id)
    if run["status"] not in RESUMABLE:
        raise CockpitError(_explain_status(run))
    rows = store.steps(run_id)
    last = rows[-1]["step"] if rows else 0
    taken = _agent_steps_taken(rows)
    answered = None
    if rows and rows[-1].get("status") == "answered":
        try:
            answered = parse_action(rows[-1].get("action") or "").text or ""
        except ActionParseError:
            answered = rows[-1].get("action") or ""
    if max_steps is not None:
        if max_steps < 1:
            raise CockpitError("max steps must be at least 1")
        budget = max_steps
    else:
        recorded = int(agent_settings(run).get("max_steps") or 15)
        budget = recorded - taken
        if budget < 1 and answered is None:
            raise CockpitError(f"run {run_id} has used all {recorded} of its agent steps; give a budget "
                               "for the rest (--max-steps N)")
        budget = max(budget, 1)
    # A last step cut short before the model replied is retried: its history is what came before it.
    partial = bool(rows) and rows[-1].get("status") in ("failed", "stopped") and rows[-1].get("reply") is None
    seed, lead = history_before(store, run_id, last if partial else last + 1)
    url = last_url(run, rows)
    if not _allowed_to_reopen(run, url):  # the page had gone somewhere the run may not be: start over
        url = run["url"]
    how = "replay" if replay else "url"
    first = last + 1
    if how == "replay":
        note = "Your actions so far were replayed in a new browser, so the page should be as you left it."
    else:
        note = (f"The browser was restarted and the page {url} was opened again at its address; anything "
                "the page held beyond its address (a form's contents, a cart, a login) may be gone.")
    note = (f"(This run was interrupted after step {last} and has been resumed at step {first}. {note})"
            if last else f"(This run was interrupted before its first step and has been resumed. {note})")
    lead = f"{lead}\n{note}" if lead else note
    return Plan(run, last, first, budget, taken, url, how, seed, lead, answered)


@with_run_files
def resume(ctx: RunContext, run_id: str, config: AgentConfig | None = None, *, replay: bool = False,
           max_steps: int | None = None, min_similarity: float = MIN_SIMILARITY, keep_lookahead: bool = True,
           planned: Plan | None = None) -> RunResult:
    """Continue the interrupted (or failed) run `run_id` in `ctx.session`, as the same run.

    `config` gives the agent's settings (approval policy, rules...); its
    max_steps is replaced by the budget (see :func:`plan`). `replay` restores
    the page by replaying the recorded actions instead of opening the last
    address; `ctx.on_replay(step, info)` reports each replayed step. `ctx.on_agent`
    receives the Agent before it runs (take-over by hand). With `keep_lookahead`
    and no preview or planning in `config`, the run's own are used again
    (:func:`usable_lookahead`). The result is the run's (status answered,
    refused, max_steps, stopped or failed). `planned`: :func:`plan`'s answer, when the
    caller has it already (cockpit resume shows it first).
    """
    store = ctx.store
    p = planned or plan(store, run_id, replay=replay, max_steps=max_steps)  # (the caller's, already made)
    run = p.run
    config = _config_for(p, config or AgentConfig(), ctx.client.config, keep_lookahead)
    _reopen(store, p, ctx.client.config.model)
    if p.answered is not None:  # the process died after the answer was recorded, before the run was closed
        status = ended_at_gate("answered", store.decisions(run_id))
        store.finish_run(run_id, status, answer=p.answered)
        return RunResult(run_id, status, p.answered, store.run(run_id)["steps"])
    agent = Agent.within(ctx, config)

    def by_replay() -> None:
        try:
            replay_run(dataclasses.replace(ctx, approver=agent.approver), run_id, None,
                       ReplayOptions(min_similarity=min_similarity, policy=config.approval_policy,
                                     rules=config.risk_rules, run_label=run_id))
        except Diverged as e:  # (a secret step's message already says what to do)
            advice = "" if e.divergence.reason == "secret" else \
                "; resume without replay to open the last page's address instead"
            raise CockpitError(f"resuming by replay failed: {e}{advice}") from e

    if ctx.on_agent is not None:
        ctx.on_agent(agent)
    by = p.how == "replay"
    return agent.run(Resume(task=run["task"], url=run["url"] if by else p.url, task_id=run.get("task_id") or "",
                            site=run.get("site") or "", prelude=by_replay if by else None, seed=p.seed,
                            lead=p.lead, run_id=run_id, first_step=p.first_step))


def _config_for(p: Plan, config: AgentConfig, model: ModelConfig, keep_lookahead: bool) -> AgentConfig:
    """`config` for resuming: the budget left, the run's own limits and hop queue, its look-ahead if kept."""
    run = p.run
    # The run's own limits stay (`cockpit resume` has no --allow-domain, the window resumes with
    # today's settings); domains given now add to them.
    config = dataclasses.replace(config, max_steps=p.budget,
                                 allowed_domains=kept_domains(run, config.allowed_domains),
                                 hops=recorded_hops(run))
    if keep_lookahead and config.preview is None and config.planning is None:  # none chosen: the run's own
        preview, planning = usable_lookahead(run, model)
        config = dataclasses.replace(config, preview=preview, planning=planning)
    return config


def _reopen(store: Store, p: Plan, model: str) -> None:
    """Record this resume in the run's config and set it back to running; CockpitError when another
    process got there first."""
    run, run_id = p.run, p.run["id"]
    cfg = dict(run.get("config") or {})
    cfg["resumed"] = list(cfg.get("resumed") or []) + [{
        "at_step": p.first_step, "how": p.how, "url": p.url if p.how == "url" else run["url"],
        "time": time.time(), "max_steps": p.budget, "model": model}]
    if not liveness.reopen_run(store, run_id, config=json.dumps(cfg)):
        raise CockpitError(f"run {run_id} is no longer resumable (another process resumed or closed it); "
                           "see `cockpit runs`")


def recorded_hops(run: dict) -> HopTracker | None:
    """A multihop run's hop queue as far as it got (None for other runs): a resume goes on from there."""
    try:
        return HopTracker.from_dict(json.loads(run["hops"])) if run.get("hops") else None
    except (ValueError, TypeError, KeyError) as e:  # unreadable: the run goes on without hop tracking
        log.warning("run %s: its hop record is unreadable (%s); resumed without hop tracking", run.get("id"), e)
        return None


def recorded_lookahead(run: dict) -> tuple[WorldModelConfig | None, PlanningConfig | None]:
    """The world-model preview and planning settings `run` was started with (keys are never recorded: the
    key store's, or the agent's, are used), so a resume does not quietly go on without them."""
    agent = agent_settings(run)

    def world(d) -> WorldModelConfig | None:
        if not isinstance(d, dict) or not isinstance(d.get("model"), dict):
            return None
        return WorldModelConfig(model=ModelConfig.from_dict(d["model"]), images=bool(d.get("images", True)))
    plan = agent.get("planning")
    try:
        planning = PlanningConfig(k=plan.get("k", 3), horizon=plan.get("horizon", 1), samples=plan.get("samples", 1),
                                  refine=bool(plan.get("refine", True)), world=world(plan.get("world"))
                                  ) if isinstance(plan, dict) else None
    except CockpitError as e:  # a record this version cannot take: go on without planning, and say so
        log.warning("run %s: its planning settings are unusable (%s); resumed without planning", run.get("id"), e)
        planning = None
    return world(agent.get("preview")), planning


def usable_lookahead(run: dict, agent_model: ModelConfig) -> tuple[WorldModelConfig | None, PlanningConfig | None]:
    """:func:`recorded_lookahead`, less a world model no key can be found for now (OpenAI with no key stored
    or set): it is left out with a warning, rather than failing the resumed run at its start."""
    preview, planning = recorded_lookahead(run)

    def keyed(world: WorldModelConfig | None) -> bool:
        if world is None or world.model.base_url == agent_model.base_url or not is_openai(world.model.base_url):
            return True  # the agent's server (its key), or a local server (no key needed)
        if get_api_key(world.model.base_url).key:
            return True
        log.warning("run %s: no API key for its world model %s now; resumed without it", run.get("id"),
                    world.model.model)
        return False
    if not keyed(preview):
        preview = None
    if planning is not None and not keyed(planning.world):
        planning = dataclasses.replace(planning, world=None)  # simulated by the preview model, else the agent's
    return preview, planning


def close(store: Store, run_id: str) -> None:
    """Mark the interrupted run `run_id` closed (its steps stay); CockpitError when it is not interrupted."""
    liveness.mark_interrupted(store)
    run = store.run(run_id)
    if run["status"] == "closed":
        raise CockpitError(f"run {run_id} is already closed")
    if run["status"] != "interrupted":
        why = ("it is still running; stop it first" if run["status"] == "running"
               else f"it ended normally ({run['status']})")
        raise CockpitError(f"only interrupted runs can be closed, and {why}")
    if not liveness.close_run(store, run_id):
        raise CockpitError(f"run {run_id} changed while closing it (another process resumed it?)")
