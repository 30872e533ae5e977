"""Chat messages as each trainer reads them: images made real (data URLs, files, or an ordered images list).

Samples keep images as references (``cockpit:step/k``). :class:`Images` turns a reference into the bytes
the model was sent and writes each one once as a file beside the data (``images/<run id>/step-<k>.<ext>``).
:func:`hf_messages` gives the processor-chat-template shape that Hugging Face and TRL read (every content a
list of ``{"type": "text"|"image", "text"}`` parts, the images in an ``images`` list in the same order,
tool-call arguments as JSON text so that one Arrow schema holds them all); :func:`sharegpt` gives
LLaMA-Factory's ShareGPT turns (``<image>`` where each image was).
"""
from __future__ import annotations

import json
from pathlib import Path

from cockpit.core.llm import prompt
from cockpit.core.llm.outimages import prepare_images
from cockpit.core.page import images as img
from cockpit.core.training.prompts import image_as_sent
from cockpit.core.training.supervision import RunFacts

_EXT = {"jpeg": "jpg", "png": "png"}


def image_step(part: dict) -> int | None:
    url = (part.get("image_url") or {}).get("url", "") if isinstance(part.get("image_url"), dict) else ""
    return int(url[len(prompt.IMAGE_REF):]) if str(url).startswith(prompt.IMAGE_REF) else None


class Images:
    """The images of one export: read once per (run, step), written once when asked for files."""

    def __init__(self, out: Path | None = None):
        self.out = out
        self.written: dict[tuple[str, int], str] = {}
        self.copied: dict[tuple[str, str], str] = {}
        self.bytes_written = 0
        self._cache: dict[tuple[str, int], bytes] = {}

    def data(self, facts: RunFacts, step: int) -> bytes:
        key = (facts.run["id"], step)
        if key not in self._cache:
            if len(self._cache) > 64:  # a run's history needs only its last few
                self._cache.clear()
            self._cache[key] = image_as_sent(facts.store, facts, step)
        return self._cache[key]

    def file(self, facts: RunFacts, step: int) -> str:
        """The image's path relative to the export folder (written the first time)."""
        key = (facts.run["id"], step)
        if key not in self.written:
            data = self.data(facts, step)
            rel = f"images/{facts.run['id']}/step-{step:03d}.{_EXT.get(img.sniff(data) or 'png', 'png')}"
            path = self.out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            self.bytes_written += len(data)
            self.written[key] = rel
        return self.written[key]

    def copy_file(self, facts: RunFacts, rel_in_store: str, name: str) -> str:
        """A stored file (a clean screenshot) copied beside the data; its path relative to the export."""
        key = (facts.run["id"], name)
        if key not in self.copied:
            data = facts.store.read_file(rel_in_store, "screenshot")
            rel = f"images/{facts.run['id']}/{name}"
            (self.out / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.out / rel).write_bytes(data)
            self.bytes_written += len(data)
            self.copied[key] = rel
        return self.copied[key]


def with_data_urls(messages: list[dict], facts: RunFacts, images: Images) -> tuple[list[dict], list[bytes]]:
    """A copy of `messages` with every image reference made a data URL, each image part as the model client
    sends it (its detail too: :func:`cockpit.core.llm.outimages.prepare_images`); and the images, in order."""
    out, seen = [], []
    for m in messages:
        m = dict(m)
        if isinstance(m.get("content"), list):
            parts = []
            for p in m["content"]:
                step = image_step(p) if isinstance(p, dict) and p.get("type") == "image_url" else None
                if step is not None:
                    data = images.data(facts, step)
                    seen.append(data)
                    p = {"type": "image_url", "image_url": dict(p["image_url"], url=img.data_url(data))}
                parts.append(p)
            m["content"] = parts
        out.append(m)
    return prepare_images(out, facts.config), seen


def _tool_calls(calls) -> list[dict] | None:
    if not calls:
        return None
    out = []
    for c in calls:
        fn = c.get("function") or {}
        args = fn.get("arguments")
        out.append({"id": str(c.get("id") or ""), "type": "function",
                    "function": {"name": str(fn.get("name") or ""),
                                 "arguments": args if isinstance(args, str) else json.dumps(args)}})
    return out


def hf_messages(messages: list[dict], facts: RunFacts, images: Images, collected: list[bytes]) -> list[dict]:
    """Messages in the processor chat-template shape; each image's bytes appended to `collected`."""
    out = []
    for m in messages:
        content = m.get("content")
        parts = []
        if isinstance(content, list):
            for p in content:
                step = image_step(p) if isinstance(p, dict) and p.get("type") == "image_url" else None
                if step is not None:
                    collected.append(images.data(facts, step))
                    parts.append({"type": "image", "text": None})
                elif isinstance(p, dict) and isinstance(p.get("text"), str):
                    parts.append({"type": "text", "text": p["text"]})
        elif content:
            parts.append({"type": "text", "text": str(content)})
        out.append({"role": m.get("role"), "content": parts, "tool_calls": _tool_calls(m.get("tool_calls")),
                    "tool_call_id": m.get("tool_call_id")})
    return out


def sharegpt(messages: list[dict], facts: RunFacts, images: Images) -> tuple[str, list[dict], list[str]]:
    """(system prompt, turns, image paths) in LLaMA-Factory's ShareGPT layout. A tool result is said in the
    observation turn with the next user turn (the layout wants human/observation and gpt/function_call to
    alternate); a tool call is a function_call turn holding its name and arguments."""
    system, turns, paths = "", [], []
    pending = ""
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role == "system":
            system = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content or [])
            continue
        if role == "tool":
            pending = f"{pending}\n{content}" if pending else str(content or "")
            continue
        if role == "assistant":
            calls = m.get("tool_calls")
            if calls:
                fn = calls[0].get("function") or {}
                args = fn.get("arguments")
                value = json.dumps({"name": fn.get("name"), "arguments": json.loads(args) if isinstance(args, str)
                                    else args}, ensure_ascii=False)
                turns.append({"from": "function_call", "value": value})
            else:
                turns.append({"from": "gpt", "value": content or ""})
            continue
        text = ""
        if isinstance(content, list):
            for p in content:
                step = image_step(p) if isinstance(p, dict) and p.get("type") == "image_url" else None
                if step is not None:
                    paths.append(images.file(facts, step))
                    text += "<image>"
                elif isinstance(p, dict):
                    text += p.get("text", "")
        else:
            text = str(content or "")
        if pending:
            turns.append({"from": "observation", "value": f"{pending}\n{text}"})
            pending = ""
        else:
            turns.append({"from": "human", "value": text})
    return system, turns, paths
