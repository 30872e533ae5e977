"""The scripted model's side of a test: a model client on a ModelServer, and responders that read the prompt
as a model would (the page's title, the number of an element's mark)."""
import re
import threading

from openai import OpenAI

from cockpit.core.llm.client import ModelClient, ModelConfig


def model_client(server, model: str = "m", api_key: str = "k", **config) -> ModelClient:
    """The real client on `server` (a ModelServer, or a base URL); no retries unless `max_retries` says so.
    The caller closes it (or uses it in a `with`)."""
    base_url = server if isinstance(server, str) else server.base_url
    config.setdefault("max_retries", 0)
    return ModelClient(ModelConfig(base_url=base_url, model=model, **config), api_key=api_key)


def openai_for(server, **kw) -> OpenAI:
    """The bare openai client on `server` (a ModelServer), with no retries unless `max_retries` says so."""
    kw.setdefault("max_retries", 0)
    return OpenAI(base_url=server.base_url, api_key="test-key", **kw)


def last_user_text(body) -> str:
    """The text of the request's last user message (the observation)."""
    for m in reversed(body["messages"]):
        if m["role"] == "user":
            c = m["content"]
            return c if isinstance(c, str) else c[0]["text"]
    return ""


def mark_for(body, text: str) -> int:
    """The number the page gave the element showing `text`, read from the prompt like a model would."""
    for line in last_user_text(body).splitlines():
        m = re.match(r"\[(\d+)\]: <[^>]+> (.*);", line)
        if m and text.lower() in m.group(2).lower():
            return int(m.group(1))
    raise AssertionError(f"no element {text!r} in the prompt:\n{last_user_text(body)}")


def by_page(rules: dict):
    """A responder choosing its reply by the page title in the last observation; a reply may be a function of
    the request, and a list of replies is used in turn (its last one from then on)."""
    lock, seen = threading.Lock(), {}

    def respond(body):
        text = last_user_text(body)
        for title, replies in rules.items():
            if f"The page is '{title}'" in text:
                with lock:
                    i = seen.get(title, 0)
                    seen[title] = i + 1
                replies = replies if isinstance(replies, list) else [replies]
                reply = replies[min(i, len(replies) - 1)]
                return reply(body) if callable(reply) else reply
        return "Thought: lost\nAction: ANSWER; lost"
    return respond


def answer_with_title(body):
    """Answers at once with the page title it was shown."""
    text = body["messages"][-1]["content"][0]["text"]
    title = re.search(r"The page is '([^']*)'", text).group(1)
    return f"Thought: the title says it.\nAction: ANSWER; {title}"


def assistant_turns(body) -> int:
    """How many replies of the model the request carries (the steps taken so far)."""
    return sum(m["role"] == "assistant" for m in body["messages"])
