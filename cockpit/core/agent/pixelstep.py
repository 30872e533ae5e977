"""The agent loop's pixel-action steps: what the point hits, its risk, its record, the model's safety checks.

Called from :mod:`cockpit.core.agent.loop` for actions that act at a point
(``Click (600, 475)``). The loop stays the same for marks and points: this
module supplies the target (the element resolved under the point, see
:mod:`cockpit.core.agent.pointer`), its rating
(:mod:`cockpit.core.safety.risk_point`) and how the action is shown.

OpenAI's computer-use model may attach ``pending_safety_checks`` to an action.
They are evidence in the approval panel and always make the gate ask; they are
acknowledged to the model only when a person approved (``by`` is ``human:<name>``),
never by a policy (``policy:allow``): then the action is refused and the model told why.

The model is told of points in its own coordinate space (:func:`voice`): what
happened, errors, a human's acts during a take-over. The record keeps viewport
CSS pixels for the person, and what the model read where it differs
(``pointer["told"]``), so a branch tells it the same.
"""
from __future__ import annotations

import dataclasses

from cockpit.core.actions.coords import PERSON, Frame, Voice
from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.agent.approval import Decision
from cockpit.core.agent.pointer import describe_hit
from cockpit.core.errors import ActionError, ActionParseError
from cockpit.core.llm.pixelprompt import ResponsesConversation
from cockpit.core.safety import redaction
from cockpit.core.safety.risk import Risk
from cockpit.core.safety.risk_point import classify_point, shown_point


def first_frame(agent) -> Frame | None:
    """The frame the model is told of before its first screenshot (pixel mode only)."""
    if agent.protocol.mode != "pixels":
        return None
    cfg = agent.session.config
    return agent.protocol.expected_frame(cfg.viewport, getattr(cfg, "device_scale_factor", 1.0))


def resolve(agent, st, parsed, pointer: dict | None) -> str:
    """Record the step's pointer facts and resolve a pixel action's point to the element there.
    Returns text to keep out of the record (typed into a secret field), else ""."""
    action = parsed.action
    if pointer is None and action is not None and action.pixel:
        pointer = {"mode": agent.protocol.mode, "dialect": "marks"}  # a marks model wrote a pixel action
    if pointer is not None:
        st.row["pointer"] = pointer
        st.voice = _model_voice(agent, pointer, action)
    st.resolved = None
    if action is None or not (action.point is not None or action.focused):
        return ""
    try:
        return locate(agent, st, action, pointer)
    except ActionError as e:  # off the viewport: nothing is done, the model is told
        parsed.action, parsed.error = None, f"Format ERROR: {e}"
        if e.for_model:
            pointer["told"] = f"Format ERROR: {e.for_model}"
        return ""


def voice(agent, st) -> Voice:
    """How step `st` names points to its model: in the model's own space, with the numbers it wrote for the
    points it gave (PERSON, viewport CSS pixels, for a Set-of-Mark model)."""
    if st.voice is not None:
        return st.voice
    frame = getattr(agent.protocol, "frame", None)
    if agent.protocol.mode != "pixels" or frame is None:
        return PERSON
    return Voice(agent.protocol.space, frame)


def _model_voice(agent, pointer: dict, placed: Action | None) -> Voice | None:
    """The voice of a step whose model wrote `pointer["model_action"]` (its space), placed as `placed`."""
    frame = getattr(agent.protocol, "frame", None)
    if agent.protocol.mode != "pixels" or frame is None:
        return None
    try:
        wrote = parse_action(pointer["model_action"]) if pointer.get("model_action") else None
    except ActionParseError:
        wrote = None
    return Voice.of(wrote, placed, agent.protocol.space, frame)


def told(st, person: str, model: str) -> str:
    """What the model reads of what happened: `model` (its own coordinates) when it differs from the person's
    `person`; kept on the step's pointer record (``told``) so a branch tells the model the same."""
    if model and model != person and st.row.get("pointer") is not None:
        st.row["pointer"]["told"] = model
        return model
    return person


def human_note(agent, st, shown: str) -> str:
    """A human's act during a take-over, as the model reads it: ``- Click (x, y): clicked at x, y on ...``."""
    said = (st.row.get("pointer") or {}).get("told")
    if st.row.get("status") == "ok":
        what = said or st.row.get("outcome")
    else:  # "changed" has an outcome of its own ("not done: ...")
        what = f"{'not done' if st.row.get('outcome') else 'failed'}: {said or st.row.get('error')}"
    v = voice(agent, st)
    try:
        shown = v.action(parse_action(shown)) if not v.person else shown
    except ActionParseError:
        pass
    return f"- {shown}: {what}"


def locate(agent, st, action: Action, pointer: dict) -> str:
    """Resolve `action`'s point (or, for ``Type; text``, the focus) on the live page into ``st.resolved`` and
    ``pointer["resolved"]`` (ActionError off the viewport); returns text typed into a secret field, else ""."""
    ex = agent.executor
    m = st.resolved = ex.resolve_point(*action.point, st.obs.marks, voice(agent, st)) if action.point is not None \
        else ex.resolve_focus(st.obs.marks)
    st.cursor, st.hit = ex.last_cursor, dict(ex.last_hit)
    pointer["resolved"] = None if m is None else {
        "mark": m.id if m.reason != "at a point" else None, "tag": m.tag, "text": m.label[:200],
        "box": list(m.bbox), "href": m.href, "desc": describe_hit(m), "cursor": st.cursor,
        **({"focus": True} if action.point is None else {}), **({"secret": True} if m.secret else {}),
        **({"opaque": st.hit["opaque"]} if st.hit.get("opaque") else {})}
    if action.kind == "drag" and action.end is not None:  # where it is dropped: rated too
        st.drag_end = (ex.resolve_point(*action.end, st.obs.marks), dict(ex.last_hit))
    secret = action.kind == "type" and m is not None and (m.secret or bool(st.hit.get("opaque")) and
                                                          m.tag in ("iframe", "frame"))
    return action.text if secret else ""


def scrub(st, hide: set) -> None:
    """The model's own action as recorded, with text typed into a secret field hidden."""
    pointer = st.row.get("pointer")
    if pointer and pointer.get("model_action"):
        pointer["model_action"] = redaction.scrub(pointer["model_action"], hide)


def rate(agent, st, action: Action) -> Risk | None:
    """A pixel action's risk (None for a mark action: the loop rates it)."""
    if not action.pixel:
        return None
    checks = (st.row.get("pointer") or {}).get("safety_checks") or ()
    return classify_point(action, st.resolved, st.obs.marks, st.obs.url, agent.config.risk_rules,
                          cursor=st.cursor, safety_checks=checks, hit=st.hit, end=st.drag_end)


def shown(agent, st, action: Action) -> str:
    """The action as recorded and displayed (secrets hidden)."""
    if action.pixel:
        return shown_point(action, st.resolved, agent.executor.secrets)
    return redaction.shown(action, st.obs.marks, agent.executor.secrets)


def must_ask(st) -> bool:
    """The model attached safety checks: a person must see them, whatever the approval policy."""
    return bool((st.row.get("pointer") or {}).get("safety_checks"))


def vet(st, decision: Decision) -> Decision:
    """A policy cannot acknowledge the model's safety checks: its approval becomes a refusal."""
    if decision.approved and must_ask(st) and not str(decision.by).startswith("human:"):
        return dataclasses.replace(decision, approved=False, by="policy:safety-checks", message=(
            "the model's safety checks need a person's acknowledgement, and no one was asked in this run"))
    return decision


def edited(agent, st, action: Action) -> None:
    """The human edited the action: a new point is resolved again (off the viewport: at execution, the
    executor says so and nothing is done)."""
    st.resolved = None
    if action.pixel:
        try:
            locate(agent, st, action, st.row.setdefault("pointer", {"mode": "pixels", "dialect": "edited"}))
        except ActionError:
            st.resolved = None


def acknowledge(agent, st) -> None:
    """A person approved: the model's safety checks go back acknowledged with the next screenshot."""
    checks = (st.row.get("pointer") or {}).get("safety_checks")
    if checks and isinstance(agent.conversation, ResponsesConversation):
        agent.conversation.acknowledged = list(checks)
        st.row["pointer"]["acknowledged"] = [c.get("id") for c in checks]
