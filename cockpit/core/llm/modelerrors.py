"""How a model call fails, in words for the human: :class:`ModelError` (with whether retrying may help and
how long the server asks to wait) and :func:`classify`, which turns what the openai client raised into one.
No calls here; the client retries by these errors (:mod:`cockpit.core.llm.client`)."""
from __future__ import annotations

import email.utils
import html as html_lib
import http
import json
import re
import time

import openai

from cockpit.core.errors import CockpitError
from cockpit.core.llm import apikeys
from cockpit.core.llm.modelconfig import ModelConfig

RETRY_AFTER_CAP = 60.0      # never wait longer than this for a Retry-After header


class ModelError(CockpitError):
    """A model call failed. ``str(e)`` is meant for the human.

    status: HTTP status when the server answered, else None.
    retryable: whether trying again later might help.
    reason: a short tag ("429", "500", "timeout", "connection", "invalid-json",
        "not-json", "no-choices", "empty-reply", "no-key", ...).
    attempts: requests made before giving up (0 if none was sent).
    """

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 reason: str = "", retry_after: float | None = None, attempts: int = 0):
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.reason = reason or (str(status) if status else "error")
        self.retry_after = retry_after
        self.attempts = attempts
        self.result = None  # an answered but unusable call (empty reply): its usage
        self.why = ""  # what a retry says it retries after, when the reason's tag would not tell a person


HTML_START = 200  # characters of an HTML page's text quoted in the error
BASE_URL_HINT = "is the base URL right? (OpenAI-compatible servers usually end in /v1)"


def html_page(body: str | bytes | None, url: str, ctype: str = "") -> ModelError | None:
    """A ModelError ("html-page") when `body` is an HTML page (a proxy's "502 Bad Gateway", a login page)
    rather than the API's answer, quoting its title and the start of its text; else None (#38). A gateway's
    error page is retried (the proxy may recover); any other page means a wrong base URL (not retried).
    `ctype`: the content type the server gave, when it is worth saying."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else (body or "")
    head = text.lstrip()[:4000].lower()
    if not (head.startswith(("<!doctype html", "<html", "<head", "<body", "<h1", "<title"))
            or "<html" in head[:300]):
        return None
    title = re.search(r"<title[^>]*>(.*?)</title>", text, re.I | re.S)
    words = " ".join(html_lib.unescape(re.sub(r"<[^>]*>", " ", re.sub(
        r"<(script|style|title)[^>]*>.*?</\1>", " ", text, flags=re.I | re.S))).split())
    name = " ".join(html_lib.unescape(title.group(1)).split()) if title else words[:60]
    start = words[:HTML_START] + ("…" if len(words) > HTML_START else "")
    gateway = re.search(r"\b50[234]\b|bad gateway|unavailable|gateway time-?out", name + " " + start, re.I)
    hint = ("; a proxy or gateway in front of the model is failing" if gateway else
            f" — {ctype or 'HTML'} instead of JSON; {BASE_URL_HINT}")
    err = ModelError(f"the model server at {url} answered with an HTML page, not the API ({name}): "
                     f"\"{start}\"{hint}", retryable=bool(gateway), reason="html-page" if gateway else "not-json")
    err.why = f"an HTML page, not the API: {name}"
    return err


def not_json(body: str | bytes | None, url: str, ctype: str, status: int | None) -> ModelError:
    """The error for a server that answered with something other than JSON (usually a wrong base URL), its HTTP
    `status` kept: its HTML page quoted (:func:`html_page`), else its content type `ctype` named ("not-json")."""
    err = html_page(body, url, ctype) or ModelError(
        f"the server at {url} answered with {ctype} instead of JSON; {BASE_URL_HINT}", reason="not-json")
    err.status = status
    return err


class ModelCancelled(CockpitError):
    """The cancel event was set while a model call was running or waiting."""


def parse_retry_after(headers) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or HTTP date), capped."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return min(max(float(ms) / 1000, 0.0), RETRY_AFTER_CAP)
    except ValueError:
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(max(seconds, 0.0), RETRY_AFTER_CAP)


def status_phrase(status: int) -> str:
    try:
        return f"{status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else err
        if msg:
            return str(msg)[:300]
    return ""


def classify(exc: BaseException, config: ModelConfig, what: str = "model call") -> ModelError:
    """What went wrong in a call to `config`'s server, in words for the human (the caller scrubs the key)."""
    url = config.display_url
    if isinstance(exc, ModelError):
        err = exc
    elif isinstance(exc, openai.APITimeoutError):
        err = ModelError(f"no answer within {config.timeout:g} s from {url} (timeout)",
                         retryable=True, reason="timeout")
    elif isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f": {type(cause).__name__}: {cause}" if cause else ""
        err = ModelError(f"could not connect to {url}{detail}; is the server running?",
                         retryable=True, reason="connection")
    elif isinstance(exc, openai.APIStatusError):
        err = from_status(exc, config, what)
    elif isinstance(exc, openai.APIError):  # an error event in the middle of a streamed reply
        err = ModelError(f"the server at {url} reported an error in the middle of its reply: {str(exc)[:300]}",
                         retryable=True, reason="stream-error")
    elif isinstance(exc, json.JSONDecodeError) and (page := html_page(exc.doc, url)):
        err = page
    elif isinstance(exc, json.JSONDecodeError):
        err = ModelError(f"the server at {url} sent malformed JSON (truncated reply?): {exc.msg}",
                         retryable=True, reason="invalid-json")
    else:
        err = ModelError(f"unexpected error during {what} with {url}: {type(exc).__name__}: {exc}",
                         reason="unexpected")
    return err

def from_status(exc: openai.APIStatusError, config: ModelConfig, what: str) -> ModelError:
    status = exc.status_code
    url, model = config.display_url, config.model
    said = server_message(exc)
    suffix = f" (server said: {said})" if said else ""
    retryable = status in (408, 409, 429) or status >= 500
    if status == 429 and exc.code == "insufficient_quota":
        retryable = False
    hint = exc.response.headers.get("x-should-retry")
    if hint in ("true", "false"):
        retryable = hint == "true"
    messages = {
        401: f"the server rejected the API key (401) at {url}; store a valid key in Settings "
             f"or set {apikeys.ENV_VAR}",
        403: f"access denied (403): the API key may not be allowed to use model '{model}' at {url}",
        404: f"model '{model}' not found at {url} (404); check the model name and that the base URL "
             "ends in /v1" if what == "model call" else
             f"{url} has no such endpoint (404); is the base URL right? (usually it ends in /v1)",
        429: f"rate limited by {url} (429)" if retryable else
             f"the account has no quota left at {url} (429 {exc.code})",
    }
    text = messages.get(status, f"{status_phrase(status)} from {url}") + suffix
    return ModelError(text, status=status, retryable=retryable, reason=str(status),
                      retry_after=parse_retry_after(exc.response.headers) if retryable else None)
