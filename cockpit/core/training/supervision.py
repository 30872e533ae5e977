"""What people did to a recorded run, step by step: the facts a training set is made of.

For each step, :func:`read_run` gives what the model proposed (in its own coordinate space), what was
executed, what a person decided at the approval gate, how annotators judged it in Review, and the
correction that applies, if any (:class:`Correction`):

    takeover   the step was a person's (take-over): their action
    point      Review's W, then a click on a pixel step: the click should have been there
    target     Review's W, then a click on the right box (a mark step, or a pixel step: the box's centre)
    edited     the person edited the action at the approval gate, then approved it

Review's corrections are newer knowledge than the gate's edit, so the newest of ``point`` / ``target``
wins, then ``edited``. A rejection at the gate (approved 0, with the person's message) is kept apart:
it is a correction too (the model's action was wrong) whose right action is the one executed next on
the same page, when there is one (:func:`cockpit.core.training.samples`).

Points: a pixel step's actions are read in viewport CSS pixels (as stored) and turned into the model's
own space with the frame of the screenshot it was sent (:func:`cockpit.core.actions.coords.to_model`).
A mark step's corrections stay marks. Nothing here writes; every read goes through the store.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from cockpit.core.actions import coords
from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.errors import ActionParseError
from cockpit.core.llm.modelconfig import ModelConfig
from cockpit.core.page.marks import Mark
from cockpit.core.safety.redaction import SECRET
from cockpit.core.store import Store, corrections, labels
from cockpit.core.store.stepmarks import step_marks

#: Kinds of correction, newest knowledge first when several apply to one step (point and target by time).
KINDS = ("takeover", "point", "target", "edited")
#: Review's step judgements as process labels (the issue's words), and the reward each stands for.
JUDGEMENT_LABELS = {"correct": "good", "wrong_target": "wrong target", "wrong_action": "wrong action",
                    "no_progress": "unnecessary", "harmful": "harmful"}
JUDGEMENT_REWARD = {"correct": 1.0, "no_progress": 0.0, "wrong_target": -1.0, "wrong_action": -1.0,
                    "harmful": -1.0}


@dataclass
class Correction:
    kind: str  # one of KINDS
    action: Action  # the right action, in the model's space (marks for a mark step)
    by: str = ""
    css_point: tuple | None = None  # a pixel correction's point in viewport CSS pixels (grounding)


@dataclass
class StepFacts:
    run_id: str
    step: int
    row: dict  # the steps row (request left out unless asked for)
    actor: str = "agent"
    dialect: str = "marks"  # marks, a pixel dialect, or "" when unknown
    frame: coords.Frame | None = None  # pixel steps: the screenshot sent and the viewport it stands for
    model_action: Action | None = None  # what the model proposed, in its own space
    executed: Action | None = None  # what ran (viewport CSS pixels for a point), as recorded
    decision: dict | None = None  # a person's decision at the gate (by 'human:...')
    judgements: list[dict] = field(default_factory=list)  # Review's step labels, one per annotator
    correction: Correction | None = None
    secret: bool = False  # text typed into a secret field: absent from the store, so from training too

    @property
    def rejected(self) -> bool:
        return bool(self.decision) and not self.decision.get("approved")

    @property
    def approved(self) -> bool:
        return bool(self.decision) and bool(self.decision.get("approved"))

    @property
    def ran(self) -> bool:
        """The action was done (or answered): what a trainer may learn as the executed reply."""
        return self.row.get("status") in ("ok", "answered")

    @property
    def judged_wrong(self) -> bool:
        return any(j.get("judgement") not in (None, "correct") for j in self.judgements)

    @property
    def judged_good(self) -> bool:
        return bool(self.judgements) and not self.judged_wrong


@dataclass
class RunFacts:
    run: dict
    config: ModelConfig
    steps: list[StepFacts]
    outcome: int | None = None  # 1 success, 0 failure, None unknown
    outcome_source: str = ""  # human (labels or adjudication), judge, no_answer, unjudged, refused
    store: Store | None = field(default=None, repr=False)  # where the run was read from (its files)

    @property
    def pixel(self) -> bool:
        return self.config.pixel

    @property
    def space(self) -> str:
        return self.config.coords


def model_config(run: dict) -> ModelConfig:
    """The model settings a run was recorded under (PNG screenshots when it predates the image format)."""
    stored = (run.get("config") or {}).get("model")
    if isinstance(stored, dict):
        cfg = ModelConfig.from_dict(stored)
        if "image_format" not in stored:
            cfg.image_format = "png"
        return cfg
    return ModelConfig(model=run.get("model") or "", image_format="png")


def read_run(store: Store, run_id: str, *, with_request: bool = False,
             outcome: tuple[int | None, str] = (None, "")) -> RunFacts:
    run = store.run(run_id)
    cfg = model_config(run)
    decisions = {}
    for d in store.decisions(run_id):  # the newest decision of a step is the one that held
        if str(d.get("by") or "").startswith("human:"):
            decisions[d["step"]] = d
    judged: dict[int, list[dict]] = {}
    for lab in labels.step_labels(store, run_id):
        judged.setdefault(lab["step"], []).append(lab)
    points: dict[int, dict] = {}
    for c in corrections.of(store, run_id):
        if c["kind"] == "point" and (c.get("point") or c.get("bbox")):
            points[c["step"]] = c
    facts = RunFacts(run, cfg, [], *outcome, store=store)
    last_frame = None
    for row in store.steps(run_id, with_request=with_request):
        s = _step(store, run_id, row, cfg, decisions.get(row["step"]), judged.get(row["step"], []),
                  points.get(row["step"]), last_frame)
        last_frame = s.frame or last_frame
        facts.steps.append(s)
    return facts


def _step(store: Store, run_id: str, row: dict, cfg: ModelConfig, decision, judgements, point, last_frame):
    pointer = row.get("pointer") if isinstance(row.get("pointer"), dict) else {}
    actor = row.get("actor") or "agent"
    dialect = pointer.get("dialect") or ("marks" if not cfg.pixel else cfg.dialect)
    if actor == "human" or dialect in ("human", "auto"):  # a person's step: the run's own dialect
        dialect = cfg.dialect if cfg.dialect not in ("auto",) else "plain"
    pixel = cfg.pixel
    frame = _frame(pointer) or (last_frame if pixel else None)
    s = StepFacts(run_id, row["step"], row, actor, dialect, frame, decision=decision, judgements=judgements)
    s.secret = SECRET in " ".join(str(row.get(k) or "") for k in ("action", "action_text", "reply")) or \
        SECRET in str((decision or {}).get("edited_action") or "")
    s.executed = _parse(row.get("action"), pixel)
    if actor != "human":
        s.model_action = _parse(pointer.get("model_action"), True) if pixel else \
            _parse((decision or {}).get("action") or row.get("action_text") or row.get("action"), False)
    s.correction = _correction(store, s, pixel, cfg.coords, point)
    return s


def _frame(pointer: dict) -> coords.Frame | None:
    f = pointer.get("frame") if isinstance(pointer, dict) else None
    try:
        return coords.Frame(tuple(f["viewport"]), tuple(f["image"])) if f else None
    except (KeyError, TypeError):
        return None


def _parse(text, pixel: bool) -> Action | None:
    if not text:
        return None
    try:
        return parse_action(str(text), pixel=pixel)
    except ActionParseError:
        return None


def marks_of(store: Store, row: dict) -> list[Mark]:
    return step_marks(store, row) or []


def _correction(store: Store, s: StepFacts, pixel: bool, space: str, point: dict | None) -> Correction | None:
    if s.actor == "human":
        if s.executed is None or not s.ran:
            return None
        act = _in_space(store, s, s.executed, pixel, space)
        return Correction("takeover", act[0], "", act[1]) if act else None
    review = []
    if point is not None:
        css = point.get("point") or _centre(point["bbox"])
        review.append((point.get("created") or 0.0, "point", tuple(css), point.get("by") or ""))
    for lab in s.judgements:
        if lab.get("judgement") == "wrong_target" and lab.get("corrected_target"):
            review.append((lab.get("created") or 0.0, "target", int(lab["corrected_target"]), lab["annotator"]))
    for _, kind, what, by in sorted(review, key=lambda r: r[0], reverse=True):
        fixed = _retarget(store, s, kind, what, pixel, space)
        if fixed is not None:
            return Correction(kind, fixed[0], by, fixed[1])
    d = s.decision
    if d and d.get("approved") and d.get("edited_action"):
        edited = _parse(d["edited_action"], pixel) or _parse(d["edited_action"], False)
        act = _in_space(store, s, edited, pixel, space) if edited is not None else None
        if act:
            return Correction("edited", act[0], str(d.get("by") or "").removeprefix("human:"), act[1])
    return None


def _centre(box) -> tuple:
    x, y, w, h = box
    return x + w / 2, y + h / 2


def _retarget(store: Store, s: StepFacts, kind: str, what, pixel: bool, space: str):
    """(the model's action aimed anew, the CSS point) for a Review correction; None when it cannot be said."""
    base = s.model_action
    if not pixel:  # a mark step: the right box
        if kind != "target":
            return None
        keep = base is not None and base.kind in ("click", "type", "select", "hover") and base.target is not None
        return (dataclasses.replace(base, target=what) if keep else Action("click", what)), None
    if kind == "target":
        mark = next((m for m in marks_of(store, s.row) if m.id == what), None)
        if mark is None:
            return None
        css = _centre(mark.bbox)
    else:
        css = what
    if s.frame is None:
        return None
    p = coords.to_model(css, space, s.frame)
    if base is not None and base.kind in ("click", "double_click", "right_click", "hover", "drag") or \
            base is not None and base.kind == "type" and base.point is not None:
        return dataclasses.replace(base, point=p, focused=False), css
    return Action("click", point=p), css


def _in_space(store: Store, s: StepFacts, action: Action, pixel: bool, space: str):
    """(`action` as the run's model would write it, its CSS point): points to the model's space in a pixel
    run (a mark to its box's centre), a point to the smallest box holding it in a mark run."""
    marks = marks_of(store, s.row)
    if pixel:
        if action.target is not None and action.needs_target:
            mark = next((m for m in marks if m.id == action.target), None)
            if mark is None or s.frame is None:
                return None
            css = _centre(mark.bbox)
            kind = action.kind if action.kind in ("click", "hover", "type") else "click"
            return Action(kind, text=action.text if kind == "type" else "",
                          point=coords.to_model(css, space, s.frame)), css
        if action.point is None and action.end is None:
            return action, None
        if s.frame is None:
            return None
        end = coords.to_model(action.end, space, s.frame) if action.end is not None else None
        return dataclasses.replace(action, point=coords.to_model(action.point, space, s.frame)
                                   if action.point is not None else None, end=end), action.point
    if action.point is None:
        return (action, None) if not action.focused and action.delta is None else None
    holding = [m for m in marks if m.bbox[0] <= action.point[0] < m.bbox[0] + m.bbox[2]
               and m.bbox[1] <= action.point[1] < m.bbox[1] + m.bbox[3]]
    if not holding or action.kind not in ("click", "hover", "type"):
        return None
    m = min(holding, key=lambda m: m.bbox[2] * m.bbox[3])
    return Action(action.kind, m.id, action.text if action.kind == "type" else ""), action.point
