"""WebVoyager run folders: read the ones users bring, write ones WebVoyager tools read.

A run folder is ``<root>/<YYYYmmdd_HH_MM_SS>/task<id>/`` holding
``screenshot{k}.png`` (marked, 1-based, gaps where a step errored), optional
``screenshot{k}_no_box.png``, ``interact_messages.json`` (the chat messages,
images replaced by the literal :data:`PLACEHOLDER`), ``agent.log``, and
sometimes accessibility trees and downloaded PDFs (left alone here).

Step k pairs the k-th assistant message with ``screenshot{k}.png``.

Reading never raises on bad contents: a corrupt screenshot, a broken or
missing messages file, odd bytes all become entries in ``FolderRun.problems``
and everything valid is kept. The data model here is neutral: this module
must not know about Cockpit's store, run the agent, or import Qt.
"""
from __future__ import annotations

import copy
import io
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from PIL import Image

from cockpit.core.actions import parse_action
from cockpit.core.errors import ActionParseError, CockpitError
from cockpit.core.words import json_error

PLACEHOLDER = "data:image/png;base64,{b64_img}"  # WebVoyager's stand-in for every image
MESSAGES_FILE = "interact_messages.json"
LOG_FILE = "agent.log"
#: The problem of a folder whose messages do not say the task (an import's task file may: then it is no problem).
NO_TASK = 'the task is not in the messages (no "Now given a task: ... Please interact with ..." in a user message)'
TIMESTAMP_FORMAT = "%Y%m%d_%H_%M_%S"

_TIMESTAMP = re.compile(r"^\d{8}_\d{2}_\d{2}_\d{2}$")
_SHOT = re.compile(r"^screenshot(\d+)(_no_box)?\.png$")
_TASK_URL = re.compile(r"Now given a task:\s*(.*?)\s+Please interact with\s+(\S+)", re.S | re.I)
_THOUGHT_AT_LINE = re.compile(r"^[ \t>#*_]*thought[ \t*_]*:[ \t*_]*", re.I | re.M)
_ACTION_AT_LINE = re.compile(r"^[ \t>#*_]*action[ \t*_]*:[ \t*_]*", re.I | re.M)
_ACTION_INLINE = re.compile(r"(?<![a-z])action[ \t*_]*:[ \t*_]*", re.I)
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_UNSAFE_NAME = re.compile(r'[<>:"/\\|?*\x00-\x1f]')


@dataclass
class FolderStep:
    index: int  # 1-based step number = the k of screenshot{k}.png
    thought: str
    action: str  # as written after "Action:"; "" if the reply has none
    reply: str  # the whole assistant message
    screenshot: Path | None = None  # screenshot{k}.png, if present and valid
    screenshot_clean: Path | None = None  # screenshot{k}_no_box.png, if present and valid
    user_text: str = ""  # text of the user message before this reply (the observation)


@dataclass
class FolderRun:
    path: Path
    task_id: str  # from the folder name: "taskAllrecipes--0" -> "Allrecipes--0"
    task: str = ""
    url: str = ""
    system_prompt: str = ""
    steps: list[FolderStep] = field(default_factory=list)
    answer: str | None = None  # from the last "Action: ANSWER; ..."; None if unfinished
    messages: list = field(default_factory=list)  # interact_messages.json as read
    log_text: str = ""
    problems: list[str] = field(default_factory=list)
    started: str | None = None  # ISO time from the timestamp folder above, when there is one


# ---------------------------------------------------------------- finding

def find_run_folders(root) -> list[Path]:
    """Every ``task*`` run folder at or below ``root``, sorted."""
    root = Path(root)
    if not root.is_dir():
        raise CockpitError(f"not a folder: {root}")
    found: list[Path] = []
    _collect(root, found)
    return sorted(found)


def _collect(folder: Path, found: list[Path]) -> bool:
    try:
        children = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return False
    is_task = folder.name.startswith("task")
    if is_task and any(_SHOT.match(e.name) or e.name in (MESSAGES_FILE, LOG_FILE) for e in children):
        found.append(folder)
        return True
    below = False
    for e in children:
        if e.is_dir(follow_symlinks=False) and not e.name.startswith("."):
            below = _collect(Path(e.path), found) or below
    if is_task and not below:
        found.append(folder)  # an empty or odd task folder: reading it says what is wrong
        return True
    return below


# ---------------------------------------------------------------- reading

def read_run_folder(path) -> FolderRun:
    """Read one ``task<id>`` folder. Raises CockpitError only if it is not a folder."""
    path = Path(path)
    if not path.is_dir():
        raise CockpitError(f"not a run folder: {path}")
    run = FolderRun(path=path, task_id=path.name[len("task"):] if path.name.startswith("task")
                    and len(path.name) > 4 else path.name)
    run.started = _started(path.parent.name)
    if not any(path.iterdir()):
        run.problems.append("the folder is empty")
    run.messages = _read_messages(path / MESSAGES_FILE, run.problems)
    run.log_text = _read_text(path / LOG_FILE, run.problems) or ""
    shots, clean = _screenshots(path, run.problems)
    _fill_from_messages(run, shots, clean)
    for k in sorted(set(shots) - {s.index for s in run.steps}):
        run.problems.append(f"screenshot{k}.png has no matching reply "
                            "(the run may have stopped before the model answered)")
    return run


def _started(name: str) -> str | None:
    if not _TIMESTAMP.match(name):
        return None
    try:
        return datetime.strptime(name, TIMESTAMP_FORMAT).isoformat()
    except ValueError:
        return None


def _read_text(path: Path, problems: list[str]) -> str | None:
    if not path.is_file():
        problems.append(f"{path.name} is missing")
        return None
    try:
        data = path.read_bytes()
    except OSError as e:
        problems.append(f"{path.name} cannot be read: {e.strerror or e}")
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        problems.append(f"{path.name} is not valid UTF-8; bad bytes were replaced")
        return data.decode("utf-8", errors="replace")


def _read_messages(path: Path, problems: list[str]) -> list:
    text = _read_text(path, problems)
    if text is None:
        return []
    try:
        messages = json.loads(text)
    except json.JSONDecodeError as e:
        problems.append(f"{path.name} is not valid JSON ({json_error(e)})")
        return []
    if not isinstance(messages, list):
        problems.append(f"{path.name} is not a list of messages")
        return []
    return messages


def _screenshots(folder: Path, problems: list[str]) -> tuple[dict[int, Path], dict[int, Path]]:
    shots: dict[int, Path] = {}
    clean: dict[int, Path] = {}
    for p in sorted(folder.iterdir()):
        m = _SHOT.match(p.name)
        if not m or not p.is_file():
            continue
        if not _is_png(p):
            problems.append(f"{p.name} is not a valid PNG")
            continue
        (clean if m.group(2) else shots)[int(m.group(1))] = p
    if not shots:
        problems.append("no screenshots")
    return shots, clean


def _is_png(path: Path) -> bool:
    try:
        with Image.open(path) as im:
            fmt = im.format
            im.verify()
    except Exception:  # Pillow raises many types (OSError, SyntaxError, struct.error...)
        return False
    return fmt == "PNG"


def _fill_from_messages(run: FolderRun, shots: dict, clean: dict) -> None:
    user_text = ""
    for n, msg in enumerate(run.messages, 1):
        if not isinstance(msg, dict):
            run.problems.append(f"message {n} is not an object")
            continue
        role, text = msg.get("role"), content_text(msg.get("content"))
        if role == "system" and not run.system_prompt:
            run.system_prompt = text
        elif role == "user":
            if not run.task and not run.url:
                _task_and_url(run, text)
            user_text = text
        elif role == "assistant":
            k = len(run.steps) + 1
            thought, action = split_reply(text)
            run.steps.append(FolderStep(k, thought, action, text, shots.get(k), clean.get(k),
                                        user_text))
            if k not in shots and "Observation:" in user_text and not (run.path / f"screenshot{k}.png").exists():
                # (a step after an error or a format error legitimately has none: no observation)
                run.problems.append(f"screenshot{k}.png is missing (step {k} was shown a screenshot); "
                                    "the step is kept without it")
    if run.messages and not run.task:
        run.problems.append(NO_TASK)
    run.answer = _answer(run.steps)


def _task_and_url(run: FolderRun, text: str) -> None:
    m = _TASK_URL.search(text)
    if m:
        run.task = m.group(1).strip()
        run.url = m.group(2).rstrip(".,;:)")


def content_text(content) -> str:
    """The text of a chat message content: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def split_reply(reply: str) -> tuple[str, str]:
    """('thought', 'action') from 'Thought: ...\\n\\nAction: ...'; tolerant of case and bold."""
    a = _ACTION_AT_LINE.search(reply)
    if a is None:
        inline = list(_ACTION_INLINE.finditer(reply))
        a = inline[-1] if inline else None
    head = reply[:a.start()] if a else reply
    action = reply[a.end():].strip() if a else ""
    t = _THOUGHT_AT_LINE.search(head) or re.search(r"thought[ \t*_]*:[ \t*_]*", head, re.I)
    thought = head[t.end():] if t else head
    return thought.strip(), action


def _answer(steps: list[FolderStep]) -> str | None:
    for step in reversed(steps):
        if not re.match(r"[\s*`_]*answer\b", step.action, re.I):
            continue
        try:
            return parse_action(step.action).text
        except ActionParseError:
            return None
    return None


# ---------------------------------------------------------------- writing

def timestamp_folder_name(when: datetime | None = None) -> str:
    """The ``YYYYmmdd_HH_MM_SS`` name WebVoyager gives a batch of runs."""
    return (when or datetime.now()).strftime(TIMESTAMP_FORMAT)


def run_folder_name(task_id: str) -> str:
    """``task<task_id>``, with characters a file name cannot hold replaced by "_"."""
    return "task" + _UNSAFE_NAME.sub("_", str(task_id)).strip(". ")


def write_run_folder(out_dir, task_id: str, messages: list,
                     screenshots: Mapping[int, bytes] | Sequence[bytes | None],
                     clean_screenshots: Mapping[int, bytes] | Sequence[bytes | None] | None = None,
                     log_lines: Iterable[str] | str = (), *,
                     extra_files: Mapping[str, bytes] | None = None,
                     overwrite: bool = False) -> Path:
    """Write ``out_dir/task<task_id>/`` as WebVoyager does; returns that folder.

    ``screenshots`` maps k (1-based) to PNG bytes, or is a list where index i
    is step i+1 (None = a gap). Non-PNG images are converted. Image parts of
    ``messages`` are replaced by :data:`PLACEHOLDER`, so no base64 is written.
    For the task and URL to be read back, the first user message must hold
    "Now given a task: <task>  Please interact with <url>". Characters a file
    name cannot hold are replaced by "_" in the folder name. An existing,
    non-empty folder raises CockpitError unless ``overwrite``.
    """
    folder = Path(out_dir) / run_folder_name(task_id)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())) and not overwrite:
        raise CockpitError(f"{folder} already exists; not writing over it")
    files = {f"screenshot{k}.png": _as_png(data, k) for k, data in _numbered(screenshots).items()}
    files |= {f"screenshot{k}_no_box.png": _as_png(data, k)
              for k, data in _numbered(clean_screenshots or {}).items()}
    for name, data in (extra_files or {}).items():
        if name != Path(name).name or name in ("", ".", "..") or name in files:
            raise CockpitError(f"extra file name must be a new plain file name: {name!r}")
        files[name] = data
    lines = log_lines.splitlines() if isinstance(log_lines, str) else list(log_lines)
    files[LOG_FILE] = "".join(f"{line}\n" for line in lines).encode("utf-8")
    files[MESSAGES_FILE] = json.dumps(strip_images(messages), ensure_ascii=False,
                                      indent=2).encode("utf-8")
    folder.mkdir(parents=True, exist_ok=True)  # only now: bad input leaves nothing behind
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def strip_images(messages: list) -> list:
    """A copy of ``messages`` with every inline (data:) image replaced by PLACEHOLDER."""
    out = copy.deepcopy(messages)
    for msg in out:
        content = msg.get("content") if isinstance(msg, dict) else None
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, dict) or part.get("type") != "image_url":
                continue
            image = part.get("image_url")
            if isinstance(image, dict) and str(image.get("url", "")).startswith("data:"):
                image["url"] = PLACEHOLDER
            elif isinstance(image, str) and image.startswith("data:"):
                part["image_url"] = {"url": PLACEHOLDER}
    return out


def _numbered(images) -> dict[int, bytes]:
    if isinstance(images, Mapping):
        items = images.items()
    else:
        items = ((i, data) for i, data in enumerate(images, 1) if data is not None)
    out = {}
    for k, data in items:
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise CockpitError(f"screenshot numbers start at 1, got {k!r}")
        out[k] = data
    return out


def as_png(data: bytes, k: int) -> bytes:
    """The image as PNG bytes (converted if need be); CockpitError naming screenshot k if it is not one."""
    return _as_png(data, k)


def _as_png(data: bytes, k: int) -> bytes:
    if data.startswith(_PNG_SIGNATURE):
        return data
    try:
        with Image.open(io.BytesIO(data)) as im:
            buf = io.BytesIO()
            im.save(buf, "PNG")
    except Exception as e:  # any undecodable input; Pillow's error types vary
        raise CockpitError(f"screenshot {k} is not an image: {e}") from e
    return buf.getvalue()
