"""The four kinds of training data, made from one run's facts (:mod:`cockpit.core.training.supervision`).

SFT          one sample per kept step: the prompt as sent (:mod:`.prompts`) and the reply that was executed,
             the model's own where accepted, the corrected one (in the run's dialect) where a person changed it
preference   one pair per step a person corrected or rejected: the same prompt; chosen, the corrected action
             (for a rejection: the action executed next on the same page); rejected, the model's own reply
process      per run, the model's replies in order with a label each: a person's step judgement, or the
             correction or rejection of the step (a wrong step), else the run's outcome
grounding    per step with a known target on its clean screenshot: the target's box and a point, and an
             instruction (the element's text, else the step's thought)

Which steps SFT keeps is :data:`KEEP`'s choice. Every step left out for a reason (a secret typed, no
request recorded, ...) is counted in the :class:`Tally`, which the dataset card reports.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field

from cockpit.core.actions import coords
from cockpit.core.actions.grammar import Action
from cockpit.core.page.marks import Mark
from cockpit.core.store import corrections
from cockpit.core.training.prompts import Skip, assistant_of, corrected_reply, prompt_of, tools_for
from cockpit.core.training.supervision import JUDGEMENT_LABELS, JUDGEMENT_REWARD, RunFacts, StepFacts, marks_of

KINDS = ("sft", "preference", "process", "grounding")
#: Which steps SFT keeps (every corrected step is kept by each but "all" keeps every step that ran).
KEEP = {"default": "the steps of runs people labelled success, and every corrected step",
        "approved": "those, and every step a person approved at the approval gate",
        "corrected": "only the steps a person corrected (edited, retargeted, re-pointed or took over)",
        "all": "every step that ran (the model's own reply where nobody corrected it)"}


@dataclass
class Tally:
    """What was made and what was left out, and why."""
    made: Counter = field(default_factory=Counter)  # by source: accepted, edited, target, point, takeover, rejected
    skipped: Counter = field(default_factory=Counter)  # by reason
    runs: set = field(default_factory=set)  # runs that gave at least one row
    models: Counter = field(default_factory=Counter)  # rows by model

    def add(self, source: str, facts: RunFacts) -> None:
        self.made[source] += 1
        self.runs.add(facts.run["id"])
        self.models[facts.run.get("model") or "?"] += 1

    def merge(self, other: "Tally") -> None:
        self.made += other.made
        self.skipped += other.skipped
        self.runs |= other.runs
        self.models += other.models

    @property
    def total(self) -> int:
        return sum(self.made.values())


@dataclass
class Sample:
    """One chat sample: `messages` end with the reply to learn (SFT), or are the prompt (a pair's)."""
    run_id: str
    step: int
    source: str
    messages: list[dict]
    tools: list[dict] | None = None
    chosen: dict | None = None  # a pair's
    rejected: dict | None = None
    message: str = ""  # a rejection's message
    meta: dict = field(default_factory=dict)


def _meta(facts: RunFacts, s: StepFacts) -> dict:
    r = facts.run
    return {"run_id": r["id"], "step": s.step, "task": r.get("task") or "", "site": r.get("site") or "",
            "model": r.get("model") or "", "dialect": s.dialect if facts.pixel else "marks",
            "space": facts.space if facts.pixel else "marks"}


def successful(facts: RunFacts) -> bool:
    return facts.outcome == 1 and facts.outcome_source == "human"


def sft(facts: RunFacts, keep: str, tally: Tally) -> list[Sample]:
    out = []
    for i, s in enumerate(facts.steps):
        if s.correction is not None:
            source = s.correction.kind
        elif s.actor != "human" and s.ran and not s.rejected and not s.judged_wrong and s.model_action is not None \
                and (keep == "all" or keep in ("default", "approved") and successful(facts)
                     or keep == "approved" and s.approved):
            source = "accepted"
        else:
            continue
        if keep == "corrected" and source == "accepted":
            continue
        try:
            if s.secret:
                raise Skip("text typed into a secret field is not stored")
            reply = corrected_reply(facts, s, s.correction.action) if s.correction else assistant_of(s.row.get("reply"))
            msgs = prompt_of(facts, i) + [reply]
        except Skip as e:
            tally.skipped[str(e)] += 1
            continue
        tally.add(source, facts)
        out.append(Sample(facts.run["id"], s.step, source, msgs, tools_for(facts, s), meta=_meta(facts, s)))
    return out


def preference(facts: RunFacts, tally: Tally) -> list[Sample]:
    out = []
    for i, s in enumerate(facts.steps):
        if s.actor == "human" or not (s.correction is not None or s.rejected):
            continue
        try:
            if s.secret:
                raise Skip("text typed into a secret field is not stored")
            if s.model_action is None:
                raise Skip("the model's own reply held no action")
            if s.correction is not None:
                source, chosen = s.correction.kind, corrected_reply(facts, s, s.correction.action)
            else:
                source, chosen = "rejected", corrected_reply(facts, s, _next_on_page(facts, i))
            rejected = assistant_of(s.row.get("reply"))
            msgs = prompt_of(facts, i)
        except Skip as e:
            tally.skipped[str(e)] += 1
            continue
        tally.add(source, facts)
        out.append(Sample(facts.run["id"], s.step, source, msgs, tools_for(facts, s), chosen=chosen,
                          rejected=rejected, message=str((s.decision or {}).get("message") or ""),
                          meta=_meta(facts, s)))
    return out


def _next_on_page(facts: RunFacts, i: int) -> Action:
    """After a rejection nothing ran, so the next action that ran (the model's retry, or a person's) acted on
    the same page: it is the right one, aimed in step i's terms (its mark found again, or its point)."""
    s = facts.steps[i]
    for t in facts.steps[i + 1:]:
        if t.secret or t.rejected or t.judged_wrong:
            continue
        if t.row.get("url") != s.row.get("url"):
            break
        if not t.ran or t.executed is None:
            continue
        if t.correction is not None and t.correction.kind != "takeover":
            act = t.correction.action  # a Review correction of the later step is righter still
        elif facts.pixel and t.actor != "human" and t.model_action is not None:
            act = t.model_action
        elif t.correction is not None:
            act = t.correction.action
        else:
            act = t.executed
        if act.target is not None:
            act = _same_mark(facts, t, s, act)
        elif not facts.pixel and act.point is not None:
            raise Skip("the action after a rejection was at a point, which a mark model cannot write")
        elif facts.pixel and act.point is not None and t.frame and s.frame and t.frame != s.frame:
            act = coords.place(act, facts.space, t.frame)
            act = dataclasses.replace(act, point=coords.to_model(act.point, facts.space, s.frame))
        return act
    raise Skip("a rejection with no later action on the same page has no chosen action")


def _same_mark(facts: RunFacts, later: StepFacts, s: StepFacts, act: Action) -> Action:
    theirs = next((m for m in marks_of(facts.store, later.row) if m.id == act.target), None)
    if theirs is None:
        raise Skip("the action after a rejection names a mark its step does not hold")
    key = (theirs.tag, theirs.label, tuple(theirs.bbox))
    mine = next((m for m in marks_of(facts.store, s.row) if (m.tag, m.label, tuple(m.bbox)) == key), None)
    if mine is None:
        raise Skip("the element acted on after a rejection is not among the rejected step's marks")
    return dataclasses.replace(act, target=mine.id)


def process(facts: RunFacts, tally: Tally) -> dict | None:
    """One TRL stepwise-supervision row for the run: its agent steps' replies with a label each."""
    steps = [(i, s) for i, s in enumerate(facts.steps) if s.actor != "human" and s.row.get("reply")]
    if not steps:
        return None
    completions, labels, judgements, rewards, sources = [], [], [], [], []
    for _, s in steps:
        if s.secret:
            tally.skipped["text typed into a secret field is not stored"] += 1
            return None
        names = [j["judgement"] for j in s.judgements if j.get("judgement")]
        wrong = [n for n in names if n != "correct"]
        if names:
            label, source = not wrong, "judgement"
            name = (wrong or names)[-1]
            judgement, reward = JUDGEMENT_LABELS.get(name, name), JUDGEMENT_REWARD.get(name, 0.0)
        elif s.correction is not None or s.rejected:
            label, source, judgement, reward = False, "correction" if s.correction else "rejection", None, -1.0
        elif facts.outcome is not None:
            label, source, judgement, reward = bool(facts.outcome), "outcome", None, float(facts.outcome)
        else:
            tally.skipped["steps with no judgement in a run of unknown outcome"] += 1
            return None
        reply = assistant_of(s.row.get("reply")) if '"output"' not in (s.row.get("reply") or "") else None
        completions.append(_text(reply) if reply else s.row.get("reply") or "")
        labels.append(label)
        judgements.append(judgement)
        rewards.append(reward)
        sources.append(source)
    try:
        prompt = prompt_of(facts, steps[0][0])
    except Skip as e:
        tally.skipped[str(e)] += 1
        return None
    tally.add("run", facts)
    return {"prompt": prompt, "completions": completions, "labels": labels, "judgements": judgements,
            "rewards": rewards, "label_sources": sources, "outcome": facts.outcome,
            "outcome_source": facts.outcome_source, "steps": [s.step for _, s in steps],
            **{k: v for k, v in _meta(facts, steps[0][1]).items() if k != "step"}}


def _text(msg: dict) -> str:
    """An assistant message as one string: its text, then its tool calls as JSON."""
    import json
    parts = [msg.get("content") or ""]
    if msg.get("tool_calls"):
        parts.append(json.dumps({"tool_calls": msg["tool_calls"]}, ensure_ascii=False))
    return "\n".join(p for p in parts if p)


# ---------------------------------------------------------------- grounding

def grounding(facts: RunFacts, keep: str, tally: Tally) -> list[dict]:
    out = []
    for s in facts.steps:
        got = _target(facts, s, keep)
        if got is None:
            continue
        source, box, point, mark = got
        row = _ground_row(facts, s, source, box, point, mark)
        if row is None:
            tally.skipped["no clean screenshot for a grounding sample"] += 1
            continue
        tally.add(source, facts)
        out.append(row)
    for c in corrections.of(facts.store, facts.run["id"]):  # boxes a person drew round an element the marks missed
        s = next((t for t in facts.steps if t.step == c["step"]), None)
        if c["kind"] == "missing" and c.get("bbox") and (c.get("label") or "").strip() and s is not None:
            row = _ground_row(facts, s, "missing mark", tuple(c["bbox"]), None, None, instruction=c["label"])
            if row is not None:
                tally.add("missing mark", facts)
                out.append(row)
    return out


def _target(facts: RunFacts, s: StepFacts, keep: str):
    """(source, box, point, mark) in CSS pixels of the step's known-right target, or None."""
    marks = marks_of(facts.store, s.row)
    by_id = {m.id: m for m in marks}
    c = s.correction
    if c is not None:
        if c.action.target is not None:
            m = by_id.get(c.action.target)
            return (c.kind, m.bbox, _centre(m.bbox), m) if m else None
        if c.css_point is not None:
            m = _holding(marks, c.css_point)
            return c.kind, (m.bbox if m else None), c.css_point, m
        return None
    if s.actor == "human" or not s.ran or s.rejected or s.judged_wrong or s.executed is None:
        return None
    if keep == "corrected" or not (keep == "all" or successful(facts) or s.judged_good
                                   or keep == "approved" and s.approved):
        return None
    a = s.executed
    if a.target is not None and a.kind in ("click", "type", "select", "hover") and a.target in by_id:
        m = by_id[a.target]
        return "accepted", m.bbox, _centre(m.bbox), m
    resolved = (s.row.get("pointer") or {}).get("resolved") or {}
    if a.point is not None and a.kind in ("click", "double_click", "right_click", "hover", "type"):
        box = tuple(resolved["box"]) if resolved.get("box") else None
        return "accepted", box, a.point, _holding(marks, a.point)
    return None


def _centre(box) -> tuple:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _holding(marks: list[Mark], p) -> Mark | None:
    inside = [m for m in marks if m.bbox[0] <= p[0] < m.bbox[0] + m.bbox[2] and m.bbox[1] <= p[1] < m.bbox[1] + m.bbox[3]]
    return min(inside, key=lambda m: m.bbox[2] * m.bbox[3]) if inside else None


def _ground_row(facts: RunFacts, s: StepFacts, source: str, box, point, mark: Mark | None,
                instruction: str = "") -> dict | None:
    image = s.row.get("screenshot_clean")
    if not image:
        return None
    try:
        from PIL import Image
        with Image.open(facts.store.file(image)) as im:
            size = im.size
    except OSError:
        return None
    viewport = s.frame.viewport if s.frame else None
    scale = size[0] / viewport[0] if viewport and viewport[0] else 1.0
    thought = s.row.get("thought") or ""
    text = instruction or (mark.label if mark is not None else "")
    px_box = [round(v * scale, 2) for v in box] if box else None
    px_point = [round(v * scale, 2) for v in (point or _centre(box))]
    return {"image": image, "image_size": list(size), "instruction": text.strip() or thought,
            "instruction_source": "element" if text.strip() else "thought", "thought": thought,
            "bbox": px_box, "point": px_point, "data_type": "text" if mark is not None and mark.text else "icon",
            "element": {"tag": mark.tag, "text": mark.label[:200]} if mark is not None else None,
            "source": source, **_meta(facts, s)}
