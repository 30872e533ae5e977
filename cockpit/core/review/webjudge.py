"""WebJudge over one run: key points, each screenshot scored, the outcome (see :mod:`webjudge_prompt`).

Every request goes through the judge batch's retry loop and concurrency limit
(:class:`cockpit.core.review.judge._Judge`), so a batch of runs keeps at most
``concurrency`` requests in flight whichever stage they belong to. The verdict
and every stage's request and reply are stored together at the end
(:func:`cockpit.core.store.judge_stages.save`): a run whose judgement fails part
way stores nothing and reports the error.
"""
from __future__ import annotations

import asyncio

from cockpit.core.review.webjudge_prompt import (MAX_IMAGES, PROMPT_VERSION, SCORE_THRESHOLD, STAGE_MAX_TOKENS,
                                                 action_history, for_the_record, image_request, keypoints_request,
                                                 outcome_request, parse_image_score, parse_key_points, parse_status,
                                                 screenshots)
from cockpit.core.store import judge_stages


def _stage(name: str, messages: list[dict], steps: list[int], ans, **extra) -> dict:
    return {"stage": name, "request": for_the_record(messages, steps), "reply": ans.text,
            "prompt_tokens": ans.prompt_tokens, "completion_tokens": ans.completion_tokens, "cost": ans.cost,
            **extra}


async def judge_run(judge, run: dict, res, *, threshold: int = SCORE_THRESHOLD, max_images: int = MAX_IMAGES) -> None:
    """Ask WebJudge's three stages about `run` through `judge` (a judge batch) and store the verdict in
    `res` and the store."""
    store, task = judge.store, run["task"]
    res.asked = True
    stages: list[dict] = []

    msgs = keypoints_request(task)
    ans = await judge.ask_limited(msgs, STAGE_MAX_TOKENS["key_points"])
    key_points, note = parse_key_points(ans.text)
    stages.append(_stage("key_points", msgs, [], ans, note=note or None))

    shots, missing = screenshots(store, res.run_id)
    requests = [image_request(task, key_points, s.png) for s in shots]
    answers = await asyncio.gather(*(judge.ask_limited(m, STAGE_MAX_TOKENS["image"]) for m in requests))
    kept = []
    for shot, msgs, ans in zip(shots, requests, answers):
        score, reason, note = parse_image_score(ans.text)
        keep = score >= threshold and len(kept) < max_images
        if keep:
            kept.append((shot, reason))
        stages.append(_stage("image", msgs, [shot.step], ans, step=shot.step, score=score, kept=int(keep),
                             note=note or None))

    msgs = outcome_request(task, key_points, action_history(store, res.run_id), kept)
    ans = await judge.ask_limited(msgs, STAGE_MAX_TOKENS["outcome"])
    verdict, note = parse_status(ans.text)
    notes = [note] if note else []
    if missing:
        notes.append("screenshots not readable, left out: steps " + ", ".join(map(str, missing)))
    stages.append(_stage("outcome", msgs, [s.step for s, _ in kept], ans, note="; ".join(notes) or None))

    judge_stages.save(store, res.run_id, judge.config.model, PROMPT_VERSION, verdict, stages, reply=ans.text)
    res.verdict, res.judged = verdict, True
