"""What a Cockpit run holds that Online-Mind2Web's ``result.json`` cannot, both ways (walkthrough 10, B1).

Online-Mind2Web's ``action_history`` is what was done on the site, and its judges read it so: an action
refused at the gate, dropped by a take-over, or that failed (the executor could not run it: no such
element, a changed target) was never done, so the export leaves it out of ``action_history`` and
``thoughts`` (and screenshot k stays the page action k was taken on). So that Cockpit's own import shows
what happened, the export keeps those steps in an extra key, :data:`KEY`, which other tools ignore::

    "cockpit_not_executed": [{"step": 3, "after": 2, "action": "Click [1]", "actor": "agent",
                              "status": "refused", "thought": "...", "outcome": "rejected: ...",
                              "error": null, "decision": {...}, "screenshot": "cockpit_not_executed/step3.png"}]

``after`` is how many actions of ``action_history`` came before it; its page is kept beside ``trajectory/``
(never in it: Online-Mind2Web numbers every image there). A person's step (a take-over) is in
``action_history``, marked `` (human)``: the import of a folder Cockpit wrote reads it back as the person's.
"""
from __future__ import annotations

from pathlib import Path

from cockpit.core.words import plural

KEY = "cockpit_not_executed"
FOLDER = "cockpit_not_executed"
HUMAN = " (human)"
#: A step's statuses that say its action never ran on the site (format errors and the answer have none).
NOT_RUN = ("refused", "error", "changed", "stopped")


def ran(s) -> bool:
    """Whether step `s` (a StepRecord) has an action that was done on the site (the answer is not one)."""
    action = s.action or s.action_text or ""
    return bool(action) and not action.upper().startswith("ANSWER") and s.status not in NOT_RUN


def not_run(s) -> bool:
    """Whether step `s` had an action that never ran (refused, dropped by a take-over, failed)."""
    return bool(s.action or s.action_text) and s.status in NOT_RUN


def entry(s, after: int, shot: str | None) -> dict:
    """The record of step `s`, whose action never ran, after `after` actions of the history."""
    row = {"step": s.step, "after": after, "action": s.action or s.action_text, "actor": s.actor or "agent",
           "status": s.status, "thought": s.thought, "outcome": s.outcome, "error": s.error,
           "decision": s.decision, "screenshot": shot}
    return {k: v for k, v in row.items() if v is not None}


def notes(steps: list) -> list[str]:
    """What the export wrote how, in words (as the WebVoyager export says it)."""
    out = []
    human = [s.step for s in steps if s.actor == "human" and ran(s)]
    if human:
        out.append(f"{plural(len(human), 'step')} taken by a human ({_nums(human)}) written in action_history "
                   f"marked '{HUMAN.strip()}'")
    refused = [s.step for s in steps if not_run(s) and s.status != "error"]
    if refused:
        out.append(f"{plural(len(refused), 'step')} refused at the gate or dropped by a take-over ({_nums(refused)}) "
                   f"left out of action_history: not executed; result.json's {KEY} keeps them for Cockpit")
    failed = [s.step for s in steps if not_run(s) and s.status == "error"]
    if failed:
        out.append(f"{plural(len(failed), 'step')} whose action failed ({_nums(failed)}) left out of "
                   f"action_history: not done on the site; result.json's {KEY} keeps them for Cockpit")
    return out


def _nums(ns: list[int]) -> str:
    return ("step " if len(ns) == 1 else "steps ") + ", ".join(map(str, ns))


def restore(folder: Path, data: dict, steps: list, n_actions: int, usable, make) -> list:
    """The steps of a folder Cockpit exported as they ran: its people's actions theirs again, and the actions
    that never ran put back where they were (`usable(path)`: the screenshot file, or None; `make`: M2WStep).
    `steps` starts with the `n_actions` steps of action_history."""
    if not data.get("cockpit_run"):
        return steps
    for s in steps[:n_actions]:
        if s.action.endswith(HUMAN):
            s.actor, s.action_plain = "human", s.action[:-len(HUMAN)]
    kept = data.get(KEY)
    if not isinstance(kept, list):
        return steps
    out, done = [], 0
    for e in sorted((e for e in kept if isinstance(e, dict) and isinstance(e.get("after"), int)),
                    key=lambda e: e["after"]):
        while done < min(e["after"], n_actions):
            out.append(steps[done])
            done += 1
        name = Path(str(e.get("screenshot") or "").replace("\0", "")).name
        decision = e.get("decision") if isinstance(e.get("decision"), dict) else None
        out.append(make(str(e.get("action") or ""), str(e.get("thought") or ""),
                           usable(folder / FOLDER / name) if name else None, error=str(e.get("error") or ""),
                           actor="human" if e.get("actor") == "human" else "agent",
                           status=e["status"] if e.get("status") in NOT_RUN else "refused", outcome=str(e.get("outcome") or ""),
                           decision=decision, not_run=True))
    return out + steps[done:]
