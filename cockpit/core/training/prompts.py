"""What the model was asked at a step, and the replies a sample pairs with it.

An agent step's prompt is its stored request, exactly as sent: the system prompt, the task, the
history the run kept (older screenshots already replaced by WebVoyager's note), and image
references (``cockpit:step/k``) that :func:`image_as_sent` turns into the bytes the model got (the
marked screenshot, or the clean one for a pixel model, in the run's image format and width).

A take-over step was never asked: its prompt is the one the agent would have been sent had it gone
on, built the way the agent builds it: the previous agent step's request, that step's reply as the
history kept it, then a turn with the feedback on it and the observation of the take-over step's
page (its screenshot and, for a mark model, its element list), clipped to the run's screenshot
budget. The element list's page note and a downloaded PDF's text are not known there.
"""
from __future__ import annotations

import copy
import json

from cockpit.core.actions import dialects
from cockpit.core.actions.dialects.write import write
from cockpit.core.actions.grammar import Action
from cockpit.core.agent.config import AgentConfig
from cockpit.core.errors import CockpitError
from cockpit.core.llm import pixelprompt, prompt
from cockpit.core.page import images
from cockpit.core.page.marks import element_text
from cockpit.core.store import Store
from cockpit.core.store.records import agent_settings
from cockpit.core.training.supervision import RunFacts, StepFacts, marks_of


class Skip(Exception):
    """A step that cannot become a sample; the message says why (counted on the dataset card)."""


def assistant_of(reply: str | None) -> dict:
    """A reply as recorded (text, then its tool calls as one JSON line) as a chat assistant message."""
    text = reply or ""
    head, _, last = text.rpartition("\n")
    for candidate, rest in ((last, head), (text, "")):
        if candidate.startswith("{"):
            try:
                value = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(value, dict) and "output" in value:
                raise Skip("a Responses API reply (OpenAI computer use) has no chat form")
            if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
                return {"role": "assistant", "content": rest or None, "tool_calls": value["tool_calls"]}
    return {"role": "assistant", "content": text}


def corrected_reply(facts: RunFacts, s: StepFacts, action: Action) -> dict:
    """The corrected action as the run's model writes it, after the model's own thought (none for a take-over)."""
    thought = "" if s.actor == "human" else (s.row.get("thought") or "")
    own = s.row.get("reply") or ""
    as_call = '"tool_calls"' in own or (s.actor == "human" and facts.config.dialect in ("claude", "openai_tools"))
    try:
        r = write(s.dialect if facts.pixel else "marks", thought, action, tool_call=as_call)
    except ValueError as e:
        raise Skip(str(e)) from None
    msg = {"role": "assistant", "content": r.text or (None if r.tool_calls else "")}
    if r.tool_calls:
        msg["tool_calls"] = r.tool_calls
    return msg


def tools_for(facts: RunFacts, s: StepFacts) -> list[dict] | None:
    """The tool definitions sent with the request (pixel dialects that call functions)."""
    if not facts.pixel or facts.config.dialect == "auto" or s.frame is None:
        return None
    w, h = s.frame.model_size(facts.space)
    return dialects.tools(facts.config.dialect, width=int(w), height=int(h))


def prompt_of(facts: RunFacts, i: int) -> list[dict]:
    """The messages the model was (or, at a take-over step, would have been) sent at step index `i`."""
    s = facts.steps[i]
    if s.actor != "human":
        return stored_request(facts, s)
    before = next((j for j in range(i - 1, -1, -1) if facts.steps[j].actor != "human"
                   and isinstance(facts.steps[j].row.get("request"), list) and facts.steps[j].row.get("request")),
                  None)
    if before is None:
        raise Skip("a take-over before the model was first asked has no prompt to pair with")
    prev = facts.steps[before]
    msgs = stored_request(facts, prev)
    later = next((t.row["request"] for t in facts.steps[i + 1:] if t.actor != "human"
                  and isinstance(t.row.get("request"), list) and len(t.row["request"]) > len(msgs)), None)
    if later is not None:  # the history as the run kept it: the reply, and the tool results answering it
        turn = later[len(msgs):]
        cut = next((k for k, m in enumerate(turn) if m.get("role") == "user"), len(turn))
        msgs += copy.deepcopy(turn[:cut])
    else:
        msgs.append(assistant_of(prev.row.get("reply")))
    lead = prompt.feedback_after(prev.row)
    page = s.row
    if facts.pixel:
        text = pixelprompt.observation_text(page.get("url") or "", page.get("title") or "", facts.space, s.frame)
    else:
        text = prompt.observation_text(element_text(marks_of(facts.store, page)), url=page.get("url") or "",
                                       title=page.get("title") or "")
    conv = prompt.Conversation("", keep_images=_keep(facts))
    conv.messages = msgs
    conv.add_observation(s.step, text, lead=lead)
    return conv.request()


def _keep(facts: RunFacts) -> int:
    agent = agent_settings(facts.run)
    return int(agent.get("keep_images") or AgentConfig().keep_images)


def stored_request(facts: RunFacts, s: StepFacts) -> list[dict]:
    request = s.row.get("request")
    if isinstance(request, dict):
        raise Skip("a Responses API request (OpenAI computer use) has no chat form")
    if not isinstance(request, list) or not request:
        raise Skip("no request recorded (an imported run, or the model was not asked)")
    for m in request:
        for part in prompt.image_parts(m):
            url = (part.get("image_url") or {}).get("url", "")
            if not str(url).startswith(prompt.IMAGE_REF):
                raise Skip("the recorded request holds a placeholder, not the screenshot sent (an imported run)")
    return copy.deepcopy(request)


# ---------------------------------------------------------------- images

def image_as_sent(store: Store, facts: RunFacts, step: int) -> bytes:
    """Step `step`'s screenshot as the model was sent it (the same bytes: images.for_model is a pure function)."""
    row = next((s.row for s in facts.steps if s.step == step), None)
    if row is None:
        raise Skip(f"the request refers to step {step}, which the run does not hold")
    key = "screenshot_clean" if facts.pixel else "screenshot"
    try:
        png = store.read_file(row.get(key), f"screenshot of step {step}")
        cfg = facts.config
        return images.for_model(png, cfg.image_format if cfg.image_format in images.FORMATS else "png",
                                cfg.image_max_width)
    except (CockpitError, images.ImageError) as e:
        raise Skip(str(e)) from None
