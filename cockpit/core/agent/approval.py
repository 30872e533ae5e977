"""The approval gate's contract: who decides whether a flagged action runs.

The loop asks an :class:`Approver`; it never asks the model. Policies say
when to ask; approvers say how (a fixed answer, a terminal prompt, the
window's panel). A denied action is never executed.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Protocol, TextIO

from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.errors import ActionParseError, CockpitError
from cockpit.core.page.marks import Mark
from cockpit.core.safety.risk import Risk, rule_raised

#: When to ask: before irreversible actions (default), before every action, never.
#: An irreversible action runs without a human's yes only where the user chose so
#: explicitly: policy "never" (``--ask-before never``, "never" in the window), an
#: approver that always allows (``--approval allow``), or a site rule of theirs that
#: lowers the level. Every other combination asks, and no one to ask means no
#: (TerminalApprover without a terminal, PolicyApprover(False), the default).
#: tests/faults/test_hostile.py holds this table to these words.
POLICIES = ("irreversible", "every", "never")


def ended_at_gate(status: str, decisions: list[dict], last_step: int | None = None) -> str:
    """A run's final status given its gate decisions (Store.decisions, oldest first): an answered run whose
    last irreversible action asked about was refused is ``refused`` ("stopped at the gate"), not answered;
    one approved after an earlier refusal went through, and stays answered. A run out of steps whose last
    step (`last_step`) was that refusal was stopped at the gate too, not by its budget."""
    # an action dropped because a person took the browser over was not refused at the gate (gate.TOOK_OVER)
    irreversible = [d for d in decisions if d.get("risk") == "irreversible" and d.get("policy") != "take-over"]
    refused = bool(irreversible) and not irreversible[-1]["approved"]
    if status == "max_steps" and refused and last_step is not None and irreversible[-1].get("step") == last_step:
        return "refused"
    return "refused" if status == "answered" and refused else status


def needs_approval(policy: str, risk: Risk, action: Action) -> bool:
    if policy == "never":
        return False
    if policy == "every":
        return action.kind != "answer"
    return risk.level == "irreversible"


@dataclass
class ApprovalRequest:
    run_id: str
    step: int
    action: Action
    mark: Mark | None
    risk: Risk
    policy: str
    url: str = ""
    thought: str = ""
    screenshot_path: str = ""
    shown: str = ""  # the action as displayed: text typed into a secret field masked ("" = str(action))
    boxes: int | None = None  # how many numbered boxes the screenshot shows, [1] to [boxes] (None: not known)
    # from the look-ahead step hook (cockpit.core.agent.hooks.lookahead), when preview or planning is on
    prediction: str = ""  # what the world model expects the action to change ("" = no preview)
    candidates: tuple = ()  # planning mode: PlanResult candidate dicts (see events.PlanMade)
    chosen: int | None = None  # the candidate index the planner chose (= `action`)
    page: bytes | None = None  # the page as it is asked about, when no stored step shows it (a replay's): a PNG
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])  # unique per question asked

    @property
    def key(self) -> tuple[str, str]:
        """(run id, request id): an answer must name it to reach this request (see ApprovalDesk)."""
        return (self.run_id, self.request_id)

    @property
    def display(self) -> str:
        """What to show a human: the action with any secret masked."""
        return self.shown or str(self.action)


@dataclass
class Decision:
    approved: bool
    by: str  # "human:<name>", "policy:deny", "policy:allow", "policy:<why>"
    message: str = ""  # told to the agent when refused
    action: Action | None = None  # an edited action to run instead
    candidate: int | None = None  # planning mode: run this candidate (its index) instead
    decided_at: float = field(default_factory=time.time)
    key: tuple[str, str] | None = None  # the request answered: ApprovalRequest.key (see ApprovalDesk)


def off_screenshot(action: Action, boxes: int | None) -> str:
    """Why an edited action cannot run: the box it names is not on the screenshot ("" when it is, when it names
    none, or when the number of boxes is not known)."""
    if boxes is None or action.pixel or action.target is None or 0 < action.target <= boxes:
        return ""
    there = f"the boxes are [1] to [{boxes}]" if boxes > 1 else "the only box is [1]" if boxes else "there are none"
    return f"there is no box [{action.target}] on this screenshot: {there}"


#: Who "decided" a gate the run was stopped at before anyone answered (walkthrough 5: shown as "refused by policy").
STOPPED_BY = "policy:stopped"


def decided(decision: dict) -> str:
    """A stored decision in words: "approved by ada", "refused by policy", "stopped before anyone decided"."""
    if decision.get("by") == STOPPED_BY:
        return "stopped before anyone decided"
    return f"{verdict(decision)} by {decider(decision.get('by'))}"


def verdict(decision: dict) -> str:
    """A stored decision's verdict: edited (a person approved an action of their own instead), approved;
    rejected (by a person); refused (by the run's policy or a site rule)."""
    if decision.get("approved"):
        return "edited" if decision.get("edited_action") else "approved"
    return "rejected" if str(decision.get("by") or "").startswith("human:") else "refused"


def decider(by) -> str:
    """Who decided, in a word or two: "ada" (a person), "policy" (the run's: nobody was asked), "site rule"."""
    kind, _, name = str(by or "?").partition(":")
    return {"human": name or "a person", "policy": "policy", "rule": "site rule"}.get(kind, str(by or "?"))


def refused_outcome(decision: Decision) -> str:
    """A refused step's outcome, naming who refused: ``refused by ada: not today``, ``refused by policy: ...``,
    ``refused by site rule: site rule for shop.example: orders are final ...``."""
    if decision.by == STOPPED_BY:
        return "stopped before anyone decided"
    return f"refused by {decider(decision.by)}: {decision.message or 'no message'}"


def vetted(safety_checks, decision: Decision) -> Decision:
    """A policy cannot acknowledge a computer-use model's safety checks: its approval becomes a refusal
    (only a person, ``by`` ``human:<name>``, may approve an action that carries them)."""
    if decision.approved and safety_checks and not str(decision.by).startswith("human:"):
        return dataclasses.replace(decision, approved=False, by="policy:safety-checks", message=(
            "the model's safety checks need a person's acknowledgement, and no one was asked in this run"))
    return decision


def by_site_rule(decision: Decision, risk: Risk, policy: str) -> Decision:
    """A refusal nobody made in person, of an action the gate asked about only because a site rule raised it to
    irreversible, is that rule's: ``by`` becomes ``rule:<domain>`` and the message starts with the rule."""
    raised = rule_raised(risk)
    if decision.approved or str(decision.by).startswith("human:") or policy != "irreversible" or raised is None:
        return decision
    domain = (risk.rule or "").split(" ", 1)[0]
    return dataclasses.replace(decision, by=f"rule:{domain}",
                               message=f"{raised}; {decision.message}" if decision.message else raised)


class Approver(Protocol):
    def decide(self, request: ApprovalRequest, cancel: threading.Event) -> Decision:
        """Block until decided; return a deny when `cancel` is set."""


class PolicyApprover:
    """Always the same answer: `--approval allow` or `--approval deny`."""

    def __init__(self, allow: bool, message: str = ""):
        self.allow = allow
        self.message = message or ("" if allow else "actions of this kind are not allowed in this run")

    def decide(self, request, cancel) -> Decision:
        return Decision(self.allow, f"policy:{'allow' if self.allow else 'deny'}",
                        "" if self.allow else self.message)


class ScriptedApprover:
    """Answers from a list, for tests and replays; records what it was asked."""

    def __init__(self, decisions: list[Decision]):
        self.decisions = list(decisions)
        self.requests: list[ApprovalRequest] = []

    def decide(self, request, cancel) -> Decision:
        self.requests.append(request)
        if not self.decisions:
            return Decision(False, "policy:script-exhausted", "no scripted decision left")
        return self.decisions.pop(0)


class TerminalApprover:
    """`--approval ask`: a prompt on the terminal. With no terminal, every ask is a deny."""

    def __init__(self, user: str = "terminal", stdin: TextIO | None = None, stdout: TextIO | None = None):
        self.user = user
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stderr

    #: One question at a time on the terminal, across every TerminalApprover: a batch makes one per run.
    _lock = threading.Lock()

    def decide(self, request, cancel) -> Decision:
        if not _interactive(self.stdin):
            return Decision(False, "policy:no-terminal",
                            "no one was there to approve this action (no terminal); it was not executed")
        with self._lock:
            return self._ask(request)

    def _ask(self, r: ApprovalRequest) -> Decision:
        out = self.stdout
        target = f" on [{r.mark.id}] {r.mark.label[:60]!r}" if r.mark else ""
        print(f"\n[{r.run_id} step {r.step}] the agent wants to: {r.display}{target}", file=out)
        print(f"  risk: {r.risk.level}", file=out)
        for ev in r.risk.evidence:
            print(f"   - {ev}", file=out)
        if r.prediction:
            print(f"  if you approve: {r.prediction}", file=out)
        picks = _print_candidates(r, out)
        while True:
            print("  approve? [y]es / [n]o / [e]dit" + (" / candidate number" if picks else "") + ": ",
                  end="", file=out, flush=True)
            answer = self.stdin.readline()
            if not answer:
                return Decision(False, f"human:{self.user}", "input closed; not approved")
            answer = answer.strip().lower()
            if answer.isdigit() and int(answer) in picks:
                return Decision(True, f"human:{self.user}", candidate=int(answer))
            if answer in ("y", "yes"):
                return Decision(True, f"human:{self.user}")
            if answer in ("n", "no"):
                print("  message to the agent (optional): ", end="", file=out, flush=True)
                return Decision(False, f"human:{self.user}", self.stdin.readline().strip())
            if answer in ("e", "edit"):
                edited = self._edit(out, r.boxes)
                if edited is not None:
                    return Decision(True, f"human:{self.user}", action=edited)


    def _edit(self, out, boxes: int | None) -> Action | None:
        print("  action to run instead: ", end="", file=out, flush=True)
        try:
            action = parse_action(self.stdin.readline())
        except ActionParseError as e:
            print(f"  {e}", file=out)
            return None
        if why := off_screenshot(action, boxes):
            print(f"  {why}", file=out)
            return None
        return action


class ApprovalDesk:
    """The pending questions of every live run; each answer reaches only the request it names.

    Several runs can wait at once (a batch's workers, the window). Each question
    is filed under its :attr:`ApprovalRequest.key`, (run id, request id); an
    answer carries that key (:attr:`Decision.key`). An answer for another run,
    or for a question no longer pending (its run was stopped, or it asked again
    after the page changed), reaches no one and :meth:`answer` says False.
    The desk is an :class:`Approver`: give it to every run that should be asked.
    """

    def __init__(self, on_request=None, on_close=None):
        self.on_request = on_request  # called with each new ApprovalRequest (e.g. show it)
        self.on_close = on_close  # called with the request once it is answered or abandoned
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, str], tuple[ApprovalRequest, concurrent.futures.Future]] = {}

    def decide(self, request: ApprovalRequest, cancel: threading.Event) -> Decision:
        fut: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            self._pending[request.key] = (request, fut)
        try:
            if self.on_request is not None:
                self.on_request(request)
            while True:
                try:
                    return fut.result(timeout=0.1)
                except concurrent.futures.TimeoutError:
                    if cancel.is_set():
                        return Decision(False, STOPPED_BY, "the run was stopped before anyone decided")
        finally:
            with self._lock:
                self._pending.pop(request.key, None)
            if self.on_close is not None:
                self.on_close(request)

    def pending(self, run_id: str | None = None) -> list[ApprovalRequest]:
        """The questions waiting now (of one run, with `run_id`), oldest first."""
        with self._lock:
            return [r for r, _ in self._pending.values() if run_id is None or r.run_id == run_id]

    def answer(self, decision: Decision, key: tuple[str, str] | None = None) -> bool:
        """Deliver `decision` to the request `key` (default: decision.key); False if no such request waits."""
        key = tuple(key or decision.key or ())
        with self._lock:
            entry = self._pending.get(key)
            if entry is None or entry[1].done():
                return False
            entry[1].set_result(decision if decision.key == key else _keyed(decision, key))
            return True


def _keyed(decision: Decision, key: tuple) -> Decision:
    return dataclasses.replace(decision, key=tuple(key))


def _print_candidates(r: ApprovalRequest, out) -> set[int]:
    """Planning mode: the other candidates the human may pick; returns their numbers."""
    picks = set()
    for c in r.candidates:
        if not c.get("kept") or c.get("index") == r.chosen:
            continue
        picks.add(c["index"])
        score = f"score {c['mean']:.2f}" if c.get("mean") is not None else "not scored"
        print(f"  candidate {c['index']}: {c['action']} ({c.get('risk') or '?'}, {score})", file=out)
    return picks


def _interactive(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):
        return False


def approver_for(mode: str, user: str = "terminal") -> Approver:
    if mode == "allow":
        return PolicyApprover(True)
    if mode == "deny":
        return PolicyApprover(False)
    if mode == "ask":
        return TerminalApprover(user)
    raise CockpitError(f"unknown approval mode {mode!r}; use ask, deny or allow")
