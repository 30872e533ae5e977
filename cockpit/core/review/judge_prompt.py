"""The judge's questions and how its replies are read.

What the LLM judge (:mod:`cockpit.core.review.judge`) sends: the system prompt
(``prompts/judge_system.txt``), :func:`build_request` (task, final answer, the
last ``k`` screenshots) and MMInA's fuzzy-match yes/no question
(:func:`fuzzy_request`); how it reads the replies (:func:`parse_verdict`,
:func:`parse_yes_no`); and the names and prompt versions its verdicts are
stored under.
"""
from __future__ import annotations

import re

from cockpit.core import resources
from cockpit.core.page.images import data_url
from cockpit.core.store import Store

#: Stored with every model verdict; change it whenever judge_system.txt or build_request changes meaning.
PROMPT_VERSION = "cockpit-judge-1"
#: Stored with the string checks (exact_match, must_include).
REF_VERSION = "cockpit-ref-1"
#: Stored with fuzzy_match verdicts; change it with the fuzzy prompt.
FUZZY_VERSION = "cockpit-fuzzy-1"

EXACT = "ref:exact_match"
INCLUDE = "ref:must_include"
FUZZY_PREFIX = "ref:fuzzy_match:"
NO_ANSWER_REPLY = "no ANSWER: scored 0 without asking the judge"


def system_prompt() -> str:
    return resources.read_text("prompts/judge_system.txt").strip()


def fuzzy_judge_name(model: str) -> str:
    return FUZZY_PREFIX + model


# --------------------------------------------------------------------------- parsing


def parse_verdict(text: str | None) -> int | None:
    """WebVoyager's rule: 'NOT SUCCESS' anywhere -> 0, else 'SUCCESS' anywhere -> 1, else None.

    Case-sensitive on purpose, as in the public script: the prompt asks for the
    verdict in capitals and for capitals nowhere else.
    """
    text = text or ""
    if "NOT SUCCESS" in text:
        return 0
    if "SUCCESS" in text:
        return 1
    return None


def parse_yes_no(text: str | None) -> int | None:
    """The first standalone yes / no in a fuzzy-match reply: 1, 0, or None when neither appears."""
    m = re.search(r"\b(yes|no)\b", (text or "").lower())
    if not m:
        return None
    return 1 if m.group(1) == "yes" else 0


# --------------------------------------------------------------------------- requests


def final_answer(run: dict) -> str | None:
    """The run's ANSWER text, or None when its last action was not ANSWER."""
    return run.get("answer")


def build_request(store: Store, run_id: str, k: int) -> list[dict]:
    """The judge's messages for one run: the system prompt, then one user message holding the task,
    the final answer (or a note that there is none) and the last ``k`` marked screenshots as data URLs
    (``k = 0``: all), oldest first, each after a "Screenshot of step N:" line.

    Steps whose screenshot file is missing are skipped and named in the text
    ("screenshot of step 4 is missing"). Images are sent as stored; the caller
    applies :func:`prepare_images` for detail and downscaling.
    """
    if k < 0:
        raise ValueError("k must be 0 (all screenshots) or a positive number")
    run = store.run(run_id)
    steps = store.step_screenshots(run_id)  # only what is needed: a long run's stored requests are large
    answer = final_answer(run)
    shots = [s for s in steps if s.get("screenshot") or s.get("screenshot_clean")]
    chosen = shots[-k:] if k else shots
    images: list[tuple[int, bytes]] = []
    missing: list[int] = []
    for s in chosen:
        rel = s.get("screenshot") or s.get("screenshot_clean")
        path = store.file(rel)
        try:
            images.append((s["step"], path.read_bytes()))
        except OSError:
            missing.append(s["step"])
    lines = [f"Task: {run['task']}"]
    if run.get("url"):
        lines.append(f"Website where the agent started: {run['url']}")
    if answer is not None:
        lines.append(f"The agent's final answer: {answer}")
    else:
        lines.append(f"The agent ended without an ANSWER action (run status: {run.get('status')}), "
                     "so it gave no final answer.")
    if not shots:
        lines.append("No screenshot of this run is available.")
    elif len(chosen) < len(shots):
        lines.append(f"Below are the last {len(chosen)} of the trajectory's {len(shots)} screenshots, oldest first.")
    else:
        lines.append(f"Below are all {len(shots)} screenshots of the trajectory, oldest first.")
    lines += [f"Note: the screenshot of step {n} is missing." for n in missing]
    content: list[dict] = [{"type": "text", "text": "\n".join(lines)}]
    for n, data in images:
        content.append({"type": "text", "text": f"Screenshot of step {n}:"})
        content.append({"type": "image_url", "image_url": {"url": data_url(data)}})
    content.append({"type": "text", "text": "Did the agent accomplish the task? Give your reasoning, "
                                            "then the verdict line: SUCCESS or NOT SUCCESS."})
    return [{"role": "system", "content": system_prompt()}, {"role": "user", "content": content}]


def fuzzy_request(task: str, answer: str, reference: str) -> list[dict]:
    """MMInA's fuzzy_match question: does the answer imply the reference? Yes or No."""
    return [
        {"role": "system", "content": "You check answers to web tasks. Reply with Yes or No first, "
                                      "then at most one sentence of explanation."},
        {"role": "user", "content": f"Task: {task}\n"
                                    f"Given the statement \"{answer}\", would it be correct to infer "
                                    f"\"{reference}\"? Yes or No"},
    ]
