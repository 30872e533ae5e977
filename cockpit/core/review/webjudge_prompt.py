"""WebJudge's three questions and how their replies are read (Online-Mind2Web's judge, arXiv 2504.01382).

The protocol, as Online-Mind2Web's evaluation script runs it (``WebJudge_Online_Mind2Web_eval``):

1. **Key points**, from the task text alone (:func:`keypoints_request`): the reply's
   text after ``**Key Points**:`` (else after the last ``Key Points:``, else the
   whole reply), each line stripped on the left (:func:`parse_key_points`).
2. **Each screenshot scored** 1-5 for whether it shows steps or evidence for
   those key points (:func:`image_request`, one request per screenshot). The
   score is the first digit 1-5 after the first ``Score``; a reply without one
   scores 0 and is not kept. The screenshot's reason is the first paragraph
   after the last ``**Reasoning**:`` (:func:`parse_image_score`).
3. **The outcome** (:func:`outcome_request`): the task, the key points, the
   whole action history numbered from 1, and the screenshots scored at or above
   :data:`SCORE_THRESHOLD` (3), in trajectory order, at most :data:`MAX_IMAGES`
   (50), with their reasons numbered from 1. With no screenshot kept the request
   holds only the task, key points and action history. The verdict is 1 when
   "success" follows the first ``status:`` (any case), 0 when not
   (:func:`parse_status`). A reply with no ``status:`` at all is *undecided*
   here (stored as NULL and left out of agreement, like WebVoyager's judge);
   Online-Mind2Web's script counts it as a failure.

The action history is each step's action as recorded, in order: an imported
run's own strings verbatim (Online-Mind2Web's ``action_history``), a Cockpit
run's canonical action with the element it hit. The final answer is not added:
Online-Mind2Web's WebJudge does not see ``final_result_response`` either (a
Cockpit run's ``ANSWER`` is one of its actions). The screenshots are every
stored step screenshot, unmarked where the run kept an unmarked one (the
judge sees the page, not Cockpit's boxes).

The prompts (``prompts/webjudge_*.txt``) are Cockpit's own wording of the
published criteria, scale and answer formats; :data:`PROMPT_VERSION` changes
whenever they or these rules change meaning.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from cockpit.core import resources
from cockpit.core.page.images import data_url
from cockpit.core.page.marks import Mark
from cockpit.core.store import Store
from cockpit.core.store.stepmarks import step_marks

PROTOCOL = "webjudge"
#: Stored with every WebJudge verdict and its stages.
PROMPT_VERSION = "webjudge-cockpit-1"
SCORE_THRESHOLD = 3
MAX_IMAGES = 50
#: The published script's token limits per stage (key points and images; the outcome).
STAGE_MAX_TOKENS = {"key_points": 2048, "image": 2048, "outcome": 4096}


def _prompt(name: str) -> str:
    return resources.read_text(f"prompts/webjudge_{name}.txt").strip()


# --------------------------------------------------------------------------- what the run gives


@dataclass
class Shot:
    step: int
    png: bytes


def action_history(store: Store, run_id: str) -> list[str]:
    """One line per step that has an action, in order (see the module doc)."""
    run = store.run(run_id)
    foreign = (run.get("source") or "cockpit") != "cockpit"
    lines = []
    for row in store.step_actions(run_id):
        if foreign:
            text = row.get("action_text") or row.get("action")
        else:
            text = row.get("action") or row.get("action_text")
            hit = _hit(store, row) if text else ""
            if hit:
                text = f"{text} -> {hit}"
        if text:
            lines.append(str(text).replace("\n", " "))
    return lines


def _hit(store: Store, row: dict) -> str:
    """What a Cockpit step acted on: the point's element, else the target mark."""
    pointer = json.loads(row["pointer"]) if row.get("pointer") else None
    resolved = (pointer or {}).get("resolved")
    if resolved:
        return resolved.get("desc") or ""
    if row.get("target") is None:
        return ""
    marks = step_marks(store, row) or []
    mark = next((m for m in marks if m.id == row["target"]), None)
    return _describe(mark) if mark else ""


def _describe(mark: Mark) -> str:
    label = mark.label
    return f"<{mark.tag}> \"{label[:60]}\"" if label else f"<{mark.tag}>"


def screenshot_files(store: Store, run_id: str) -> list[tuple[int, Path]]:
    """Every step screenshot in order, as (step, file): unmarked where the run kept an unmarked one."""
    out = []
    for s in store.step_screenshots(run_id):
        rel = s.get("screenshot_clean") or s.get("screenshot")
        if rel:
            out.append((s["step"], store.file(rel)))
    return out


# --------------------------------------------------------------------------- the requests


def keypoints_request(task: str) -> list[dict]:
    return [{"role": "system", "content": _prompt("keypoints")},
            {"role": "user", "content": [{"type": "text", "text": f"Task: {task}"}]}]


def image_request(task: str, key_points: str, png: bytes) -> list[dict]:
    text = (f"**Task**: {task}\n\n**Key Points for Task Completion**: {key_points}\n\n"
            "The screenshot of the web page is shown in the image.")
    return [{"role": "system", "content": _prompt("image")},
            {"role": "user", "content": [{"type": "text", "text": text},
                                         {"type": "image_url", "image_url": {"url": data_url(png)}}]}]


def outcome_request(task: str, key_points: str, actions: list[str], kept: list[tuple[Shot, str]]) -> list[dict]:
    """`kept`: the screenshots scored at or above the threshold, in order, with their reasons (already cut to
    :data:`MAX_IMAGES`)."""
    history = "\n".join(f"{i}. {a}" for i, a in enumerate(actions, 1))
    text = f"User Task: {task}\n\nKey Points: {key_points}\n\nAction History:\n{history}"
    if kept:
        reasons = "\n".join(f"{i}. {r}" for i, r in enumerate((r for _, r in kept if r), 1))
        text += ("\n\nThe potentially important snapshots of the webpage in the agent's trajectory and their "
                 f"reasons:\n{reasons}")
    content = [{"type": "text", "text": text}]
    content += [{"type": "image_url", "image_url": {"url": data_url(shot.png)}} for shot, _ in kept]
    return [{"role": "system", "content": _prompt("outcome")}, {"role": "user", "content": content}]


def for_the_record(messages: list[dict], steps: list[int]) -> str:
    """A request as stored with the verdict: the messages as sent, each image replaced by the step it shows
    (the screenshots are the run's own files; the record stays small)."""
    out, it = [], iter(steps)
    for msg in messages:
        content = msg["content"]
        if isinstance(content, list):
            content = [{"type": "image_url", "image_url": {"url": f"[screenshot of step {next(it, '?')}]"}}
                       if part.get("type") == "image_url" else part for part in content]
        out.append({"role": msg["role"], "content": content})
    return json.dumps(out, ensure_ascii=False)


# --------------------------------------------------------------------------- reading the replies


def parse_key_points(reply: str) -> tuple[str, str]:
    """(key points, note): the text after the heading, lines stripped on the left; the note says when the
    reply had no heading and was used whole, as the published script does."""
    text = (reply or "").replace("\n\n", "\n")
    note = ""
    if "**Key Points**:" in text:
        text = text.split("**Key Points**:", 1)[1]
    elif "Key Points:" in text:
        text = text.split("Key Points:")[-1]
    else:
        note = "no 'Key Points' heading: the whole reply was used as the key points"
    text = "\n".join(line.lstrip() for line in text.splitlines()).strip("\n")
    if not text.strip():
        note = "the key points are empty"
    return text, note


_SCORE = re.compile(r"[1-5]")


def parse_image_score(reply: str) -> tuple[int, str, str]:
    """(score 0-5, reason, note). Score 0 (never kept) when the reply gives none."""
    reply = reply or ""
    parts = reply.split("Score")  # the text between the first "Score" and the next, as the script reads it
    digit = _SCORE.search(parts[1]) if len(parts) >= 2 else None
    if digit is None:
        return 0, "", "no score 1-5 after 'Score': scored 0, not kept"
    reason = reply.split("**Reasoning**:")[-1].strip().split("\n\n")[0].replace("\n", " ")
    return int(digit.group()), reason, ""


def parse_status(reply: str) -> tuple[int | None, str]:
    """(verdict, note): 1 when "success" follows the first 'status:', 0 when not, None without a status."""
    low = (reply or "").lower()
    if "status:" not in low:
        return None, "no 'Status:' line: undecided (Online-Mind2Web's script would count a failure)"
    return (1 if "success" in low.split("status:")[1] else 0), ""
