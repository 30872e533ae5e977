"""Replay a recorded run in a live browser.

:func:`replay` walks a recorded run again in a browser session: it opens the
run's start URL and re-executes the recorded actions one by one, checking
before each that the page still looks like the one the run saw (same URL,
marks alike, see :func:`cockpit.core.page.match.similarity`). Where it does not, it stops with
:class:`Diverged`, whose :class:`Divergence` says at which step and how.
With ``upto=None`` it replays the whole run ("watch it again on today's
site"), at the recorded pace scaled by ``speed`` if asked. Branch
(:mod:`cockpit.core.replay.branch`) and resume by replay
(:mod:`cockpit.core.replay.resume`) replay a run's first steps with it.

What it must not do: call a model (the recorded replies are history, not
questions), write anything into the replayed run (it is only read),
re-execute a step that is, or was, irreversible without an approver's yes, or
import Qt.

Which recorded steps are replayed: agent and human steps whose action was
executed (status ``ok``). Format errors, refused and failed actions changed
nothing and are skipped; so is ANSWER. A step that typed into a secret field
(a password or card field) cannot be replayed: its text was never stored
(the record says ``(secret)``, see :mod:`cockpit.core.safety.redaction`), so
the replay stops there with :class:`Diverged` (reason ``secret``) before it
types anything.

A recorded action names a mark id of the page the run saw. Before executing
it, the recorded target (from the step's marks.json) is looked up on the
current page: the mark with the same tag and label (and, failing that, the
same link address) nearest to the recorded box. Its id is used, and
:attr:`StepReplay.id_changed` reports when it is not the recorded one.

Local pages: a run started on a local file (``cockpit run --url page.html``)
and a demo run have their folder (the demo shop) served again at the recorded
port while they replay (:func:`cockpit.core.replay.localfiles.served_again`).

Limits: a step that typed into a secret field cannot be replayed (see above). Pages
that differ on every visit (ads, dates, session ids in the URL) diverge;
lower ``min_similarity`` or replay with ``check=False``.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from selenium.common.exceptions import WebDriverException

from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.agent.control import Stopped
from cockpit.core.agent.execute import Executor
from cockpit.core.agent.start import RunContext
from cockpit.core.browser.session import BrowserSession
from cockpit.core.errors import ActionError, ActionParseError, CockpitError, short_message
from cockpit.core.page.match import same_url
from cockpit.core.page.observation import Observation, observe
from cockpit.core.replay import stepcheck
from cockpit.core.replay.localfiles import with_run_files
from cockpit.core.replay.recorded import ServedRun
from cockpit.core.safety.runlimits import recorded_policy
from cockpit.core.store import Store
from cockpit.core.store.records import agent_settings
from cockpit.core.store.stepmarks import step_marks

log = logging.getLogger(__name__)

#: Below this marks similarity a page "no longer matches" the recorded one.
MIN_SIMILARITY = 0.6
#: Longest pause taken from the recorded pace (a run paused for an hour replays in seconds).
MAX_GAP = 30.0


# ---------------------------------------------------------------- results and errors

@dataclass
class Divergence:
    """Where and how a replay stopped matching the recorded run.

    reason: ``load`` (the start page did not open), ``url`` / ``marks`` (the
    page before the step is another one), ``after`` (the last action led
    elsewhere), ``target`` (the element the step acted on is gone),
    ``action`` (the action failed), ``refused`` (an irreversible step was
    not approved for replay), ``secret`` (the step typed into a secret field,
    whose text was never stored; `detail` names the field).
    """
    step: int
    reason: str
    expected_url: str
    actual_url: str
    similarity: float | None = None
    threshold: float = MIN_SIMILARITY
    action: str = ""
    detail: str = ""

    @property
    def message(self) -> str:
        n, r = self.step, self.reason
        if r == "load":
            return f"step {n}: the start page {self.expected_url} could not be opened ({self.detail})"
        if r in ("url", "marks"):
            if self.similarity is None:
                sim = "no recorded marks to compare"
            else:
                sim = f"marks similarity {self.similarity:.2f}"
                if self.similarity < self.threshold:
                    sim += f" < {self.threshold:g}"
            return (f"step {n}: the page no longer matches: expected {self.expected_url}, "
                    f"got {self.actual_url} ({sim})")
        if r == "after":
            return f"step {n}: after {self.action} the page is {self.actual_url}, expected {self.expected_url}"
        if r == "target":
            return (f"step {n}: the element {self.action} acted on, {self.detail}, "
                    f"is no longer on the page {self.actual_url}")
        if r == "refused":
            return f"step {n}: replaying {self.action} was not approved ({self.detail})"
        if r == "secret":
            return (f"step {n} typed into a secret field ({self.detail}); text typed into secret fields is "
                    f"never stored, so it cannot be replayed: branch at step {n} or earlier, or resume the run "
                    "without replaying its steps")
        return f"step {n}: replaying {self.action} at {self.actual_url} failed: {self.detail}"


class Diverged(CockpitError):
    """The replay could not reproduce the recorded run; `divergence` says where,
    `replayed` holds the steps replayed before it."""

    def __init__(self, divergence: Divergence, replayed: list | None = None):
        super().__init__(divergence.message)
        self.divergence = divergence
        self.replayed = list(replayed or [])


@dataclass
class StepReplay:
    """One recorded step replayed (or, with `action` empty, the final check of the page at `upto`)."""
    step: int  # the recorded step's number
    actor: str  # agent | human
    recorded_action: str  # as recorded, with the recorded mark id
    action: str  # as executed, with the current mark id
    url: str  # where the step ran now
    expected_url: str  # where it ran in the recorded run
    similarity: float | None  # marks similarity with the recorded page (None: not checked)
    target_from: int | None = None
    target_to: int | None = None
    outcome: str = ""
    url_after: str = ""
    seconds: float = 0.0
    observation: Observation | None = field(default=None, repr=False)  # the page before the action
    missing: list[str] = field(default_factory=list)  # as recorded: requests the recording could not answer
    note: str = ""  # as recorded: what the gate said instead of asking

    @property
    def id_changed(self) -> bool:
        return self.target_from is not None and self.target_to != self.target_from

    @property
    def is_check(self) -> bool:
        return not self.action

    def describe(self) -> str:
        """One line for a terminal: step, action (with a changed id), similarity, outcome."""
        sim = "not checked" if self.similarity is None else f"similarity {self.similarity:.2f}"
        if self.is_check:
            return f"step {self.step}  page checked at {self.url}  ({sim})"
        what = self.recorded_action
        if self.id_changed:
            what += f"  (element now [{self.target_to}])"
        actor = " [human]" if self.actor == "human" else ""
        line = f"step {self.step}{actor}  {what}  ({sim})  -> {self.outcome}"
        if self.note:
            line += f"  [{self.note}]"
        if self.missing:
            line += f"  ({len(self.missing)} not in the recording: {', '.join(self.missing[:3])}" + \
                    (", ..." if len(self.missing) > 3 else "") + ")"
        return line


# ---------------------------------------------------------------- replay

def replayable(row: dict) -> Action | None:
    """The action a recorded step executed, or None when it changed nothing worth replaying."""
    if row.get("status") != "ok" or not row.get("action"):
        return None
    try:
        action = parse_action(row["action"])
    except ActionParseError:
        return None
    return None if action.kind == "answer" else action


def check_step(store: Store, run_id: str, step: int | None, *, allow_end: bool = True) -> list[dict]:
    """The run's steps after checking that `step` can be replayed up to (or branched from).

    Valid: 1..n (a recorded step), n+1 (after the last step, unless it
    answered) when `allow_end`, and None (the whole run). CockpitError otherwise.
    """
    rows = store.steps(run_id, with_request=False)
    if step is None:
        return rows
    last = rows[-1]["step"] if rows else 0
    if step < 1:
        raise CockpitError(f"step {step} is not a step number (steps start at 1)")
    if step <= last:
        return rows
    answered = bool(rows) and rows[-1].get("status") == "answered"
    if step == last + 1 and allow_end and not answered:
        return rows
    if not rows:
        raise CockpitError(f"run {run_id} has no recorded steps; only step 1 can be branched from")
    hint = f"1 to {last}" + ("" if answered or not allow_end else f", or {last + 1} to go on after the last step")
    raise CockpitError(f"run {run_id} has no step {step} (steps {hint})")


@dataclass(frozen=True)
class ReplayOptions:
    """How to replay: pace, checks and the approval gate.

    Pace: `speed` None (or 0) replays as fast as the pages settle; a number
    follows the recorded pace (time between the steps' starts, capped at
    MAX_GAP) divided by `speed`; `delay` is a minimum pause between steps.
    `check`: compare each page with the recorded one (URL and marks similarity
    >= `min_similarity`). A step that is, or was, irreversible runs only when
    the context's approver says yes (`policy` "never" skips the gate; `rules`
    are the site risk rules). `run_label` names the run in approval requests
    (default: the replayed run's id). `recorded`: serve the browser from the
    run's web archive instead of the network (:mod:`cockpit.core.replay.recorded`):
    irreversible steps then run without asking (nothing reaches the site), and
    a step that typed a secret types the placeholder, answered from the recording.
    """
    speed: float | None = None
    delay: float = 0.0
    check: bool = True
    min_similarity: float = MIN_SIMILARITY
    policy: str = "irreversible"
    rules: tuple | list = ()
    run_label: str = ""
    recorded: bool = False


@with_run_files
def replay(ctx: RunContext, run_id: str, upto: int | None = None,
           opts: ReplayOptions = ReplayOptions(), served: ServedRun | None = None) -> list[StepReplay]:
    """Replay run `run_id`'s executed steps before `upto` (all of them when None) in `ctx.session`.

    Opens the start URL, then for each replayable step: observe, compare with
    the recorded page (see :class:`ReplayOptions`), map the target to the
    current page, execute. After the last step the page is checked against the
    recorded step `upto` (when it exists) or, for a whole run, the last step's
    URL after acting. The context's stop event ends the replay between steps
    with :class:`~cockpit.core.agent.control.Stopped`; `ctx.on_replay(step, info)`
    is called after each step and after the final check; the same StepReplay
    objects are returned. Raises Diverged where the run cannot be reproduced.
    With `opts.recorded` the session is served from the run's recording for the
    replay (or by `served`, which the caller opened and closes).
    """
    if not 0.0 <= opts.min_similarity <= 1.0:
        raise CockpitError(f"the similarity threshold must be between 0 and 1, not {opts.min_similarity:g}")
    if served is None and opts.recorded:
        with ServedRun.open(ctx.session, ctx.store, run_id) as own:
            return replay(ctx, run_id, upto, opts, own)
    session, store, stop = ctx.session, ctx.store, ctx.control.stop_event
    run = store.run(run_id)
    rows = check_step(store, run_id, upto)
    todo = [r for r in rows if upto is None or r["step"] < upto]
    executor = _executor(session, run)
    done: list[StepReplay] = []

    def diverged(**kw):
        kw.setdefault("threshold", opts.min_similarity)
        raise Diverged(Divergence(**kw), done)

    first = next((r["step"] for r in todo if replayable(r)), upto or 1)
    _open_start(session, run["url"], lambda err: diverged(step=first, reason="load", expected_url=run["url"],
                                                          actual_url=stepcheck.current_url(session), detail=err))
    prev_started = prev_t = None
    for row in todo:
        action = replayable(row)
        if action is None:
            continue
        _pause(_gap(row, prev_started, prev_t, opts.speed, opts.delay), stop)
        prev_started, prev_t = row.get("started"), time.monotonic()
        if served is not None:
            served.at_step(row["step"])
        info = _replay_step(ctx, executor, row, action, opts, opts.run_label or run_id, diverged, served)
        if info.id_changed:
            log.info("replay of %s step %d: element [%s] is now [%s]", run_id, info.step, info.target_from,
                     info.target_to)
        done.append(info)
        _notify(ctx.on_replay, info.step, info)
    if opts.check:
        _pause(0.0, stop)
        _check_end(ctx, {r["step"]: r for r in rows}, upto, done, opts.min_similarity, diverged)
    return done


def _executor(session: BrowserSession, run: dict) -> Executor:
    """An executor set up as the run's agent had it, under the run's own navigation limits."""
    agent_cfg = agent_settings(run)
    executor = Executor(session, wait_seconds=float(agent_cfg.get("wait_seconds", 5.0)),
                        dialog_policy=agent_cfg.get("dialog_policy", "dismiss"))
    executor.nav = recorded_policy(run) or executor.nav  # the steps run under the run's own limits
    return executor


def _replay_step(ctx: RunContext, executor: Executor, row: dict, action: Action, opts: ReplayOptions,
                 label: str, diverged, served: ServedRun | None = None) -> StepReplay:
    """Check the page against the recorded step `row`, map its target, pass the gate, and execute it."""
    session, n = ctx.session, row["step"]
    recorded = step_marks(ctx.store, row)
    if served is None:  # as recorded, the placeholder is typed and the recording answers what it submits
        stepcheck.check_not_secret(action, recorded, row, session, n, diverged)
    obs = observe(session, render=False)
    sim = stepcheck.compare(row.get("url") or "", recorded, obs, opts.check, opts.min_similarity, n, diverged)
    todo_action, _, recorded_mark = stepcheck.map_target(action, recorded, obs, n, diverged)
    aim = stepcheck.aim(executor, todo_action, row, recorded, obs, n, diverged)  # a point must still hit what the run hit
    human = row.get("actor") == "human"
    press_enter = not human and "Enter was not pressed" not in (row.get("outcome") or "")
    note = ""
    if served is not None and stepcheck.irreversible(todo_action, row, aim, obs, press_enter, opts.rules):
        approved, note = None, stepcheck.SERVED_NOTE  # nothing reaches the site: not asked again
    else:
        todo_action, approved = stepcheck.gate(todo_action, row, aim, obs, press_enter, n, opts.policy,
                                               opts.rules, ctx.approver, ctx.control.stop_event, label, diverged)
    t0 = time.perf_counter()
    try:  # an approved step runs only on the element the approver saw (safety/binding.py), as in a live run
        out = executor.run(todo_action, obs.marks, press_enter=press_enter, approved=approved,
                           document=obs.document)
    except ActionError as e:
        diverged(step=n, reason="action", expected_url=row.get("url") or "", actual_url=obs.url,
                 similarity=sim, action=row["action"], detail=str(e))
    return StepReplay(n, "human" if human else "agent", row["action"], str(todo_action), obs.url,
                      row.get("url") or "", sim, target_from=recorded_mark.id if recorded_mark else None,
                      target_to=todo_action.target if recorded_mark else None, outcome=out.message,
                      url_after=out.url_after, seconds=time.perf_counter() - t0, observation=obs,
                      missing=served.take_missing() if served is not None else [], note=note)


def _check_end(ctx: RunContext, by_n: dict, upto: int | None, done: list[StepReplay], min_similarity: float,
               diverged) -> None:
    """The page after the replay against the recorded step `upto`, or the last step's address after acting."""
    final = by_n.get(upto) if upto is not None else None
    if final is not None:
        obs = observe(ctx.session, render=False)
        sim = stepcheck.compare(final.get("url") or "", step_marks(ctx.store, final), obs, True, min_similarity,
                       upto, diverged)
        info = StepReplay(upto, final.get("actor") or "agent", final.get("action") or "", "", obs.url,
                          final.get("url") or "", sim, observation=obs)
        done.append(info)
        _notify(ctx.on_replay, upto, info)
    elif done:
        last, expected = done[-1], by_n[done[-1].step].get("url_after") or ""
        if expected and not same_url(last.url_after, expected):
            diverged(step=last.step, reason="after", expected_url=expected, actual_url=last.url_after,
                     action=last.recorded_action)


def _open_start(session: BrowserSession, url: str, failed: Callable[[str], None]) -> None:
    try:
        session.goto(url)
    except WebDriverException as e:
        failed(short_message(e))
        return
    if err := session.load_error():
        failed(err)
    session.ensure_single_tab()


def _gap(row: dict, prev_started: float | None, prev_t: float | None, speed: float | None,
         delay: float) -> float:
    if prev_t is None:
        return 0.0
    want = max(delay, 0.0)
    if speed and speed > 0 and prev_started and row.get("started"):
        want = max(want, min(max(row["started"] - prev_started, 0.0), MAX_GAP) / speed)
    return want - (time.monotonic() - prev_t)


def _pause(seconds: float, stop: threading.Event | None) -> None:
    if stop is not None:
        if seconds > 0:
            stop.wait(seconds)
        if stop.is_set():
            raise Stopped()
    elif seconds > 0:
        time.sleep(seconds)


def _notify(on_step, n: int, info: StepReplay) -> None:
    if on_step is None:
        return
    try:
        on_step(n, info)
    except Exception:  # a broken progress callback must not break the replay
        log.exception("replay progress callback failed")
