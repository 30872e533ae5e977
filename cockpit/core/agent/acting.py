"""One action run on the page as a step's (the agent's, or a person's during a take-over), and recorded.

:class:`Acting` is the agent's part that hands an approved action to the
executor on the step's target (what the gate rated and the approval bound:
:mod:`cockpit.core.safety.target`), writes what happened on the step's row,
announces it, and tells the observer which step's effect the next look measures.
"""
from __future__ import annotations

from cockpit.core.actions.grammar import Action
from cockpit.core.agent import events as ev
from cockpit.core.agent.execute import ActionOutcome, TargetChanged
from cockpit.core.agent.hooks.base import RunScope
from cockpit.core.agent.observing import Observer
from cockpit.core.agent.pixelstep import Points, told
from cockpit.core.agent.step import Step
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import ActionError
from cockpit.core.llm import prompt
from cockpit.core.safety.binding import Binding


class Acting:
    """Runs steps' actions in one session: its run's scope (the executor), its observer and its points."""

    def __init__(self, session: BrowserSession, scope: RunScope, observer: Observer, points: Points):
        self.session = session
        self.scope = scope
        self.observer = observer
        self.points = points

    def execute(self, st: Step, action: Action, actor: str = "agent",
                approved: Binding | None = None) -> tuple[None, str, str]:
        """Run `action` on the step's target; returns (None, what the model is told, a PDF's text)."""
        run = self.scope
        shown = st.record.action  # the action as recorded (secrets masked), set by the caller
        try:
            out: ActionOutcome = run.executor.run(action, st.obs.marks, press_enter=st.press_enter,
                                                  approved=approved, seen=st.target.seen,
                                                  voice=self.points.voice(st), document=st.obs.document)
        except ActionError as e:  # "changed": the approved target is not what was approved; nothing was done
            changed = isinstance(e, TargetChanged)
            st.write(status="changed" if changed else "error", error=str(e), url_after=self.session.url,
                     **({"outcome": f"not done: {e}"} if changed else {}))
            run.emit(ev.ActionExecuted(run.run_id, st.n, shown, False, str(e), st.record.url_after, actor=actor))
            return None, prompt.feedback_text(error=told(st, str(e), e.for_model)), ""
        st.write(status="ok", outcome=out.message, url_after=out.url_after)
        if out.settle:  # how long the page took to settle, and what was still pending if it did not
            st.write(timings={"settle": out.settle, "settle_ms": out.settle.get("waited_ms") or 0.0})
        self.observer.acted(st.n, st.obs)
        run.emit(ev.ActionExecuted(run.run_id, st.n, shown, True, out.message, out.url_after, out.seconds,
                                   actor=actor))
        return None, prompt.feedback_text(outcome=told(st, out.message, out.for_model)), out.pdf_text
