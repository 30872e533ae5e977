"""The conversation with the model: WebVoyager's prompt protocol, in our words.

Builds the messages sent at each step and parses the replies. Images are kept
as references (``cockpit:step/<k>``) so the store can record exactly what was
sent without copying screenshots into the database; :func:`materialize` swaps
them for data URLs just before a request. This module never talks to a model
or a browser.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable

from cockpit.core import resources
from cockpit.core.actions import replytext
from cockpit.core.actions.grammar import Action, parse_action
from cockpit.core.errors import ActionParseError
from cockpit.core.page.images import data_url

OMITTED = "A screenshot and some texts. (Omitted in context.)"
FORMAT_ERROR = "Format ERROR: Both 'Thought' and 'Action' should be included in your reply."
IMAGE_REF = "cockpit:step/"
_OBS = "Observation:"


def system_prompt() -> str:
    return resources.read_text("prompts/system.txt").strip()


def task_text(task: str, url: str) -> str:
    """WebVoyager's first-message shape, which its judge script looks for."""
    return f"Now given a task: {task}  Please interact with {url} and get the answer."


def observation_text(element_text: str, *, url: str = "", title: str = "", pdf_text: str = "",
                     note: str = "") -> str:
    where = f" The page is {title!r} at {url}." if url else ""
    body = (f"{_OBS}{where} Analyse the attached screenshot and give your Thought and Action. "
            "Below are the numbered elements on it, each with its tag and the text it shows; "
            "an <input> or <textarea> is usually a text field. Trust the screenshot first and "
            "use the list to check numbers.")
    if note:
        body += f"\n{note}"
    if pdf_text:
        body += f"\nThe last action downloaded a PDF; its text follows.\n{pdf_text.strip()}"
    return f"{body}\n{element_text}" if element_text else f"{body}\n(no element is marked on this page)"


def feedback_text(outcome: str = "", error: str = "", refused: str = "", by: str = "human:",
                  taken_over: bool = False) -> str:
    """What happened to the last action; kept even after its screenshot is dropped. A refusal says who refused
    (`by`, a decision's ``by``): a person (``human:<name>``), a site rule (``rule:<domain>``), or the run's policy
    (``policy:<why>``: nobody was asked)."""
    if taken_over:
        return ("Your last action was not executed: the human supervisor took over the browser before it ran. "
                "The page may have changed since; look at it again before you choose your next action.")
    if refused:
        kind = str(by or "human:").split(":", 1)[0]
        if kind == "human":
            return (f"Your last action was refused by the human supervisor and was not executed."
                    f"{' Their message: ' + refused if refused.strip() else ''} Choose another action.")
        who = "a site rule" if kind == "rule" else "this run's policy"
        why = f": {refused.strip().rstrip('.')}" if refused.strip() else ""
        return (f"Your last action was refused by {who}, not by a person, and was not executed{why}. "
                "Choose another action.")
    if error:
        return (f"Your last action could not be executed: {error}. "
                "Check the element number, the action and its format, then give a revised Thought and Action.")
    return f"Result of your last action: {outcome}." if outcome else ""


def feedback_after(row: dict) -> str:
    """What the model read after a recorded step (its store row), as the loop told it; a pixel model's in its own
    coordinates (``pointer.told``). A branch's history and the training exports rebuild prompts with it."""
    status, told = row.get("status"), (row.get("pointer") or {}).get("told")
    if status == "ok":
        return feedback_text(outcome=told or row.get("outcome") or "")
    if status in ("error", "changed"):  # changed: the approved target changed, nothing was done (#17)
        return feedback_text(error=told or row.get("error") or "")
    if status == "refused":
        decision = row.get("decision") or {}
        if decision.get("took_over"):  # a person took the browser over at that step (cockpit.core.agent.gate)
            return feedback_text(taken_over=True)
        return feedback_text(refused=decision.get("message") or " ", by=decision.get("by") or "")
    if status == "format_error":
        return told or row.get("error") or FORMAT_ERROR
    return ""


def secret_note(target: int, kind: str = "password") -> str:
    """Said after text was typed into a secret field: it happened, and why the history shows (secret)."""
    return (f"(You typed a secret into the {kind} field [{target}]; it is not shown here or in your "
            "earlier reply, where it reads (secret).)")


class Conversation:
    """The whole thought/action history; only the newest `keep_images` screenshots attached."""

    def __init__(self, system: str, keep_images: int = 3):
        self.messages: list[dict] = [{"role": "system", "content": system}]
        self.keep_images = keep_images

    def acknowledge(self, checks: list[dict]) -> bool:
        """Safety checks a person approved: only a computer-use conversation sends them back (False: not this
        one; see cockpit.core.llm.pixelprompt.ResponsesConversation)."""
        return False

    def seed(self, messages: list[dict]) -> None:
        """Continue a conversation recorded elsewhere (a branch): its user/assistant turns
        are kept, with every screenshot replaced by the omitted-note (their files belong
        to another run)."""
        for m in messages:
            if m.get("role") != "system":
                self.messages.append(omit(m) if image_parts(m) else copy.deepcopy(m))

    def add_observation(self, step: int, text: str, *, lead: str = "") -> None:
        """A user turn: `lead` (task or feedback) survives clipping; `text` and the image do not."""
        full = f"{lead}\n{text}" if lead else text
        self.messages.append({"role": "user", "content": [
            {"type": "text", "text": full},
            {"type": "image_url", "image_url": {"url": f"{IMAGE_REF}{step}"}}]})

    def add_text(self, text: str) -> None:
        """A user turn with no screenshot (format error feedback)."""
        self.messages.append({"role": "user", "content": text})

    def add_reply(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})

    def request(self) -> list[dict]:
        """The messages to send now: older screenshots replaced by WebVoyager's note."""
        return clip(self.messages, self.keep_images)


def image_parts(message: dict) -> list[dict]:
    """The image parts of a chat message (none for plain-text content)."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [p for p in content if isinstance(p, dict) and p.get("type") == "image_url"]


def lead_of(message: dict) -> str:
    """The part of a user turn that survives clipping: its text before "Observation:"."""
    content = message.get("content")
    if isinstance(content, list):
        content = next((p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"), "")
    return str(content or "").split(_OBS, 1)[0].strip()


def omitted_note(lead: str) -> str:
    return f"{lead}\n{_OBS} {OMITTED}" if lead else f"{_OBS} {OMITTED}"


def omit(message: dict) -> dict:
    """The message as the conversation keeps it once its screenshot is dropped."""
    return dict(copy.deepcopy(message), content=omitted_note(lead_of(message)))


def clip(messages: list[dict], keep: int) -> list[dict]:
    """A copy attaching only the newest `keep` screenshots (none when `keep` <= 0)."""
    msgs = copy.deepcopy(messages)
    with_image = [i for i, m in enumerate(msgs) if image_parts(m)]
    for i in (with_image[:-keep] if keep > 0 else with_image):
        msgs[i] = omit(msgs[i])
    return msgs


def image_steps(messages: list[dict]) -> list[int]:
    """The step numbers whose screenshots these messages refer to."""
    out = []
    for m in messages:
        for p in image_parts(m):
            url = p["image_url"]["url"]
            if url.startswith(IMAGE_REF):
                out.append(int(url[len(IMAGE_REF):]))
    return out


def materialize(messages: list[dict], load_image: Callable[[int], bytes]) -> list[dict]:
    """A copy with every image reference replaced by a data URL of the image (PNG or JPEG)."""
    msgs = copy.deepcopy(messages)
    for m in msgs:
        for p in image_parts(m):
            url = p["image_url"]["url"]
            if url.startswith(IMAGE_REF):
                p["image_url"]["url"] = data_url(load_image(int(url[len(IMAGE_REF):])))
    return msgs


# ---------- replies ----------

@dataclass
class ParsedReply:
    thought: str
    action_text: str  # what followed "Action:", as written
    action: Action | None
    error: str = ""  # feedback for the model when action is None




def parse_reply(text: str | None) -> ParsedReply:
    """Split a reply into Thought and Action, tolerating case and stray markdown.

    The Action is the last 'Action:' label that starts a line (or, failing
    that, the last one anywhere), so 'I will take action: ...' in a thought
    does not count when a proper Action line follows.
    """
    text = (text or "").strip()
    am = replytext.action_label(text)
    if am is None:
        return ParsedReply(replytext.thought_before(text, len(text)), "", None, FORMAT_ERROR)
    thought = replytext.thought_before(text, am.start())
    action_text = replytext.action_line(text[am.end():])
    try:
        return ParsedReply(thought, action_text, parse_action(action_text, pixel=False))
    except ActionParseError as e:
        return ParsedReply(thought, action_text, None, f"Format ERROR: {e}")

