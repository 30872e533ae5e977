"""The agent loop's extension points: :class:`StepHook`, and what a hook may use of a run (:class:`RunScope`).

A run goes observe → ask → gate → act → commit, step after step
(:mod:`cockpit.core.agent.loop`). A feature that changes a run without being
part of every run (multihop tracking, procedural memory, look-ahead,
breakpoints, the navigation fence) is a :class:`StepHook`: it overrides the
callbacks it needs; the others do nothing. The loop calls every hook of the
run, in the order :func:`cockpit.core.agent.hooks.for_run` lists them, at
these points:

=================  ==============================================================
``opening``        before the run's record exists: set up the executor, add to the
                   settings recorded with the run
``started``        the run's record exists, before the start page opens
``first_prompt``   the text before the first observation (not for a conversation
                   seeded from a parent run: it has it already)
``step_due``       before step n begins (a pause may follow)
``observed``       the step has observed the page (``st.obs``), before the model is asked
``ask``            instead of the step's model call (the first hook with an answer wins)
``model_failed``   the model call failed; True: call it again
``replied``        the reply is parsed (``action`` None: no usable action)
``proposed``       the action is rated and shown, before the approval gate
``gating``         the approval request, before the approver sees it
``decided``        the approver's decision, which a hook may change
``measured``       an action's effect, measured at the next observation
``committing``     before the step's row is stored
``ended``          the run is over, however it ended
=================  ==============================================================

A hook is made per run (:func:`cockpit.core.agent.hooks.for_run`) and keeps
that run's state. It raises nothing of its own but what it lets through from
the run (a stop, a failed model call, an error that fails the run).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from cockpit.core.actions.grammar import Action
    from cockpit.core.agent import events as ev
    from cockpit.core.agent.approval import ApprovalRequest, Decision
    from cockpit.core.agent.config import AgentConfig
    from cockpit.core.agent.control import RunControl
    from cockpit.core.agent.execute import Executor
    from cockpit.core.agent.start import Start
    from cockpit.core.agent.step import Step
    from cockpit.core.llm.client import ChatResult, ModelClient, ModelError
    from cockpit.core.page.effects import LoopWatch
    from cockpit.core.page.marks import Mark
    from cockpit.core.page.observation import Observation
    from cockpit.core.safety.risk import Risk
    from cockpit.core.store import Store


@dataclass
class RunScope:
    """What a hook may use of the agent running it; `run_id` is the current run's (set as it opens)."""
    config: AgentConfig
    store: Store
    client: ModelClient
    executor: Executor  # its `secrets`: text typed into secret fields so far
    control: RunControl
    loops: LoopWatch  # the loop detector: repeated actions, actions that did nothing
    emit: Callable[[ev.Event], None]  # an event to the run's listener
    flag: Callable[[int, str], None]  # (step, text): a flag on that step's row
    call_model: Callable[[int, list], ChatResult]  # (step, request) -> the agent's model reply
    image: Callable[[int], bytes | None]  # step n's screenshot as the model is sent it, when at hand
    run_id: str = ""


class StepHook:
    """One extension of the agent loop; see the module's table for when each callback is called."""

    def __init__(self, run: RunScope):
        self.run = run

    def opening(self, start: Start, settings: dict) -> None:
        pass

    def started(self, start: Start) -> None:
        pass

    def first_prompt(self, lead: str) -> str:
        return lead

    def step_due(self, n: int) -> None:
        pass

    def observed(self, st: Step) -> None:
        pass

    def ask(self, st: Step) -> ChatResult | None:
        return None

    def model_failed(self, n: int, error: ModelError) -> bool:
        return False

    def replied(self, st: Step, action: Action | None) -> None:
        pass

    def proposed(self, st: Step, action: Action, mark: Mark | None, risk: Risk) -> None:
        pass

    def gating(self, st: Step, request: ApprovalRequest) -> None:
        pass

    def decided(self, st: Step, decision: Decision) -> Decision:
        return decision

    def measured(self, n: int, before: Observation, after: Observation, effect: dict) -> None:
        pass

    def committing(self, st: Step, answer: str | None) -> None:
        pass

    def ended(self) -> None:
        pass
