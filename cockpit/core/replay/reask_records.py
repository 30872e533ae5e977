"""What a re-ask is and how it is kept: the edit asked for (:class:`ReaskEdit`), the two replies side by side
(:class:`ReaskResult`), and the ``reask-<n>.json`` records beside the step's files. No model calls here
(:mod:`cockpit.core.replay.reask` makes them)."""
from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from cockpit.core.llm import prompt
from cockpit.core.store import Store

log = logging.getLogger(__name__)

_REASK_FILE = re.compile(r"reask-(\d+)\.json$")


@dataclass
class ReaskEdit:
    """What to change before asking again; every None means "as sent at that step".

    system: replaces the system prompt text.
    messages: a whole edited message list (with ``cockpit:step/<j>`` image
        references, as :func:`rebuild_request` returns it) instead of the recorded one.
    keep_images: attach only the newest N screenshots; older ones become the
        omitted-note, as the agent's conversation does. A larger N than was sent
        restores older screenshots whose full message is on record (from the
        step where each was the newest one).
    model, base_url, temperature, max_tokens: override the run's model config.
        ``base_url=""`` means OpenAI's own API.
    extra_user_note: text appended to the last user message.
    """

    system: str | None = None
    messages: list[dict] | None = None
    keep_images: int | None = None
    model: str | None = None
    base_url: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    extra_user_note: str | None = None

    def describe(self) -> list[str]:
        """The edits in words ("system prompt replaced", "keep 1 screenshot", ...)."""
        out = []
        if self.messages is not None:
            out.append("messages edited")
        if self.system is not None:
            out.append("system prompt replaced")
        if self.keep_images is not None:
            out.append(f"keep {self.keep_images} screenshot{'s' if self.keep_images != 1 else ''}")
        if self.model is not None:
            out.append(f"model {self.model}")
        if self.base_url is not None:
            out.append(f"server {self.base_url or 'OpenAI'}")
        if self.temperature is not None:
            out.append(f"temperature {self.temperature:g}")
        if self.max_tokens is not None:
            out.append(f"max tokens {self.max_tokens}")
        if self.extra_user_note:
            out.append("note added")
        return out


@dataclass
class ReaskResult:
    """One re-ask: the step's original reply next to the new one.

    original_action / new_action are in Cockpit's canonical form (``Click [3]``)
    when they parse, so they can be compared; new_action is None when the new
    reply has no valid action (then ``parse_error`` says why, as the agent would
    tell the model). messages_sent are the messages as sent, images as
    ``cockpit:step/<j>`` references. ``n``/``saved`` identify the reask-<n>.json
    record (0 / "" when it was not saved; ``save_error`` says why if saving failed).
    """

    run_id: str
    step: int
    original_reply: str | None
    original_thought: str
    original_action: str | None
    original_model: str
    new_reply: str
    new_thought: str
    new_action: str | None
    new_action_text: str
    parse_error: str
    model: str
    base_url: str
    temperature: float
    prompt_tokens: int
    completion_tokens: int
    tokens: int
    cost: float | None
    seconds: float
    messages_sent: list[dict]
    edit: dict = field(default_factory=dict)
    created: float = 0.0
    n: int = 0
    saved: str = ""
    save_error: str = ""

    @property
    def changed(self) -> bool:
        """True when the new action differs from the one recorded."""
        return self.new_action != self.original_action

    @property
    def images(self) -> list[int]:
        """The steps whose screenshots were attached."""
        return prompt.image_steps(self.messages_sent)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "ReaskResult":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


# --------------------------------------------------------------------------- rebuilding


def past_reasks(store: Store, run_id: str, step: int) -> list[ReaskResult]:
    """The re-asks recorded for this step, oldest first (unreadable records are skipped)."""
    d = store.step_dir(run_id, step)
    out = []
    for path in sorted(reask_files(d), key=lambda p: p[0]):
        n, p = path
        try:
            res = ReaskResult.from_dict(json.loads(p.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError) as e:
            log.warning("skipping the unreadable re-ask record %s: %s", p, e)
            continue
        res.n, res.saved = n, str(p.relative_to(store.root))
        out.append(res)
    return out


def reask_files(d: Path) -> list[tuple[int, Path]]:
    try:
        names = os.listdir(d)
    except OSError:
        return []
    return [(int(m.group(1)), d / name) for name in names if (m := _REASK_FILE.fullmatch(name))]


def save(store: Store, result: ReaskResult) -> None:
    d = store.step_dir(result.run_id, result.step)
    try:
        d.mkdir(parents=True, exist_ok=True)
        n = max((k for k, _ in reask_files(d)), default=0)
        while True:
            n += 1
            path = d / f"reask-{n}.json"
            result.n, result.saved = n, str(path.relative_to(store.root))
            try:
                with open(path, "x", encoding="utf-8") as f:  # "x": another re-ask may take the same n
                    json.dump(result.to_dict(), f, indent=1)
                return
            except FileExistsError:
                continue
    except OSError as e:
        result.n, result.saved = 0, ""
        result.save_error = f"could not keep the re-ask in {d}: {e.strerror or e}"
        log.warning("%s", result.save_error)
