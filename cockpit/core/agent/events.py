"""Small event objects the agent loop emits, past tense, for any listener.

Listeners (the CLI's progress line, the window's bridge, tests) receive them
on the agent's own thread; they must return quickly and never call back into
the loop. Events carry data, never live browser or database handles.
Text typed into a password or card field is already "(secret)" in every
event (see :mod:`cockpit.core.safety.redaction`), so listeners may show them as is.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Event:
    run_id: str


@dataclass(frozen=True)
class RunStarted(Event):
    task: str
    url: str
    max_steps: int
    task_id: str = ""  # the task's id in its task file ("" for a task typed in)


@dataclass(frozen=True)
class StepStarted(Event):
    step: int
    actor: str = "agent"  # or "human" during a take-over


@dataclass(frozen=True)
class ObservationReady(Event):
    step: int
    url: str
    title: str
    screenshot_path: str  # the marked screenshot, as stored
    marks: tuple = ()  # Mark objects
    timings: dict = field(default_factory=dict)
    screenshot: bytes = b""  # the clean PNG, for views that draw their own boxes
    stored: bool = True  # False: a fresh look during a take-over, not (yet) a step
    masked: tuple = ()  # boxes painted over in `screenshot` (typed card numbers; cockpit.core.page.masking)


@dataclass(frozen=True)
class ModelCalled(Event):
    step: int
    attempt: int = 1
    note: str = ""  # "retrying in 2 s (429)"


@dataclass(frozen=True)
class ModelStreaming(Event):
    """The model's reply while it is being written (a streamed call), about 20 times a second: the thought
    and the action as far as they have come (the whole of each so far, not the new piece), with secrets
    known so far hidden. ModelReplied follows with the reply as recorded. A retry starts again from ""."""
    step: int
    thought: str = ""
    action: str = ""
    tokens: int = 0  # pieces received, about one token each
    seconds: float = 0.0  # since the request was sent
    tokens_per_second: float | None = None  # None until there is a rate to tell
    first_token: float | None = None  # seconds to the first piece; None while the model has written nothing
    attempt: int = 1
    thought_held: bool = False  # the page has a secret field: the thought shows once the reply is read


@dataclass(frozen=True)
class ModelReplied(Event):
    step: int
    text: str
    thought: str
    action_text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class ActionProposed(Event):
    step: int
    action: str
    target: int | None
    risk: str
    evidence: tuple = ()
    pointer: dict | None = None  # a pixel action: the step's pointer record (frame, resolved element)


@dataclass(frozen=True)
class ApprovalRequested(Event):
    step: int
    action: str
    target: int | None
    risk: str
    evidence: tuple = ()


@dataclass(frozen=True)
class ApprovalDecided(Event):
    step: int
    approved: bool
    by: str
    message: str = ""
    action: str = ""  # the action that will run (an edited one when the human changed it)


@dataclass(frozen=True)
class ActionExecuted(Event):
    step: int
    action: str
    ok: bool
    message: str
    url_after: str = ""
    seconds: float = 0.0
    actor: str = "agent"


@dataclass(frozen=True)
class StepFinished(Event):
    step: int
    status: str  # ok, error, format_error, refused, answered, stopped
    seconds: float = 0.0
    actor: str = "agent"
    error: str = ""  # the step's error as stored (a format error's "Format ERROR: …", what Review shows)


@dataclass(frozen=True)
class RunPaused(Event):
    step: int
    between_steps: bool = True  # False: paused inside step `step` (a breakpoint before its action, a model error)


@dataclass(frozen=True)
class BreakpointHit(Event):
    step: int
    reason: str  # "action click", "loop: Click [3] 3 times on an unchanged page", ...


@dataclass(frozen=True)
class EffectMeasured(Event):
    step: int  # the step whose action had this effect (known at the next observation)
    effect: dict = field(default_factory=dict)
    flags: tuple = ()  # "noop", "repeated", "loop"


@dataclass(frozen=True)
class RunFinished(Event):
    status: str  # answered, max_steps, stopped
    answer: str | None = None
    steps: int = 0


@dataclass(frozen=True)
class RunFailed(Event):
    error: str
    steps: int = 0


@dataclass(frozen=True)
class HopsTracked(Event):
    """A run of a multihop task started with these hops (names in order, from hop 1)."""
    names: tuple = ()


@dataclass(frozen=True)
class HopPassed(Event):
    """A multihop task's hop passed (cockpit.core.tasks.hops); hops are numbered from 1."""
    step: int
    hop: int
    name: str
    passed: int  # hops passed so far, this one included
    total: int
    again: bool = False  # passed before a resume, announced again for views that start empty


@dataclass(frozen=True)
class MemoriesUsed(Event):
    """Past runs given to the agent as examples before step 1 (cockpit.core.agent.procedural_memory);
    () = none found."""
    run_ids: tuple = ()


# ---------- world-model previews and planning (cockpit.core.agent.hooks.lookahead) ----------
@dataclass(frozen=True)
class PredictionMade(Event):
    """What the world model expects the step's action to change (before the gate)."""
    step: int
    text: str  # "" when the preview call failed (see error)
    action: str = ""  # the action it is about, as recorded
    model: str = ""
    source: str = "preview"  # "preview" (its own call) or "plan" (the chosen candidate's simulation)
    error: str = ""


@dataclass(frozen=True)
class PredictionChecked(Event):
    """The step's action ran and the next observation measured what really changed."""
    step: int
    prediction: str
    actual: dict = field(default_factory=dict)  # {"effect", "url_before", "url_after", "title_before", "title_after"}
    summary: str = ""  # worldmodel.describe_actual(actual)


@dataclass(frozen=True)
class PlanMade(Event):
    """Planning mode ranked candidate actions; `plan` is PlanResult.to_dict() (secrets masked), whose
    candidates are {"index", "thought", "action", "kept", "dropped", "risk", "simulation": [{"action",
    "change"}], "verdicts", "scores", "mean"} and "chosen" is the index that will be proposed."""
    step: int
    plan: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PlanningCost(Event):
    """Model calls beyond the agent's own (previews, refine, simulate, score): this step's, and the run's."""
    step: int
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    total_calls: int = 0
    total_prompt_tokens: int = 0
    total_completion_tokens: int = 0
    total_cost: float | None = None
