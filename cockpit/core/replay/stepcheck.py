"""Checking a recorded step against the page it is replayed on, before it runs: is it the same page (its
address, its marks' similarity), was the step's text a secret (never replayed), which element is the
recorded target now (or what a recorded point hits now), and does the approval gate let it run.
Each check reports a divergence through the replay's `diverged` callback, which raises."""
from __future__ import annotations

import threading

from selenium.common.exceptions import WebDriverException

from cockpit.core.actions.grammar import Action
from cockpit.core.agent.approval import ApprovalRequest, Approver
from cockpit.core.agent.control import Stopped
from cockpit.core.agent.execute import Executor
from cockpit.core.agent.pointer import describe_hit
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import ActionError, CockpitError
from cockpit.core.page.marks import Mark
from cockpit.core.page.match import does_the_same, match_mark, same_url, similarity
from cockpit.core.page.observation import Observation
from cockpit.core.safety import target
from cockpit.core.safety.binding import Binding
from cockpit.core.safety.redaction import SECRET
from cockpit.core.safety.risk import Risk
from cockpit.core.safety.target import PointTarget, Target, again


def compare(expected_url: str, recorded: list[Mark] | None, obs: Observation, check: bool,
             threshold: float, n: int, diverged) -> float | None:
    if not check:
        return None
    sim = similarity(recorded, obs.marks) if recorded is not None else None
    if expected_url and not same_url(expected_url, obs.url):
        diverged(step=n, reason="url", expected_url=expected_url, actual_url=obs.url, similarity=sim)
    if sim is not None and sim < threshold:
        diverged(step=n, reason="marks", expected_url=expected_url, actual_url=obs.url, similarity=sim)
    return sim


def check_not_secret(action: Action, recorded: list[Mark] | None, row: dict, session: BrowserSession,
                      n: int, diverged) -> None:
    """Diverged (reason ``secret``) when the recorded step typed into a secret field: its text is the
    redaction placeholder, not what was typed, and must never be typed into the page."""
    if action.kind != "type":
        return
    mark = None
    if recorded is not None and action.target is not None:
        mark = next((m for m in recorded if m.id == action.target), None)
    if not (mark is not None and mark.secret) and SECRET not in action.text:
        return
    diverged(step=n, reason="secret", expected_url=row.get("url") or "", actual_url=current_url(session),
             action=row["action"], detail=field_name(mark, action))


def field_name(mark: Mark | None, action: Action) -> str:
    """How a recorded field is named in a message: its label (or kind) and its mark."""
    if mark is None:
        return f"[{action.target}]"
    label = (mark.aria_label or mark.placeholder or mark.text)[:60]
    if not label:
        label = "password" if mark.type == "password" else f"<{mark.tag}>"
    return f"{label} [{mark.id}]"


def map_target(action: Action, recorded: list[Mark] | None, obs: Observation, n: int, diverged):
    """(action with the current id, current mark, recorded mark) for an action with a target."""
    if action.target is None:
        return action, None, None
    old = None
    if recorded is not None:
        old = next((m for m in recorded if m.id == action.target), None)
        if old is None and 0 < action.target <= len(recorded):
            old = recorded[action.target - 1]
    if old is None:  # nothing recorded to match: the id as it was
        cur = obs.marks[action.target - 1] if 0 < action.target <= len(obs.marks) else None
        return action, cur, None
    cur = match_mark(old, obs.marks)
    if cur is None:
        label = old.label[:60]
        diverged(step=n, reason="target", expected_url="", actual_url=obs.url, action=str(action),
                 detail=f"[{old.id}] <{old.tag}>" + (f' "{label}"' if label else "") + leads(old))
    return Action(action.kind, cur.id, action.text), cur, old


#: What a replay served from its recording says at the gate of an irreversible step instead of asking.
SERVED_NOTE = "irreversible, replayed from the recording: nothing was sent to the site"


def irreversible(action: Action, row: dict, aim: Target, obs: Observation, press_enter: bool, rules) -> bool:
    """Whether the step is irreversible now on its target `aim`, or was when recorded."""
    risk = aim.rated(action, obs.marks, obs.url, rules, press_enter=press_enter)
    return risk.level == "irreversible" or row.get("risk") == "irreversible"


def gate(action: Action, row: dict, aim: Target, obs: Observation, press_enter: bool, n: int,
          policy: str, rules, approver: Approver | None, stop: threading.Event | None, label: str,
          diverged) -> tuple[Action, Binding | None]:
    """The action to replay after the approval gate, and what was approved (None: no approval was needed);
    Diverged when it is refused."""
    if policy == "never":
        return action, None
    risk = aim.rated(action, obs.marks, obs.url, rules, press_enter=press_enter)
    if risk.level != "irreversible" and row.get("risk") != "irreversible":
        return action, None
    if risk.level != "irreversible":
        risk = Risk("irreversible", ("the recorded step was classed irreversible",) + tuple(risk.evidence))
    why = risk.evidence[0] if risk.evidence else "irreversible"
    if approver is None:
        diverged(step=n, reason="refused", expected_url=row.get("url") or "", actual_url=obs.url,
                 action=str(action), detail=f"{why}; no approver was given for the replay")
    request = ApprovalRequest(label, n, action, aim.mark, risk, "irreversible", obs.url,
                              f"Replaying step {n} of run {row.get('run_id') or label}, which did this before.",
                              boxes=len(obs.marks), page=obs.screenshot)
    decision = approver.decide(request, stop or threading.Event())
    if stop is not None and stop.is_set():
        raise Stopped()
    if not decision.approved:
        diverged(step=n, reason="refused", expected_url=row.get("url") or "", actual_url=obs.url,
                 action=str(action), detail=f"{why}; {decision.by}" + (f": {decision.message}"
                                                                      if decision.message else ""))
    if decision.action is not None:
        action, aim = decision.action, again(aim, decision.action, obs.marks)
    return action, aim.binding(action)


def aim(executor: Executor, action: Action, row: dict, recorded: list[Mark] | None, obs: Observation, n: int,
        diverged) -> Target:
    """The target of a recorded step's `action` (its target mapped to the page) on the page now: its box,
    or what a recorded point hits now (:func:`check_point`; `recorded`: the step's recorded marks)."""
    def at_point(a: Action) -> PointTarget | None:
        if a.point is None:
            return None
        return PointTarget(check_point(executor, a, row, recorded, obs, n, diverged))
    return target.of(action, obs.marks, at_point)


def check_point(executor: Executor, action: Action, row: dict, recorded: list[Mark] | None, obs: Observation,
                n: int, diverged) -> Mark | None:
    """The element a recorded pixel action's point hits now; Diverged when it is not the one the run hit
    (its tag, text or link differ, or, where the recorded marks hold it, its link or form leads elsewhere:
    :func:`~cockpit.core.page.match.does_the_same`), so nothing is done at a point that now means something
    else."""
    try:
        now = executor.pointer.resolve_point(*action.point, obs.marks)
    except ActionError as e:
        diverged(step=n, reason="target", expected_url="", actual_url=obs.url, action=str(action), detail=str(e))
    was = ((row.get("pointer") or {}).get("resolved")) or None
    if was is None:
        return now
    seen = (was.get("tag") or "", (was.get("text") or "")[:60], was.get("href") or "")
    hit = next((m for m in recorded or () if was.get("mark") is not None and m.id == was["mark"]), None)
    if now is None or (now.tag, now.label[:60], now.href) != seen or hit is not None and not does_the_same(hit, now):
        diverged(step=n, reason="target", expected_url="", actual_url=obs.url, action=str(action),
                 detail=f"the point {action.point} now hits {describe_hit(now)}{leads(now)}; the run hit "
                        f"{was.get('desc')}{leads(hit)}")
    return now


def leads(mark: Mark | None) -> str:
    """Where an element leads, said after its name: ", submitting a POST form to /delete/102", ", a link to ..."."""
    if mark is None:
        return ""
    if mark.form_action:
        return f", submitting a {(mark.form_method or 'GET').upper()} form to {mark.form_action[:120]}"
    return f", a link to {mark.href[:120]}" if mark.href else ""


def current_url(session: BrowserSession) -> str:
    try:
        return session.url
    except (CockpitError, WebDriverException):
        return ""
