"""Re-ask at step k: send a recorded step's request to a model again, maybe edited.

What it is for: the engineer looking at step k of a recorded run asks "what
would the model say to exactly this?", or "...with another prompt, more or
fewer screenshots, another model or temperature?". :func:`rebuild_request`
gives back the messages sent at step k as the store recorded them (images as
``cockpit:step/<j>`` references); :func:`reask` applies a :class:`ReaskEdit`,
attaches the screenshots from the step folders of that same run, sends the
request through :class:`~cockpit.core.llm.client.ModelClient`, parses the reply the
way the agent does and returns a :class:`ReaskResult` holding the original and
the new Thought/Action side by side. Each re-ask is kept as
``runs/<run>/step-<kkk>/reask-<n>.json`` next to the step's screenshots so the
window can list past re-asks (:func:`past_reasks`); that file is not part of
the database and never changes the schema.

What it must not do: touch a browser, execute the new action, or change the
recorded run in any way (no row written or updated, no existing file
rewritten; the only thing added is the reask-<n>.json file). It never stores
screenshots or API keys in what it records: messages are kept with image
references, the model config is the key-free ModelConfig.
"""
from __future__ import annotations

import copy
import logging
import threading
import time
from dataclasses import asdict

from cockpit.core.actions.grammar import parse_action
from cockpit.core.demo.policy import serve_demo_model
from cockpit.core.errors import ActionParseError, CockpitError
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.replay import reask_pixel, reask_records
from cockpit.core.replay.reask_records import ReaskEdit, ReaskResult, past_reasks
from cockpit.core.store import Store

__all__ = ["ReaskEdit", "ReaskError", "ReaskResult", "clip_images", "edited_request", "model_config_of",
           "past_reasks", "reask", "rebuild_request", "request_text"]

log = logging.getLogger(__name__)

_ROLES = ("system", "user", "assistant")


class ReaskError(CockpitError):
    """A step cannot be re-asked (no such step, nothing recorded, a screenshot missing...)."""


# --------------------------------------------------------------------------- data


def rebuild_request(store: Store, run_id: str, step: int) -> list[dict]:
    """The messages sent to the model at `step`, exactly as recorded, images as references (a copy).

    Raises ReaskError (a CockpitError) when the run or step does not exist or the
    step has no request to re-ask: a human's step, a step where the model was
    not asked, or a run imported from WebVoyager (whose logs keep placeholders
    instead of the screenshots sent).
    """
    return copy.deepcopy(_recorded_request(store, run_id, step))


def why_not_reask(store: Store, run_id: str, step: int) -> str:
    """Why `step` of `run_id` cannot be re-asked ("" when it can): rebuild_request's reason."""
    try:
        _recorded_request(store, run_id, step)
    except ReaskError as e:
        return str(e)
    return ""


def _recorded_request(store: Store, run_id: str, step: int) -> list[dict] | dict:
    """The request recorded at `step`, as the store gave it (not copied), once it is one that can be re-asked;
    ReaskError otherwise (see :func:`rebuild_request`)."""
    run = _run(store, run_id)
    row = store.step(run_id, step)
    if row is None:
        n = store.next_step(run_id) - 1
        have = f"it has steps 1 to {n}" if n > 0 else "it has no steps"
        raise ReaskError(f"run {run_id} has no step {step} ({have})")
    request = row.get("request")
    where = f"step {step} of run {run_id}"
    if not request:
        if row.get("actor") == "human":
            raise ReaskError(f"{where} was taken by the human supervisor: no model request was sent, "
                             "so there is nothing to re-ask")
        if run.get("source", "cockpit") != "cockpit":
            raise ReaskError(f"{where} has no recorded request: the run was imported "
                             f"({run.get('source')}) and its log holds no messages for this step")
        raise ReaskError(f"{where} has no recorded request (the model was not asked at this step)")
    if isinstance(request, dict):  # a Responses API body (OpenAI computer use), sent again as it was
        reask_pixel.check_request(request, where)
        return request
    if not isinstance(request, list) or not all(isinstance(m, dict) for m in request):
        raise ReaskError(f"the request recorded for {where} is not a list of messages")
    for m in request:
        for part in prompt.image_parts(m):
            url = _image_url(part)
            if not url.startswith(prompt.IMAGE_REF):
                if run.get("source", "cockpit") != "cockpit":
                    raise ReaskError(
                        f"{where} cannot be rebuilt exactly: the run was imported ({run.get('source')}) and "
                        "its recorded messages hold a placeholder instead of each screenshot sent")
                raise ReaskError(f"{where} cannot be rebuilt: an image in its request is not a step "
                                 f"reference ({url[:40]!r})")
    return request


#: Re-clipping an edited request works exactly as the conversation does.
clip_images = prompt.clip


def model_config_of(run: dict, edit: ReaskEdit | None = None) -> ModelConfig:
    """The model config the run used (its stored ``config["model"]``), with the edit's overrides."""
    edit = edit or ReaskEdit()
    stored = (run.get("config") or {}).get("model")
    if isinstance(stored, dict):
        cfg = ModelConfig.from_dict(stored)
        if "image_format" not in stored:  # recorded before screenshots were sent as JPEG: they went as PNG
            cfg.image_format = "png"
    else:  # runs recorded without a config (imported, older): what the run row says
        cfg = ModelConfig(base_url=run.get("base_url") or None, image_format="png")
        if run.get("model") and not run["model"].startswith("("):
            cfg.model = run["model"]
    if edit.model is not None:
        cfg.model = edit.model
    if edit.base_url is not None:
        cfg.base_url = edit.base_url or None
    if edit.temperature is not None:
        cfg.temperature = float(edit.temperature)
    if edit.max_tokens is not None:
        cfg.max_tokens = int(edit.max_tokens)
    return cfg


def edited_request(store: Store, run_id: str, step: int, edit: ReaskEdit | None = None) -> list[dict]:
    """The messages a re-ask with `edit` would send (images still as references)."""
    edit = edit or ReaskEdit()
    if edit.messages is not None:
        _run(store, run_id)
        msgs = copy.deepcopy(edit.messages)
        _check_messages(msgs)
    else:
        msgs = rebuild_request(store, run_id, step)
    if isinstance(msgs, dict):
        if any(v is not None for v in (edit.system, edit.keep_images, edit.extra_user_note)):
            raise ReaskError("this step went to the Responses API (computer use): it can be re-asked as it was, "
                             "or with another model or temperature, but its messages cannot be edited")
        return msgs
    if edit.system is not None:
        if msgs and msgs[0].get("role") == "system":
            msgs[0]["content"] = edit.system
        else:
            msgs.insert(0, {"role": "system", "content": edit.system})
    if edit.keep_images is not None:
        if edit.keep_images < 0:
            raise ReaskError(f"keep_images must be 0 or more, not {edit.keep_images}")
        if edit.keep_images > len(prompt.image_steps(msgs)):
            msgs = _restore_images(store, run_id, msgs)
        msgs = clip_images(msgs, edit.keep_images)
    if edit.extra_user_note:
        _append_note(msgs, edit.extra_user_note)
    return msgs


# --------------------------------------------------------------------------- asking


#: Seconds a re-ask waits for the model server to accept the connection.
REASK_CONNECT_TIMEOUT = 3.0


def _quick_to_fail(config: ModelConfig) -> None:
    """A person waits at the dialog: a server that is gone (refused, or silent) is said within seconds, not
    after the run's full retries (4, backing off to ~30 s); one quick retry still rides out a blip."""
    config.max_retries, config.backoff, config.backoff_cap = min(config.max_retries, 1), 0.5, 1.0


def reask(store: Store, run_id: str, step: int, edit: ReaskEdit | None = None, *,
          api_key: str | None = None, cancel: threading.Event | None = None,
          save: bool = True) -> ReaskResult:
    """Send step `step`'s request again (edited by `edit`) and compare the replies.

    Raises ReaskError for a step that cannot be re-asked or a screenshot file
    that is missing, ModelError when the model call fails, ModelCancelled when
    `cancel` is set. Never touches a browser or the run's rows and files; with
    `save` the result is also kept as runs/<run>/step-<kkk>/reask-<n>.json.
    """
    edit = edit or ReaskEdit()
    run = _run(store, run_id)
    row = store.step(run_id, step)
    if row is None:
        rebuild_request(store, run_id, step)  # raises the explained error
    msgs = edited_request(store, run_id, step, edit)
    config = model_config_of(run, edit)
    load = (lambda j: _screenshot(store, run_id, j, step, "screenshot_clean" if config.pixel else "screenshot"))
    payload = prompt.materialize(msgs, load) if not config.pixel else None

    demo_server = None
    if run.get("demo") and edit.base_url is None and edit.model in (None, model_config_of(run).model):
        # The demo policy was served on a port that is long gone: serve it again for this call.
        demo_server = serve_demo_model()
        config.base_url = demo_server.base_url
    _quick_to_fail(config)
    try:
        client = ModelClient(config, api_key, connect_timeout=REASK_CONNECT_TIMEOUT)
        try:
            if config.pixel:
                chat, parsed, reply = reask_pixel.ask(store, run_id, row, msgs, client, load, cancel)
            else:
                chat = client.chat(payload, cancel=cancel)
                parsed, reply = prompt.parse_reply(chat.text), chat.text
        finally:
            client.close()
    finally:
        if demo_server is not None:
            demo_server.stop()

    result = ReaskResult(
        run_id=run_id, step=step,
        original_reply=row.get("reply"), original_thought=row.get("thought") or "",
        original_action=(row.get("action") if config.pixel else _canonical(row.get("action_text"), row.get("action"))),
        original_model=model_config_of(run).model,
        new_reply=reply, new_thought=parsed.thought,
        new_action=str(parsed.action) if parsed.action is not None else None,
        new_action_text=parsed.action_text, parse_error=parsed.error,
        model=config.model, base_url=config.display_url if demo_server is None else "(demo policy)",
        temperature=config.temperature, prompt_tokens=chat.prompt_tokens,
        completion_tokens=chat.completion_tokens, tokens=chat.prompt_tokens + chat.completion_tokens,
        cost=chat.cost, seconds=chat.seconds, messages_sent=msgs,
        edit={k: v for k, v in asdict(edit).items() if v is not None and k != "messages"}
        | ({"messages": "edited"} if edit.messages is not None else {}),
        created=time.time())
    if save:
        reask_records.save(store, result)
    return result


def request_text(messages: list[dict]) -> str:
    """The messages as readable text, each screenshot shown as "[screenshot of step j]"."""
    out = []
    for i, m in enumerate(messages, 1):
        out.append(f"--- message {i}: {m.get('role', '?')} ---")
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
            continue
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "image_url":
                url = _image_url(part)
                if url.startswith(prompt.IMAGE_REF):
                    out.append(f"[screenshot of step {url[len(prompt.IMAGE_REF):]}]")
                else:
                    out.append("[image]")
            elif isinstance(part.get("text"), str):
                out.append(part["text"])
    return "\n".join(out)


# --------------------------------------------------------------------------- helpers


def _run(store: Store, run_id: str) -> dict:
    try:
        return store.run(run_id)
    except CockpitError as e:
        raise ReaskError(str(e)) from e


def _image_url(part: dict) -> str:
    image = part.get("image_url")
    url = image.get("url") if isinstance(image, dict) else image
    return url if isinstance(url, str) else ""


def _restore_images(store: Store, run_id: str, msgs: list[dict]) -> list[dict]:
    """Put back screenshots that were already dropped from these messages.

    A run's conversation only grows, so the user message at index i was the
    newest one (with its screenshot and full text) in the request of the step
    whose request had i + 1 messages. A message is restored only when clipping
    that full message gives back exactly the note found here.
    """
    full: dict[int, dict] = {}
    for s in store.steps(run_id):
        req = s.get("request")
        if isinstance(req, list) and req and isinstance(req[-1], dict) and prompt.image_parts(req[-1]):
            full.setdefault(len(req) - 1, req[-1])
    out = copy.deepcopy(msgs)
    for i, m in enumerate(out):
        cand = full.get(i)
        if (cand is not None and m.get("role") == "user" and not prompt.image_parts(m)
                and isinstance(m.get("content"), str) and prompt.omit(cand) == m):
            out[i] = copy.deepcopy(cand)
    return out


def _append_note(msgs: list[dict], note: str) -> None:
    for m in reversed(msgs):
        if m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, list):
            texts = [p for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
            if texts:
                texts[-1]["text"] = f"{texts[-1]['text']}\n{note}"
            else:
                content.insert(0, {"type": "text", "text": note})
        else:
            m["content"] = f"{content}\n{note}" if content else note
        return
    msgs.append({"role": "user", "content": note})


def _check_messages(msgs) -> None:
    if not isinstance(msgs, list) or not msgs:
        raise ReaskError("the edited request must be a non-empty list of messages")
    for i, m in enumerate(msgs, 1):
        if not isinstance(m, dict) or m.get("role") not in _ROLES:
            raise ReaskError(f"message {i} of the edited request needs a role of {', '.join(_ROLES)}")
        if not isinstance(m.get("content"), (str, list)):
            raise ReaskError(f"message {i} of the edited request has no text or parts as content")


def _screenshot(store: Store, run_id: str, j: int, step: int, which: str = "screenshot") -> bytes:
    """The marked screenshot of step j of this run as stored (PNG; a pixel run's: the clean one); the client
    sends it in the run's image format, the same bytes the agent sent (see cockpit.core.page.images)."""
    try:
        return store.read_file(store.step_file(run_id, j, which), f"screenshot of step {j}")
    except CockpitError as e:
        raise ReaskError(f"cannot re-ask step {step} of run {run_id}: {e}") from e


def _canonical(action_text: str | None, action: str | None) -> str | None:
    """The model's recorded action in canonical form (not a human's edit of it)."""
    if action_text:
        try:
            return str(parse_action(action_text))
        except ActionParseError:
            return action_text
    return action or None
