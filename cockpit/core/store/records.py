"""Typed records of the run store: a run, a step, and the look-ahead data a step carries.

The store keeps rows as dicts (``Store.run``, ``Store.steps``); these are the
typed reading of them, made by ``Store.run_record`` / ``Store.step_records`` or
from any step row (a live one too) with :meth:`Step.from_row`. JSON columns
are decoded; ``Step.prediction`` and ``Step.plan`` are :class:`Prediction` and
:class:`Plan` (None when the step had none), each keeping the JSON document it
was read from. A step's messages sent (``request``, large) are not part of a
:class:`Step`. Records are immutable.

A :class:`Step` is also what the agent loop writes: it fills one in as the step
goes (:meth:`Step.but`, which refuses a field the record does not have) and the
run record stores it with :meth:`Step.to_row` (cockpit.core.agent.record).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

from cockpit.core.words import plural

#: What a run status means, where it needs saying: "refused" is an answered run whose irreversible action was
#: refused at the approval gate (cockpit.core.agent.approval.ended_at_gate).
STATUS_MEANING = {"refused": "stopped at the gate"}
#: Statuses whose stored name is an identifier: the words people read instead.
STATUS_WORDS = {"max_steps": "out of steps", "gave_up": "given up"}


def status_text(status: str | None) -> str:
    """A run status as people read it: ``refused (stopped at the gate)``, ``out of steps``; others as they are."""
    status = status or ""
    if status in STATUS_WORDS:
        return STATUS_WORDS[status]
    return f"{status} ({STATUS_MEANING[status]})" if status in STATUS_MEANING else status


def continues_text(run: dict) -> str:
    """What a branch goes on from, for its header: "continues run <id> at step k" ("" for another run).
    A branch's steps are numbered from 1: its step 1 is its parent's step k (cockpit.core.replay.branch)."""
    return f"continues run {run['parent_run']} at step {run['parent_step']}" \
        if run.get("parent_run") and run.get("parent_step") else ""


def parent_step_text(run: dict, step: int) -> str:
    """A branch's step as its parent numbers it ("run <id>'s step k+step-1"); "" for another run."""
    return f"run {run['parent_run']}'s step {run['parent_step'] + step - 1}" \
        if run.get("parent_run") and run.get("parent_step") else ""


#: Why a run that has no answer ended, where its record holds no error that says it.
NO_ANSWER_BECAUSE = {"stopped": "stopped by the user before the agent answered",
                     "refused": "the action asked about at the approval gate was refused",
                     "interrupted": "the process running it ended before it finished",
                     "closed": "given up with cockpit close", "running": "still running",
                     "gave_up": "the person making their own attempt gave up"}


def end_reason(run: Mapping) -> str:
    """Why `run` (a runs row) ended without an answer, in words: its error, else what its status means
    ("the agent did not answer within its 15 steps"); "" for a status that needs none."""
    if run.get("error"):
        return str(run["error"])
    status = run.get("status") or ""
    if status == "max_steps":
        budget = agent_settings(run).get("max_steps")
        return f"the agent did not answer within its {plural(budget, 'step')}" if budget else \
            "the agent did not answer within its step budget"
    return NO_ANSWER_BECAUSE.get(status, "")


def outcome_text(status: str | None, detail: str | None) -> str:
    """A step's outcome in one line: its status, then what happened, the status said once ("answered", not
    "answered: answered"; "ok: clicked [5]"; "error: the element is gone")."""
    status, detail = status or "-", (detail or "").strip()
    if not detail or detail.startswith(status):
        return detail or status
    return f"{status}: {detail}"


#: how an outcome says the page the action led to is an HTTP error: "the site answered HTTP 501 (Not
#: Implemented)" (cockpit.core.agent.landing writes it, :func:`outcome_warning` reads it back)
ANSWERED_HTTP = "the site answered HTTP"
_ANSWERED = re.compile(re.escape(ANSWERED_HTTP) + r" (\d{3}) \(([^)]*)\)")


def outcome_warning(status: str | None, detail: str | None) -> str:
    """Why an action that ran may have done nothing or failed ("" when nothing says so), for the window's
    amber and the CLI: text typed with nothing focused, a page the site answered with an HTTP error (#38)."""
    detail = detail or ""
    if status not in ("ok", None):
        return ""
    if "(nothing has the focus)" in detail:
        return "nothing had the focus: the text may have gone nowhere"
    if m := _ANSWERED.search(detail):
        return f"{ANSWERED_HTTP} {m.group(1)} ({m.group(2)}): the action may not have worked"
    return ""


def _json(value) -> Any:
    """A JSON column's value decoded (rows from Store.steps already are); None for empty or unreadable."""
    if isinstance(value, (str, bytes)):
        if not value:
            return None
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def agent_settings(run: dict) -> dict:
    """The agent settings `run` was started with (its config's ``agent``); {} for an imported run, whose config names
    its agent there instead (walkthrough 6: branching an imported run failed on that name)."""
    agent = _dict(run.get("config")).get("agent")
    return agent if isinstance(agent, dict) else {}


def _dict(value) -> dict:
    value = _json(value)
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Prediction:
    """The world model's forecast of a step's action (``steps.prediction``), with what really happened."""
    action: str = ""
    text: str = ""
    model: str = ""
    source: str | None = None  # "preview" (its own call) or "plan" (the chosen candidate's simulation)
    error: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0
    actual: dict | None = None  # measured after the action: effect, address and title before and after
    doc: dict = field(default_factory=dict, compare=False, repr=False)  # the JSON it was read from

    @classmethod
    def from_dict(cls, value) -> Prediction | None:
        d = _dict(value)
        if not d:
            return None
        return cls(action=d.get("action") or "", text=d.get("text") or "", model=d.get("model") or "",
                   source=d.get("source"), error=d.get("error", ""), prompt_tokens=d.get("prompt_tokens") or 0,
                   completion_tokens=d.get("completion_tokens") or 0, cost=d.get("cost"),
                   seconds=d.get("seconds") or 0.0, actual=d.get("actual") or None, doc=d)

    def to_dict(self) -> dict:
        """The JSON document as stored (``steps.prediction``): the one it was read from, every key kept."""
        return self.doc


@dataclass(frozen=True)
class Candidate:
    """One action the planner considered (an entry of ``plan.candidates``)."""
    index: int
    action: str = ""  # as records show it (text typed into secret fields masked)
    thought: str = ""
    kept: bool = True
    dropped: str = ""  # why it was not simulated
    risk: str = ""
    simulation: tuple = ()  # ({"action", "change"}, ...), one per simulated step
    verdicts: tuple = ()
    scores: tuple = ()
    mean: float | None = None

    @classmethod
    def from_dict(cls, d: Mapping) -> Candidate:
        return cls(index=d.get("index"), action=d.get("action") or "", thought=d.get("thought") or "",
                   kept=bool(d.get("kept", True)), dropped=d.get("dropped") or "", risk=d.get("risk") or "",
                   simulation=tuple(d.get("simulation") or ()), verdicts=tuple(d.get("verdicts") or ()),
                   scores=tuple(d.get("scores") or ()), mean=d.get("mean"))


@dataclass(frozen=True)
class Plan:
    """A planned step (``steps.plan``): the candidates and which one ran."""
    candidates: tuple[Candidate, ...] = ()
    chosen: int | None = None  # the planner's choice (a candidate's index)
    picked: int | None = None  # the candidate that ran: a human's pick, else the planner's choice
    picked_by: str = ""
    k: int | None = None
    horizon: int | None = None
    samples: int | None = None
    note: str = ""
    raw: str = ""
    refine_reply: str = ""
    cost: dict | None = None
    doc: dict = field(default_factory=dict, compare=False, repr=False)  # the JSON it was read from

    @classmethod
    def from_dict(cls, value) -> Plan | None:
        d = _dict(value)
        if not d:
            return None
        candidates = tuple(Candidate.from_dict(c) for c in d.get("candidates") or () if isinstance(c, Mapping))
        return cls(candidates=candidates,
                   chosen=d.get("chosen"), picked=d.get("picked", d.get("chosen")),
                   picked_by=d.get("picked_by") or "", k=d.get("k"), horizon=d.get("horizon"),
                   samples=d.get("samples"), note=d.get("note") or "", raw=d.get("raw") or "",
                   refine_reply=d.get("refine_reply") or "", cost=d.get("cost"), doc=d)

    def to_dict(self) -> dict:
        """The JSON document as stored (``steps.plan``, PlanResult.to_dict): the one it was read from, every key
        kept, so candidates' dicts go on as the planner wrote them (events.PlanMade, the approval request)."""
        return self.doc


@dataclass(frozen=True)
class Step:
    """One recorded step (a ``steps`` row without its messages sent)."""
    run_id: str = ""
    step: int = 0
    url: str | None = None
    title: str | None = None
    actor: str | None = None
    screenshot: str | None = None
    screenshot_clean: str | None = None
    marks_file: str | None = None
    n_marks: int | None = None
    reply: str | None = None
    thought: str | None = None
    action_text: str | None = None
    action: str | None = None
    target: int | None = None
    risk: str | None = None
    evidence: list | None = None
    decision: dict | None = None
    status: str | None = None
    outcome: str | None = None
    error: str | None = None
    url_after: str | None = None
    note: str | None = None
    timings: dict | None = None
    effect: dict | None = None
    flags: list | None = None
    hops: dict | None = None
    pointer: dict | None = None  # a pixel action's facts: mode, dialect, space, frame, model_action, resolved
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    model_seconds: float | None = None
    attempts: int | None = None
    started: float | None = None
    finished: float | None = None
    prediction: Prediction | None = None
    plan: Plan | None = None
    plan_calls: int = 0
    plan_prompt_tokens: int = 0
    plan_completion_tokens: int = 0
    plan_cost: float | None = None

    @property
    def page_note(self) -> str:
        """How the page was seen at this step, when there is something to say: the action's settling stopped
        at its cap with work still pending, or the page changed while it was marked ('' otherwise)."""
        t = self.timings if isinstance(self.timings, dict) else {}
        settle, seen = t.get("settle"), t.get("observe")
        parts = []
        if isinstance(settle, dict) and settle.get("settled") is False:
            pending = ", ".join(map(str, settle.get("pending") or [])) or "nothing named"
            parts.append(f"stopped waiting after {settle.get('waited_ms') or 0:,.0f} ms; still pending: {pending}")
        if isinstance(seen, dict) and seen.get("retries"):
            n = seen["retries"]
            parts.append(f"marked again {n} time{'s' if n != 1 else ''} (the page changed meanwhile"
                         + ("; still changing)" if seen.get("changing") else ")"))
        if isinstance(seen, dict) and seen.get("masked"):
            parts.append(f"{seen['masked']} element{'s' if seen['masked'] != 1 else ''} under a see-through layer "
                         "over the whole page (a popup's backdrop) not marked")
        return "; ".join(parts)

    @classmethod
    def from_row(cls, row: Mapping) -> Step:
        """A step row (from the store, decoded or not, or a live one) as a Step; its request is not read."""
        values = {f.name: row.get(f.name) for f in fields(cls) if f.name not in ("prediction", "plan")}
        for key in _STEP_JSON:
            values[key] = _json(values[key])
        for key in ("plan_calls", "plan_prompt_tokens", "plan_completion_tokens"):
            values[key] = values[key] or 0
        values["run_id"] = values["run_id"] or ""
        return cls(**values, prediction=Prediction.from_dict(row.get("prediction")),
                   plan=Plan.from_dict(row.get("plan")))

    def but(self, **changes) -> Step:
        """This step with `changes`, named by field (TypeError for a name that is not one: no stray column)."""
        return replace(self, **changes)

    def to_row(self) -> dict:
        """The step as a ``steps`` row for ``Store.commit_step`` (its messages sent and run id added there): the
        fields that hold something. A field left at its default is left out, so its column keeps the schema's
        default (``actor`` 'agent', ``plan_*`` 0, NULL else) and a step without look-ahead calls leaves the
        run's planning totals alone. ``prediction`` and ``plan`` are their JSON documents."""
        row = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or (f.default is not None and value == f.default):
                continue
            row[f.name] = value.to_dict() if isinstance(value, (Prediction, Plan)) else value
        return row


_STEP_JSON = ("evidence", "decision", "timings", "effect", "flags", "hops", "pointer")


@dataclass(frozen=True)
class Run:
    """One recorded run (a ``runs`` row) with its JSON columns decoded."""
    id: str
    task: str = ""
    url: str = ""
    task_id: str = ""
    site: str = ""
    model: str = ""
    base_url: str = ""
    status: str = ""
    answer: str | None = None
    error: str | None = None
    started: float | None = None
    finished: float | None = None
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    approval_policy: str = ""
    parent_run: str | None = None
    parent_step: int | None = None
    source: str = "cockpit"
    demo: bool = False
    batch: str = ""
    config: dict | None = None
    hops: dict | None = None  # the run's hop result
    memories: list | None = None  # run ids given to the agent as memories
    plan_calls: int = 0
    plan_prompt_tokens: int = 0
    plan_completion_tokens: int = 0
    plan_cost: float | None = None

    @classmethod
    def from_row(cls, row: Mapping) -> Run:
        values = {f.name: row.get(f.name) for f in fields(cls)}
        for key, empty in (("task", ""), ("url", ""), ("task_id", ""), ("site", ""), ("model", ""),
                           ("base_url", ""), ("status", ""), ("approval_policy", ""), ("source", "cockpit"),
                           ("batch", ""), ("steps", 0), ("prompt_tokens", 0), ("completion_tokens", 0),
                           ("plan_calls", 0), ("plan_prompt_tokens", 0), ("plan_completion_tokens", 0)):
            if values[key] is None:
                values[key] = empty
        values["demo"] = bool(values["demo"])
        values["config"] = _dict(values["config"])
        values["hops"] = _json(values["hops"])
        values["memories"] = _json(values["memories"])
        return cls(**values)
