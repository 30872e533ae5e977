"""WebJudge over one run: key points, each screenshot scored, the outcome (see :mod:`webjudge_prompt`).

Every request goes through the judge batch's retry loop and concurrency limit
(:class:`cockpit.core.review.judge.JudgeBatch`), so a batch of runs keeps at most
``concurrency`` requests in flight whichever stage they belong to. A screenshot
is read, and its request built, only once its request may go (inside the
limit, the file read off the event loop), so a batch of many runs holds at most
``concurrency`` screenshots in memory besides those kept for outcome requests
in flight. The verdict and every stage's request and reply are stored together
at the end (:func:`cockpit.core.store.judge_stages.save`).

Failures: a screenshot's request the server refuses for good (a 400 such as
"image too large", an empty or filtered reply) scores that screenshot 0, with
the error as its note, as a reply without a score would; any other failure (the
server down after the retries, a key refused, the key-point or outcome request
failing) stops the run's judgement, cancels its other requests and stores
nothing: the run is reported with the error.
"""
from __future__ import annotations

import asyncio
from pathlib import Path

from cockpit.core.llm.modelerrors import ModelError
from cockpit.core.review.webjudge_prompt import (
    MAX_IMAGES,
    PROMPT_VERSION,
    SCORE_THRESHOLD,
    STAGE_MAX_TOKENS,
    Shot,
    action_history,
    for_the_record,
    image_request,
    keypoints_request,
    outcome_request,
    parse_image_score,
    parse_key_points,
    parse_status,
    screenshot_files,
)
from cockpit.core.store import judge_stages
from cockpit.core.words import plural


def _stage(name: str, messages: list[dict], steps: list[int], ans, **extra) -> dict:
    return {"stage": name, "request": for_the_record(messages, steps), "reply": ans.text,
            "prompt_tokens": ans.prompt_tokens, "completion_tokens": ans.completion_tokens, "cost": ans.cost,
            **extra}


async def _read(path: Path) -> bytes | None:
    try:
        return await asyncio.to_thread(path.read_bytes)
    except OSError:
        return None


async def _score_all(judge, task: str, key_points: str, files: list[tuple[int, Path]], missing: list[int],
                     run_id: str = "") -> list[dict]:
    """Stage 2: every screenshot scored, its stage record in step order (unreadable files go to `missing`)."""
    scored = [0]

    def told(st: dict | None) -> dict | None:
        scored[0] += 1
        judge.tell(run_id, f"screenshots {scored[0]}/{len(files)} scored")
        return st

    async def score(step: int, path: Path) -> dict | None:
        async with judge.sem:
            png = await _read(path)
            if png is None:
                missing.append(step)
                return told(None)
            msgs = image_request(task, key_points, png)
            try:
                ans = await judge.ask(msgs, STAGE_MAX_TOKENS["image"])
            except ModelError as e:
                if e.retryable:
                    raise
                return told({"stage": "image", "request": for_the_record(msgs, [step]), "reply": "", "step": step,
                             "score": 0, "kept": 0, "note": f"the request failed, scored 0: {e}"})
        value, reason, note = parse_image_score(ans.text)
        return told(_stage("image", msgs, [step], ans, step=step, score=value, kept=0, note=note or None,
                           reason=reason))

    try:
        async with asyncio.TaskGroup() as group:  # one failing for good cancels the others
            tasks = [group.create_task(score(step, path)) for step, path in files]
    except ExceptionGroup as eg:  # the run's error is the first failure, as one request's would be
        raise eg.exceptions[0] from None
    return [st for st in (t.result() for t in tasks) if st is not None]


async def judge_run(judge, run: dict, res, *, threshold: int = SCORE_THRESHOLD, max_images: int = MAX_IMAGES) -> None:
    """Ask WebJudge's three stages about `run` through `judge` (a judge batch) and store the verdict in
    `res` and the store."""
    store, task = judge.store, run["task"]
    res.asked = True
    stages: list[dict] = []

    judge.tell(res.run_id, "key points")
    msgs = keypoints_request(task)
    ans = await judge.ask_limited(msgs, STAGE_MAX_TOKENS["key_points"])
    key_points, note = parse_key_points(ans.text)
    stages.append(_stage("key_points", msgs, [], ans, note=note or None))

    files = screenshot_files(store, res.run_id)
    missing: list[int] = []
    kept_steps = []
    judge.tell(res.run_id, f"screenshots 0/{len(files)} scored")
    for st in await _score_all(judge, task, key_points, files, missing, res.run_id):
        if st["score"] >= threshold and len(kept_steps) < max_images:
            st["kept"] = 1
            kept_steps.append(st)
        else:
            st.pop("reason", None)
        stages.append(st)

    actions = action_history(store, res.run_id)
    paths = dict(files)
    async with judge.sem:  # the kept screenshots are read again only now, within the limit
        kept = []
        for st in kept_steps:
            png = await _read(paths[st["step"]])
            if png is not None:
                kept.append((Shot(st["step"], png), st.pop("reason", "")))
        msgs = outcome_request(task, key_points, actions, kept)
        judge.tell(res.run_id, f"outcome (from {plural(len(kept), 'screenshot')} kept)")
        ans = await judge.ask(msgs, STAGE_MAX_TOKENS["outcome"])
    verdict, note = parse_status(ans.text)
    notes = [note] if note else []
    if missing:
        notes.append("screenshots not readable, left out: steps " + ", ".join(map(str, sorted(missing))))
    stages.append(_stage("outcome", msgs, [s.step for s, _ in kept], ans, note="; ".join(notes) or None))

    judge_stages.save(store, res.run_id, judge.config.model, PROMPT_VERSION, verdict, stages, reply=ans.text)
    res.verdict, res.judged = verdict, True
    if verdict is None:
        res.why = ("the outcome reply has no 'Status:' line (Online-Mind2Web's script would count a failure)"
                   if (ans.text or "").strip() else "the judge's outcome reply was empty")
