"""The approval gate at one step: the action's risk, the question to the approver, the answer's record.

:class:`Gate` is the agent's part between the model's reply and the action:
:meth:`~Gate.rate` asks the step's target (:mod:`cockpit.core.safety.target`:
a box or what is under a point) for the action's risk, :meth:`~Gate.propose`
records and announces it and lets the step hooks look (preview, breakpoints),
:meth:`~Gate.ask` puts it to the :class:`~cockpit.core.agent.approval.Approver`
when the policy says so, and :meth:`~Gate.approve` binds what a human approved
(perhaps edited) to its target (issue #17), so the executor refuses it if the
page changed.

A person who takes the browser over (:meth:`RunControl.take_over`) ends a wait
at the gate at once: the pending action is dropped, recorded as rejected by
them with :data:`TOOK_OVER` (policy ``take-over``), and nothing the agent
proposes runs until they hand back (issue #38).
"""
from __future__ import annotations

import dataclasses
import time

from cockpit.core.actions.grammar import Action
from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import ApprovalRequest, Approver, Decision, by_site_rule, needs_approval, vetted
from cockpit.core.agent.control import PRESSED_PAUSE
from cockpit.core.agent.hooks.base import RunScope, StepHook
from cockpit.core.agent.pixelstep import Points
from cockpit.core.agent.step import Step
from cockpit.core.agent.stepimages import StepImages
from cockpit.core.page import effects
from cockpit.core.safety import redaction
from cockpit.core.safety.binding import Binding
from cockpit.core.safety.risk import Risk

#: The message of a decision made by a take-over: the pending action was dropped, not judged.
TOOK_OVER = "the supervisor took over"
#: Why an action waits at the gate when the run was paused while the model wrote it: "<who paused> " + HELD
HELD = "while the model wrote this action: it has not run"
#: ... when Pause was pressed
PAUSED_HERE = f"{PRESSED_PAUSE} {HELD}"
#: The decision's ``policy`` then: no approval policy asked (a refusal at the gate it is not; see ended_at_gate).
TAKE_OVER_POLICY = "take-over"


class Gate:
    """The gate of one agent: its run's scope, its approver and step hooks, and its points (to find again
    what an edited action acts on)."""

    def __init__(self, scope: RunScope, approver: Approver, hooks: list[StepHook], points: Points):
        self.scope = scope
        self.approver = approver
        self.hooks = hooks  # the current run's (the agent fills this list as each run opens)
        self.points = points
        self.conversation = None  # the current run's: safety checks a person approved go back in it

    def rate(self, st: Step, action: Action) -> Risk:
        """The action's risk on its target. A Type whose Enter would make it irreversible is typed without
        Enter (``st.press_enter``) when that is not."""
        obs = st.obs
        risk, st.press_enter = st.target.rate(action, obs.marks, obs.url, self.scope.config.risk_rules)
        return risk

    def propose(self, st: Step, action: Action, risk: Risk) -> None:
        """Record the action (a password or card field's text masked, see redaction) and its risk, announce
        it, count repeats for the loop detector, and let the hooks see it before the gate."""
        run, mark = self.scope, st.target.mark
        shown = st.target.shown(action, st.obs.marks, run.executor.secrets)
        st.write(action=shown, target=action.target, risk=risk.level, evidence=list(risk.evidence))
        run.emit(ev.ActionProposed(run.run_id, st.n, shown, action.target, risk.level, risk.evidence,
                                   st.record.pointer if st.target.pointed else None))
        if action.kind != "answer":
            loops = run.loops
            repeats = loops.action(effects.signature(st.obs.url, str(action), mark.label if mark else ""))
            if repeats > 1:
                run.flag(st.n, f"repeated x{repeats}")
            if loops.looping:
                run.flag(st.n, "loop")
        for h in self.hooks:
            h.proposed(st, action, mark, risk)

    def must_ask(self, st: Step, action: Action, risk: Risk) -> bool:
        """The approval policy asks, or the model attached safety checks (a person must see them), or a person
        has the browser (then :meth:`ask` drops the action without asking anyone), or Pause was pressed while
        the model wrote the action: it waits at the gate, unrun, to be approved, edited or rejected (#38). Once
        answered, the run pauses before its next step."""
        control = self.scope.control
        return (needs_approval(self.scope.config.approval_policy, risk, action) or bool(st.target.safety_checks)
                or bool(control.taken_over) or (control.pause_pending and action.kind != "answer"))

    def ask(self, st: Step, action: Action, risk: Risk) -> Decision:
        """Put the action to the approver; the decision goes on the step's row and into its record. A take-over
        before or while it waits drops the action (:data:`TOOK_OVER`), whatever the approver answered."""
        run, obs, control = self.scope, st.obs, self.scope.control
        policy, mark = run.config.approval_policy, st.target.mark
        requested = time.time()
        shown = st.record.action  # as :meth:`propose` showed it (secrets hidden)
        if control.pause_pending:  # held by Pause (#38): said among the reasons it waits
            control.pause_pending = False
            risk = dataclasses.replace(risk, evidence=(*risk.evidence, f"{control.pause_why} {HELD}"))
        if not control.taken_over:
            run.emit(ev.ApprovalRequested(run.run_id, st.n, shown, action.target, risk.level, risk.evidence))
            req = ApprovalRequest(run.run_id, st.n, action, mark, risk, policy, obs.url,
                                  st.record.thought, str(run.store.file(StepImages.files(st)["screenshot"])),
                                  shown=shown, boxes=len(obs.marks))
            for h in self.hooks:  # e.g. the prediction and the plan's candidates
                h.gating(st, req)
            decision = vetted(st.target.safety_checks, self.approver.decide(req, control.interrupted))
            for h in self.hooks:  # e.g. the human picked another of the plan's candidates
                decision = h.decided(st, decision)
            decision = by_site_rule(decision, risk, policy)  # who refused: a person, the run's policy or a site rule
        took_over = control.taken_over
        if took_over:  # the person has the browser: the agent's action does not run under their hands
            decision, policy = Decision(False, took_over, TOOK_OVER), TAKE_OVER_POLICY
        self._record(st, action, shown, risk, policy, decision, requested, bool(took_over))
        return decision

    def _record(self, st: Step, action: Action, shown: str, risk: Risk, policy: str, decision: Decision,
                requested: float, took_over: bool) -> None:
        """The decision on the step's row and in its decision record, announced."""
        run, mark = self.scope, st.target.mark
        edited = (redaction.shown(decision.action, st.obs.marks, run.executor.secrets)
                  if decision.action is not None else None)
        st.decision = {"action": shown, "target": action.target,
                       "target_mark": mark.to_dict() if mark else None, "risk": risk.level,
                       "evidence": list(risk.evidence), "policy": policy,
                       "approved": int(decision.approved), "by": decision.by, "message": decision.message,
                       "edited_action": edited, "requested_at": requested, "decided_at": decision.decided_at}
        st.write(decision={"approved": decision.approved, "by": decision.by, "message": decision.message,
                           "edited_action": edited, **({"took_over": True} if took_over else {}),
                           **({"proposed_action": shown, "proposed_risk": risk.level} if edited else {})})
        run.emit(ev.ApprovalDecided(run.run_id, st.n, decision.approved, decision.by, decision.message,
                                    edited or shown))

    def approve(self, st: Step, action: Action, decision: Decision) -> tuple[Action, Binding]:
        """The approved action (the human's edit, if any) and the exact target it was approved on. An edit is
        rated again on its own element: the step records its risk, not the proposed action's (the decision
        keeps that), so a replay asks only where the action that ran is itself risky (issue #38)."""
        if decision.action is not None:
            action = decision.action
            self.points.edited(st, action)
            risk = self.rate(st, action)
            st.write(action=st.target.shown(action, st.obs.marks, self.scope.executor.secrets),
                     target=action.target, risk=risk.level, evidence=list(risk.evidence))
        approved = st.target.binding(action)
        checks = st.target.safety_checks
        if checks and self.conversation is not None and self.conversation.acknowledge(list(checks)):
            st.record.pointer["acknowledged"] = [c.get("id") for c in checks]  # back with the next screenshot
        st.record.decision["approved_target"] = dict(approved.to_dict(), action=st.record.action)
        return action, approved
