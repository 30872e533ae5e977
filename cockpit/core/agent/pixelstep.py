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
"""
from __future__ import annotations

import dataclasses

from cockpit.core.actions.coords import Frame
from cockpit.core.actions.grammar import Action
from cockpit.core.agent.approval import Decision
from cockpit.core.agent.pointer import describe_hit
from cockpit.core.errors import ActionError
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
    st.resolved = None
    if action is None or not (action.point is not None or action.focused):
        return ""
    try:
        return locate(agent, st, action, pointer)
    except ActionError as e:  # off the viewport: nothing is done, the model is told
        parsed.action, parsed.error = None, f"Format ERROR: {e}"
        return ""


def locate(agent, st, action: Action, pointer: dict) -> str:
    """Resolve `action`'s point (or, for ``Type; text``, the focus) on the live page into ``st.resolved`` and
    ``pointer["resolved"]`` (ActionError off the viewport); returns text typed into a secret field, else ""."""
    ex = agent.executor
    m = st.resolved = ex.resolve_point(*action.point, st.obs.marks) if action.point is not None \
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
        return dataclasses.replace(decision, approved=False, message=(
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
    if checks and isinstance(agent._conv, ResponsesConversation):
        agent._conv.acknowledged = list(checks)
        st.row["pointer"]["acknowledged"] = [c.get("id") for c in checks]
