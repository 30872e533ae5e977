"""The chat request as the demo policy (:mod:`cockpit.core.demo.policy`) reads it: task, page, feedback, history."""
from __future__ import annotations

import re
from dataclasses import dataclass

from cockpit.core.actions.grammar import Action
from cockpit.core.demo.page import ShopPage, parse_page
from cockpit.core.demo.task import DemoTask, parse_task
from cockpit.core.llm import prompt

#: The policy stops after demo.MAX_ERRORS failed actions among this many.
ERROR_WINDOW = 6

_TASK = re.compile(r"Now given a task: (.*?)\s+Please interact with (\S+) and get the answer\.", re.S)


def _text_of(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _lead(message: dict) -> str:
    """The part of a user turn before its observation: task text or feedback."""
    return _text_of(message).split("Observation:", 1)[0].strip()


@dataclass
class Turn:
    action: Action | None
    feedback: str  # the lead of the user turn that followed


@dataclass
class Request:
    task: DemoTask
    start_url: str
    page: ShopPage | None
    feedback: str
    history: list[Turn]

    @property
    def refused(self) -> bool:
        return self.feedback.startswith("Your last action was refused")

    @property
    def errored(self) -> bool:
        return self.feedback.startswith("Your last action could not be executed")

    @property
    def last_action(self) -> Action | None:
        return self.history[-1].action if self.history else None

    def recent_errors(self) -> int:
        return sum(t.feedback.startswith("Your last action could not be executed")
                   for t in self.history[-ERROR_WINDOW:])

    def typed_since_page_change(self, element: int, texts: tuple[str, ...]) -> bool:
        """Whether `texts` was typed into `element` on this page, going by the feedback."""
        for turn in reversed(self.history):
            a, fb = turn.action, turn.feedback
            if a is None:
                continue
            if fb.startswith("Result of your last action:") and (
                    "the page is now" in fb or a.kind in ("back", "goto", "google")):
                return False
            if (a.kind == "type" and a.target == element and a.text in texts
                    and fb.startswith("Result of your last action:") and "typed" in fb):
                return True
        return False


def read_request(body: dict) -> Request:
    messages = [m for m in (body.get("messages") or []) if isinstance(m, dict)]
    users = [m for m in messages if m.get("role") == "user"]
    first = _text_of(users[0]) if users else ""
    tm = _TASK.search(first)
    task_text, start = (tm.group(1).strip(), tm.group(2)) if tm else (first.split("Observation:", 1)[0].strip(), "")
    page = None
    for m in reversed(users):
        page = parse_page(_text_of(m))
        if page is not None:
            break
    feedback = _lead(users[-1]) if len(users) > 1 else ""
    history = []
    for i, m in enumerate(messages):
        if m.get("role") != "assistant":
            continue
        nxt = messages[i + 1] if i + 1 < len(messages) and messages[i + 1].get("role") == "user" else None
        history.append(Turn(prompt.parse_reply(_text_of(m)).action, _lead(nxt) if nxt else ""))
    return Request(parse_task(task_text), start, page, feedback, history)

