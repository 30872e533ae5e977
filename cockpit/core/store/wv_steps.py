"""Cockpit's steps in a WebVoyager run folder: the conversation written step by step, and the side file.

WebVoyager pairs the k-th assistant message of ``interact_messages.json`` with
``screenshot{k}.png``. The agent's own conversation holds only what the model
said, so writing it as it stood at the end (as the export once did) drops every
human take-over step and pairs each later reply with the wrong screenshot.
Here the messages are written from the steps, one assistant message per step:

* an agent step: the user turns of its own request (its observation, with the
  feedback on the step before), then its reply as recorded;
* a human step (take-over): a user turn saying a person acted on this page,
  then the action the person took, written as a reply (``Action: Click [3]``);
* a step the gate refused: its reply, as the model wrote it (the refusal is in
  the next user turn, as the model read it, and in the side file).

The side file :data:`SIDE_FILE` (JSON, which WebVoyager's tools ignore) keeps
what the format cannot: who acted at each step, its status and the gate's
decision, and for a pixel-grounded run the dialect, coordinate space and frame
to read its replies with. ``notes`` says, in words, what was written how.
"""
from __future__ import annotations

import copy
import json

from cockpit.core.actions import coords, dialects
from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.errors import ActionParseError
from cockpit.core.llm import prompt
from cockpit.core.store import webvoyager
from cockpit.core.words import plural

SIDE_FILE = "cockpit_steps.json"
SIDE_VERSION = 1
HUMAN_TURN = ("Observation: the human supervisor took over the browser and acted on this page. "
              "The next reply is the action the person took, not the model's.")
HUMAN_THOUGHT = "(a human supervisor acted at this step, not the model)"


def conversation(run: dict, steps: list[dict]) -> list[dict]:
    """interact_messages.json for the run: the system prompt, then per step its user turns and one reply."""
    msgs: list[dict] = []
    for s in steps:
        req = s.get("request")
        if isinstance(req, list) and req and isinstance(req[0], dict) and req[0].get("role") == "system":
            msgs.append(copy.deepcopy(req[0]))
            break
    for s in steps:
        if s.get("actor") == "human":
            msgs.append({"role": "user", "content": [{"type": "text", "text": HUMAN_TURN}, _image()]})
            msgs.append({"role": "assistant", "content": f"Thought: {HUMAN_THOUGHT}\n\nAction: {s['action']}"})
            continue
        msgs += _own_turns(s.get("request"))
        if s.get("reply") is not None:
            msgs.append({"role": "assistant", "content": _reply(s)})
    if not any(m.get("role") == "user" and "Now given a task:" in webvoyager.content_text(m.get("content"))
               for m in msgs):  # a branch: the task was in the conversation it continued
        at = 1 if msgs and msgs[0].get("role") == "system" else 0
        msgs.insert(at, {"role": "user", "content": prompt.task_text(run["task"], run["url"])})
    for m in msgs:
        for part in m["content"] if isinstance(m.get("content"), list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url" and \
                    str((part.get("image_url") or {}).get("url", "")).startswith(prompt.IMAGE_REF):
                part["image_url"]["url"] = webvoyager.PLACEHOLDER
    return msgs


def _image() -> dict:
    return {"type": "image_url", "image_url": {"url": webvoyager.PLACEHOLDER}}


def _own_turns(request) -> list[dict]:
    """The turns a step's request added: those after its last assistant message (the system prompt apart)."""
    if not isinstance(request, list):  # the Responses API: the server keeps the history
        return [{"role": "user", "content": [{"type": "text", "text": "Observation: (the screenshot)"}, _image()]}]
    last = max((i for i, m in enumerate(request) if isinstance(m, dict) and m.get("role") == "assistant"),
               default=-1)
    return [copy.deepcopy(m) for m in request[last + 1:] if isinstance(m, dict) and m.get("role") != "system"]


def _reply(s: dict) -> str:
    reply = s["reply"]
    if s["status"] == "answered" and "Action: ANSWER" not in reply and not _pixel(s):
        # We parse "**action:** answer [x]" too; WebVoyager's judge only finds "Action: ANSWER".
        reply = f"Thought: {s['thought'] or ''}\n\nAction: {s['action']}"
    return reply


def _pixel(s: dict) -> bool:
    return (s.get("pointer") or {}).get("mode") == "pixels"


def side_file(run: dict, steps: list[dict]) -> dict:
    """What the side file holds: per step who acted, its status, action and decision; a pixel step's dialect."""
    out = []
    for s in steps:
        row = {"step": s["step"], "actor": s.get("actor") or "agent", "status": s["status"],
               "action": s.get("action"), "outcome": s.get("outcome"), "error": s.get("error")}
        if s.get("decision"):
            row["decision"] = s["decision"]
        if s.get("pointer"):
            row["pointer"] = s["pointer"]
        row.update({k: s.get(k) for k in KEPT_STEP_FIELDS if s.get(k) not in (None, "", [])})
        out.append({k: v for k, v in row.items() if v is not None})
    return {"version": SIDE_VERSION, "run_id": run["id"], "model": run["model"], "started": run.get("started"),
            "finished": run.get("finished"), "status": run.get("status"), "steps": out, "notes": notes(steps)}


#: How a run ended that the side file gives back on import (WebVoyager's folder only tells an answer from none;
#: a run refused at the gate, whose agent then answered that it stopped, came back "answered").
ENDINGS = ("answered", "refused", "max_steps", "stopped", "failed", "gave_up", "ended")


#: A step's fields the side file keeps that WebVoyager's folder cannot: its addresses, the risk the gate saw,
#: the model's tokens and when it ran; importing the folder gives them back.
KEPT_STEP_FIELDS = ("url", "url_after", "title", "risk", "evidence", "prompt_tokens", "completion_tokens",
                    "cost", "model_seconds", "started", "finished")


def notes(steps: list[dict]) -> list[str]:
    """What WebVoyager's format cannot hold and how it was written instead, in words."""
    out = []
    human = [s["step"] for s in steps if s.get("actor") == "human"]
    if human:
        out.append(f"{plural(len(human), 'step')} taken by a human ({_nums(human)}) written as replies "
                   f"(Thought: {HUMAN_THOUGHT}); {SIDE_FILE} records who acted")
    refused = [s["step"] for s in steps if s["status"] == "refused"]
    if refused:
        out.append(f"{plural(len(refused), 'step')} refused at the gate or dropped by a take-over ({_nums(refused)}) "
                   "written as the model's reply though not executed; why is in the next user turn and in "
                   f"{SIDE_FILE}")
    edited = [s["step"] for s in steps if (s.get("decision") or {}).get("edited_action")]
    if edited:
        out.append(f"{plural(len(edited), 'step')} edited at the gate ({_nums(edited)}) written as the model's "
                   f"reply; the action that ran instead is in {SIDE_FILE} and agent.log")
    pixel = sorted({(s.get("pointer") or {}).get("dialect") for s in steps if _pixel(s)} - {None, "human"})
    if pixel:
        out.append(f"pixel-grounded replies ({', '.join(pixel)}) written in the model's own dialect and "
                   f"coordinates, not WebVoyager's Click [N]; {SIDE_FILE} records the dialect, space and "
                   "frame to read them with (WebVoyager's own tools cannot)")
    return out


def _nums(ns: list[int]) -> str:
    return ("step " if len(ns) == 1 else "steps ") + ", ".join(map(str, ns))


def read_side(folder) -> dict | None:
    """The side file of a folder Cockpit exported, or None (absent, unreadable or not ours)."""
    try:
        data = json.loads((folder / SIDE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        return None
    return data


def side_steps(side: dict | None) -> dict[int, dict]:
    return {s["step"]: s for s in (side or {}).get("steps", []) if isinstance(s, dict) and isinstance(s.get("step"), int)}


def read_action(reply_action: str, reply: str, side: dict | None) -> tuple[Action | None, dict | None]:
    """A step's action read back: with the dialect the side file names for a pixel step (its point converted
    from the model's space to the page's by the recorded frame), else with Cockpit's grammar. (action, pointer)."""
    pointer = (side or {}).get("pointer")
    dialect = (pointer or {}).get("dialect")
    if side and side.get("actor") == "human":
        return _grammar(side.get("action") or reply_action), pointer
    if isinstance(pointer, dict) and pointer.get("mode") == "pixels" and dialect in dialects.DIALECTS:
        dp = dialects.parse(dialect, split_recorded(reply))
        if dp.action is None:
            return None, pointer
        try:
            return coords.place(dp.action, pointer.get("space") or "pixels", coords.Frame.from_dict(pointer.get("frame"))), pointer
        except (coords.PointOutside, ValueError, TypeError):
            return None, pointer
    return _grammar(reply_action), None


def edited_action(side: dict | None) -> Action | None:
    """The action a person edited at the gate and that ran instead of the model's (None: no edit)."""
    decision = (side or {}).get("decision") or {}
    return _grammar(side.get("action")) if isinstance(decision, dict) and decision.get("edited_action") else None


def answer_of(action: str | None) -> str | None:
    """The answer of a recorded ``ANSWER; ...`` action, else None."""
    a = _grammar(action)
    return a.text if a is not None and a.kind == "answer" else None


def _grammar(text: str | None) -> Action | None:
    try:
        return parse_action(text) if text else None
    except ActionParseError:
        return None


def split_recorded(reply: str) -> dialects.Reply:
    """A pixel reply as recorded (its text, then its tool calls or output items as a JSON line) as a Reply."""
    text, calls, output = reply, [], []
    head, _, last = reply.rpartition("\n")
    for candidate, rest in ((last, head), (reply, "")):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict) and ("tool_calls" in data or "output" in data):
            calls, output, text = data.get("tool_calls") or [], data.get("output") or [], rest
            break
    return dialects.Reply(text=text, tool_calls=calls, output=output)
