"""A step's points: what a pixel action's point hits, as its target; how the model is told of points.

:class:`Points` is the agent's part for actions that act at a point
(``Click (600, 475)``): it resolves the point (or the focus) on the live page to
a :class:`~cockpit.core.safety.target.PointTarget` (the element under it, see
:mod:`cockpit.core.agent.pointer`) once the reply is read; from there the gate,
a take-over and the executor ask the target (:mod:`cockpit.core.safety.target`)
and never branch on the kind of action.

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

from cockpit.core.actions.coords import PERSON, Frame, Voice
from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.agent.pointer import describe_hit
from cockpit.core.agent.step import Step
from cockpit.core.errors import ActionError, ActionParseError
from cockpit.core.safety import redaction, target
from cockpit.core.safety.target import PointTarget, Target


class Points:
    """Pixel actions' points for one agent: its model's protocol (its space and frame) and its executor
    (which resolves a point on the live page)."""

    def __init__(self, protocol, executor, session):
        self.protocol = protocol
        self.executor = executor
        self.session = session

    def first_frame(self) -> Frame | None:
        """The frame the model is told of before its first screenshot (pixel mode only)."""
        if self.protocol.mode != "pixels":
            return None
        cfg = self.session.config
        return self.protocol.expected_frame(cfg.viewport, getattr(cfg, "device_scale_factor", 1.0))

    def resolve(self, st: Step, parsed, pointer: dict | None) -> str:
        """Record the step's pointer facts and resolve the action's target (``st.target``): its box, or the
        element under its point. Returns text to keep out of the record (typed into a secret field), else ""."""
        action = parsed.action
        if pointer is None and action is not None and action.pixel:
            pointer = {"mode": self.protocol.mode, "dialect": "marks"}  # a marks model wrote a pixel action
        if pointer is not None:
            st.write(pointer=pointer)
            st.voice = self._model_voice(pointer, action)
        st.target = None
        if action is None:
            return ""
        try:
            return self.aim(st, action, pointer)
        except ActionError as e:  # off the viewport: nothing is done, the model is told
            parsed.action, parsed.error = None, f"Format ERROR: {e}"
            if e.for_model:
                pointer["told"] = f"Format ERROR: {e.for_model}"
            return ""

    def aim(self, st: Step, action: Action, pointer: dict | None) -> str:
        """``st.target`` for `action` on the step's page (a point resolved on the live page, its facts on
        `pointer`; ActionError off the viewport); returns text typed into a secret field, else ""."""
        secret = ""

        def at_point(a: Action) -> PointTarget | None:
            nonlocal secret
            if not target.acts_at_point(a):
                return None
            found, secret = self._locate(st, a, pointer if pointer is not None else {})
            return found

        st.target = target.of(action, st.obs.marks, at_point, (pointer or {}).get("safety_checks") or ())
        return secret

    def voice(self, st: Step) -> Voice:
        """How step `st` names points to its model: in the model's own space, with the numbers it wrote for
        the points it gave (PERSON, viewport CSS pixels, for a Set-of-Mark model)."""
        if st.voice is not None:
            return st.voice
        frame = getattr(self.protocol, "frame", None)
        if self.protocol.mode != "pixels" or frame is None:
            return PERSON
        return Voice(self.protocol.space, frame)

    def _model_voice(self, pointer: dict, placed: Action | None) -> Voice | None:
        """The voice of a step whose model wrote `pointer["model_action"]` (its space), placed as `placed`."""
        frame = getattr(self.protocol, "frame", None)
        if self.protocol.mode != "pixels" or frame is None:
            return None
        try:
            wrote = parse_action(pointer["model_action"]) if pointer.get("model_action") else None
        except ActionParseError:
            wrote = None
        return Voice.of(wrote, placed, self.protocol.space, frame)

    def human_note(self, st: Step, shown: str) -> str:
        """A human's act during a take-over, as the model reads it: ``- Click (x, y): clicked at x, y on ...``."""
        rec = st.record
        said = (rec.pointer or {}).get("told")
        if rec.status == "ok":
            what = said or rec.outcome
        else:  # "changed" has an outcome of its own ("not done: ...")
            what = f"{'not done' if rec.outcome else 'failed'}: {said or rec.error}"
        v = self.voice(st)
        try:
            shown = v.action(parse_action(shown)) if not v.person else shown
        except ActionParseError:
            pass
        return f"- {shown}: {what}"

    def _locate(self, st: Step, action: Action, pointer: dict) -> tuple[PointTarget, str]:
        """Resolve `action`'s point (or, for ``Type; text``, the focus) on the live page, its facts on
        ``pointer["resolved"]`` (ActionError off the viewport): (its target, text typed into a secret field
        or "")."""
        ex = self.executor.pointer
        m = (ex.resolve_point(*action.point, st.obs.marks, self.voice(st)) if action.point is not None
             else ex.resolve_focus(st.obs.marks))
        cursor, hit = ex.last_cursor, dict(ex.last_hit)
        pointer["resolved"] = None if m is None else {
            "mark": m.id if m.reason != "at a point" else None, "tag": m.tag, "text": m.label[:200],
            "box": list(m.bbox), "href": m.href, "desc": describe_hit(m), "cursor": cursor,
            **({"focus": True} if action.point is None else {}), **({"secret": True} if m.secret else {}),
            **({"opaque": hit["opaque"]} if hit.get("opaque") else {})}
        end = None
        if action.kind == "drag" and action.end is not None:  # where it is dropped: rated too
            end = (ex.resolve_point(*action.end, st.obs.marks), dict(ex.last_hit))
        secret = action.kind == "type" and m is not None and (m.secret or bool(hit.get("opaque")) and
                                                              m.tag in ("iframe", "frame"))
        return PointTarget(m, cursor, hit, end), (action.text if secret else "")

    def edited(self, st: Step, action: Action) -> Target:
        """The target of a human's edit of the action: a new point is resolved again (off the viewport: at
        execution, the executor says so and nothing is done)."""
        if st.record.pointer is None and action.pixel:
            st.write(pointer={"mode": "pixels", "dialect": "edited"})
        try:
            self.aim(st, action, st.record.pointer)
        except ActionError:
            st.target = target.of(action, st.obs.marks)
        return st.target


def told(st: Step, person: str, model: str) -> str:
    """What the model reads of what happened: `model` (its own coordinates) when it differs from the person's
    `person`; kept on the step's pointer record (``told``) so a branch tells the model the same."""
    if model and model != person and st.record.pointer is not None:
        st.record.pointer["told"] = model
        return model
    return person


def scrub(st: Step, hide: set) -> None:
    """The model's own action as recorded, with text typed into a secret field hidden."""
    pointer = st.record.pointer
    if pointer and pointer.get("model_action"):
        pointer["model_action"] = redaction.scrub(pointer["model_action"], hide)
