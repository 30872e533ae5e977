"""Previews and planning (issue #7) as a step hook: the loop's side of :mod:`cockpit.core.lookahead`.

* preview: before an agent action is gated and run, the world model predicts
  what it will change; the step row keeps ``prediction`` = {action, text,
  model, source, tokens, ...} and, once the next observation has measured it,
  ``prediction.actual`` = the effect plus address and title before and after.
* planning: the step's single model call becomes :class:`Planner.plan`; the
  chosen candidate comes back as an ordinary reply, so the rest of the step
  (risk classification, approval gate, execution) is unchanged. The row keeps
  ``plan`` (PlanResult.to_dict, with each candidate's risk).

Every call beyond the agent's own (previews, refine, simulate, score) is
"planning cost": per step in the ``plan_*`` columns, per run summed by the
store, and reported live by :class:`events.PlanningCost`.
"""
from __future__ import annotations

import logging

from cockpit.core.agent import events as ev
from cockpit.core.agent.approval import ApprovalRequest, Decision
from cockpit.core.agent.hooks.base import RunScope, StepHook
from cockpit.core.errors import short_message
from cockpit.core.llm.client import ChatResult, ModelCancelled, ModelClient, ModelError
from cockpit.core.lookahead.planning import Cost, Planner, PlanResult
from cockpit.core.lookahead.worldmodel import (
    Page,
    Prediction,
    WorldModel,
    WorldModelConfig,
    actual_change,
    describe_actual,
)
from cockpit.core.safety import redaction
from cockpit.core.safety.risk import classify
from cockpit.core.store import records

log = logging.getLogger(__name__)


class Lookahead(StepHook):
    """The run's look-ahead; made only when preview or planning is on
    (:func:`cockpit.core.agent.hooks.for_run`)."""

    def __init__(self, run: RunScope):
        super().__init__(run)
        self.task = ""
        self._own: list[ModelClient] = []  # clients opened here, closed at the end
        self.preview: WorldModel | None = None
        self.planning = run.config.planning
        self.world: WorldModel | None = None
        self.total = Cost(0, 0, 0, None)
        self._plan: tuple[int, PlanResult] | None = None  # the current step's plan (real actions inside)
        self._predictions: dict[int, dict] = {}  # waiting for the next observation to measure the effect

    def started(self, start) -> None:
        """Open the world models' clients; on failure (e.g. no API key for the world model) close what was
        opened, then fail the run."""
        try:
            self._open(start.task)
        except BaseException:
            self.ended()
            raise

    def _open(self, task: str) -> None:
        run, preview = self.run, self.run.config.preview
        self.task = task
        self.preview = WorldModel(self._client(preview, run.client), images=preview.images) \
            if preview is not None else None
        if self.planning is not None:
            wcfg = self.planning.world
            if wcfg is not None:
                self.world = WorldModel(self._client(wcfg, run.client), images=wcfg.images)
            else:
                self.world = self.preview or WorldModel(run.client)
        rec = run.store.run(run.run_id)  # a resumed run goes on from its earlier look-ahead cost
        self.total = Cost(rec.get("plan_calls") or 0, rec.get("plan_prompt_tokens") or 0,
                          rec.get("plan_completion_tokens") or 0, rec.get("plan_cost"))

    def _client(self, wcfg: WorldModelConfig, agent_client: ModelClient) -> ModelClient:
        if wcfg.api_key is None and wcfg.model == agent_client.config:
            return agent_client
        key = wcfg.api_key
        if key is None and wcfg.model.base_url == agent_client.config.base_url:
            key = getattr(agent_client, "_key", None)  # the same server: the key the agent was given
        client = ModelClient(wcfg.model, api_key=key)
        self._own.append(client)
        return client

    def ended(self) -> None:
        for c in self._own:
            c.close()
        self._own.clear()

    # ---------- planning: instead of the step's model call ----------
    def ask(self, st) -> ChatResult | None:
        return self.plan(st) if self.planning else None

    def plan(self, st) -> ChatResult:
        """Plan the step; returns the chosen candidate as the step's reply (the proposal call's usage)."""
        planner = Planner(self.planning, self.run.client, self.world, cancel=self.run.control.stop_event,
                          propose=lambda msgs: self.run.call_model(st.n, msgs))
        page = self._page(st)
        res = planner.plan(st.request, page)
        self._plan = (st.n, res)
        obs = st.obs
        for c in res.candidates:
            if c.action is not None:
                mark = redaction.mark_of(c.action, obs.marks)
                c.risk = classify(c.action, mark, obs.marks, obs.url, self.run.config.risk_rules).level
        hide = set(page.secrets) | {redaction.typed_secret(c.action, obs.marks) for c in res.candidates}
        plan = _scrub_tree(res.to_dict(), {h for h in hide if h})
        st.write(plan=records.Plan.from_dict(plan))
        self.run.emit(ev.PlanMade(self.run.run_id, st.n, plan))
        self._charge(st, res.cost)
        p = res.policy
        best = res.best
        text = f"Thought: {best.thought}\nAction: {best.action}" if best is not None else p.text
        return ChatResult(text=text, model=p.model, prompt_tokens=p.prompt_tokens,
                          completion_tokens=p.completion_tokens, cost=p.cost, seconds=p.seconds,
                          attempts=p.attempts, finish_reason=p.finish_reason)

    def _current(self, n: int) -> PlanResult | None:
        return self._plan[1] if self._plan is not None and self._plan[0] == n else None

    def _charge(self, st, cost: Cost) -> None:
        """Count look-ahead calls: on the step's row (the store sums them per run) and in the live total."""
        if not cost.calls:
            return
        rec = st.record
        mine = _merge(Cost(rec.plan_calls or 0, rec.plan_prompt_tokens or 0,
                           rec.plan_completion_tokens or 0, rec.plan_cost), cost)
        st.write(plan_calls=mine.calls, plan_prompt_tokens=mine.prompt_tokens,
                 plan_completion_tokens=mine.completion_tokens, plan_cost=mine.cost)
        self.total = t = _merge(self.total, cost)
        self.run.emit(ev.PlanningCost(self.run.run_id, st.n, mine.calls, mine.prompt_tokens,
                                       mine.completion_tokens, mine.cost, t.calls, t.prompt_tokens,
                                       t.completion_tokens, t.cost))

    # ---------- after the action is proposed, before the gate ----------
    def proposed(self, st, action, mark, risk) -> None:
        """The prediction for the proposed action: the chosen candidate's simulation, else a preview call."""
        self._predictions.clear()  # older steps were measured at this step's observation, or never ran
        if action.kind == "answer":
            return
        res = self._current(st.n)
        best = res.best if res is not None else None
        if best is not None and best.action == action and best.simulation:
            self._set_prediction(st, self._from_plan(st, best.index))
        elif self.preview is not None:
            pred = self._preview(st, action)
            self._set_prediction(st, pred)
            if pred.calls:
                self._charge(st, Cost(1, pred.prompt_tokens, pred.completion_tokens, pred.cost,
                                             pred.seconds))

    def _from_plan(self, st, index: int) -> Prediction:
        """A candidate's simulated first step, as stored (secrets masked), becomes the prediction."""
        c = st.record.plan.to_dict()["candidates"][index - 1]
        return Prediction(c["action"], c["simulation"][0]["change"], model=self.world.model, calls=0,
                          source="plan")

    def _preview(self, st, action) -> Prediction:
        page = self._page(st)
        shown = page.shown(action)
        try:
            text, r = self.preview.predict(page, action, cancel=self.run.control.stop_event)
        except ModelCancelled:
            raise
        except ModelError as e:  # no preview, but the run goes on
            log.warning("run %s step %d: no preview (%s)", self.run.run_id, st.n, short_message(e))
            return Prediction(shown, "", model=self.preview.model, calls=0, error=short_message(e))
        return Prediction(shown, redaction.scrub(text, page.secrets), model=r.model or self.preview.model,
                          prompt_tokens=r.prompt_tokens, completion_tokens=r.completion_tokens, cost=r.cost,
                          seconds=r.seconds)

    def _set_prediction(self, st, pred: Prediction) -> None:
        d = pred.to_dict()
        st.write(prediction=records.Prediction.from_dict(d))
        if not pred.error:
            self._predictions[st.n] = d
        self.run.emit(ev.PredictionMade(self.run.run_id, st.n, pred.text, pred.action, pred.model,
                                         pred.source, pred.error))

    # ---------- the approval gate ----------
    def gating(self, st, req: ApprovalRequest) -> None:
        """Give the approval request the prediction and the plan's candidates."""
        pred, plan = st.record.prediction, st.record.plan
        req.prediction = pred.to_dict().get("text", "") if pred is not None else ""
        if plan is not None:
            req.candidates = tuple(plan.to_dict()["candidates"])
            req.chosen = plan.chosen

    def decided(self, st, decision: Decision) -> Decision:
        """A decision picking another candidate: run that candidate's action, and say so in the plan."""
        res = self._current(st.n)
        c = res.candidate(decision.candidate) if res is not None and decision.candidate is not None else None
        if c is None or c.action is None or not decision.approved:
            return decision
        decision.action = c.action
        res.picked_by = decision.by
        plan = st.record.plan.to_dict() if st.record.plan is not None else {}
        st.write(plan=records.Plan.from_dict(dict(plan, picked=c.index, picked_by=decision.by)))
        if c.action.kind == "answer":
            st.write(prediction=None)
            self._predictions.pop(st.n, None)
        elif c.simulation:
            self._set_prediction(st, self._from_plan(st, c.index))
        elif self.preview is not None:
            pred = self._preview(st, c.action)
            self._set_prediction(st, pred)
            if pred.calls:
                self._charge(st, Cost(1, pred.prompt_tokens, pred.completion_tokens, pred.cost,
                                             pred.seconds))
        else:
            st.write(prediction=None)
            self._predictions.pop(st.n, None)
        return decision

    # ---------- after the action ran: what really changed ----------
    def measured(self, n: int, before, after, effect: dict) -> None:
        pred = self._predictions.pop(n, None)
        if pred is None:
            return
        hide = self.run.executor.secrets  # a GET form puts a typed password into the address
        actual = actual_change(effect, url_before=redaction.scrub(before.url, hide),
                               url_after=redaction.scrub(after.url, hide),
                               title_before=redaction.scrub(before.title, hide),
                               title_after=redaction.scrub(after.title, hide))
        self.run.store.update_step(self.run.run_id, n, prediction=dict(pred, actual=actual))
        self.run.emit(ev.PredictionChecked(self.run.run_id, n, pred.get("text", ""), actual,
                                            describe_actual(actual)))

    def _page(self, st) -> Page:
        obs = st.obs
        return Page(task=self.task, url=obs.url, title=obs.title, marks=tuple(obs.marks),
                    screenshot=self.run.image(st.n), secrets=frozenset(self.run.executor.secrets))


def _merge(a: Cost, b: Cost) -> Cost:
    cost = None if a.cost is None and b.cost is None else (a.cost or 0.0) + (b.cost or 0.0)
    return Cost(a.calls + b.calls, a.prompt_tokens + b.prompt_tokens,
                a.completion_tokens + b.completion_tokens, cost, a.seconds + b.seconds)


def _scrub_tree(obj, hide: set[str]):
    if not hide:
        return obj
    if isinstance(obj, str):
        return redaction.scrub(obj, hide)
    if isinstance(obj, dict):
        return {k: _scrub_tree(v, hide) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_scrub_tree(v, hide) for v in obj]
    return obj
