"""The LLM judge: WebVoyager's automatic evaluation, plus reference-answer checks.

What it is for: scoring finished runs without a human. A judge model (chosen
independently of the agent's model) gets the task, the agent's final answer
and the last ``k`` marked screenshots of the run (``k = 0``: all of them) and
replies with its reasoning and a last line SUCCESS or NOT SUCCESS
(``prompts/judge_system.txt``). The reply is parsed as WebVoyager's public
script does (:func:`parse_verdict`). A run whose last action is not ANSWER
scores 0 without asking the model. For runs with reference answers (imported
WebVoyager runs; WebArena / MMInA ``eval`` dicts) the MMInA checks are run as
well: ``exact_match`` and ``must_include`` by string comparison, and
``fuzzy_match`` by a short yes/no question to the judge model (the reference
answers and the string checks live in :mod:`cockpit.core.tasks.references`).

Verdicts go to the store through :func:`cockpit.core.store.labels.set_verdict`:

===============================  ===  ========================  ================================
judge                            k    prompt_version            verdict
===============================  ===  ========================  ================================
``<judge model>``                k    :data:`PROMPT_VERSION`    1 / 0 / NULL (undecided)
``ref:exact_match``              0    :data:`REF_VERSION`       1 / 0
``ref:must_include``             0    :data:`REF_VERSION`       1 / 0
``ref:fuzzy_match:<model>``      0    :data:`FUZZY_VERSION`     1 / 0 / NULL
===============================  ===  ========================  ================================

:func:`judge_runs` scores many runs concurrently with ``openai.AsyncOpenAI``
under ``asyncio.run`` (``cockpit judge``); :func:`judge_runs_blocking` is the
same for a worker thread (the window's background task), cancelled through a
``threading.Event``. It opens the Store in the calling thread and touches it
only from there.

What it must not do: import Qt; log or store an API key; let the ``openai``
client retry on its own (retries, backoff and cancellation are ours: the model
client's policy, :func:`cockpit.core.llm.retry.with_retries_async`, and its
error messages, :meth:`ModelClient.classify`).
"""
from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import openai

from cockpit.core.errors import CockpitError
from cockpit.core.llm.client import (
    ModelClient,
    ModelConfig,
    ModelError,
    check_json,
    estimate_cost,
    prepare_images,
    usage_of,
)
from cockpit.core.llm.retry import CANCEL_POLL, with_retries_async
from cockpit.core.review import webjudge
from cockpit.core.review.judge_plan import (
    PROTOCOLS,
    WEBJUDGE,
    WEBVOYAGER,
    JudgeReport,
    PlannedRun,
    RunJudgement,
    needs_model,
    plan,
)
from cockpit.core.review.judge_prompt import (
    EXACT,
    FUZZY_VERSION,
    INCLUDE,
    NO_ANSWER_REPLY,
    PROMPT_VERSION,
    REF_VERSION,
    build_request,
    final_answer,
    fuzzy_judge_name,
    fuzzy_request,
    parse_verdict,
    parse_yes_no,
    system_prompt,
)
from cockpit.core.store import Store, labels
from cockpit.core.tasks.references import (
    References,
    check_exact_match,
    check_must_include,
    normalize,
    references_of,
)

__all__ = [
    "FUZZY_VERSION",
    "NO_ANSWER_REPLY",
    "PROMPT_VERSION",
    "REF_VERSION",
    "JudgeReport",
    "References",
    "RunJudgement",
    "build_request",
    "check_exact_match",
    "check_must_include",
    "fuzzy_judge_name",
    "fuzzy_request",
    "judge_runs",
    "judge_runs_blocking",
    "normalize",
    "parse_verdict",
    "parse_yes_no",
    "references_of",
    "system_prompt",
]

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str, "int | None"], Any]
#: stage_progress(run id, what its judgement is at: "key points", "screenshots 3/12 scored", "outcome")
StageProgress = Callable[[str, str], Any]


def undecided_why(reply: str | None) -> str:
    """Why a WebVoyager judge reply decides nothing, in words."""
    if not (reply or "").strip():
        return "the judge's reply was empty"
    return "the judge's reply says neither SUCCESS nor NOT SUCCESS (no final verdict)"


@dataclass
class _Answer:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost: float | None


# --------------------------------------------------------------------------- the batch


class JudgeBatch:
    """One batch: the async client, its retry loop, the semaphore and the report."""

    def __init__(self, store: Store, config: ModelConfig, k: int, concurrency: int, report: JudgeReport,
                 api_key: str | None, need_model: bool, protocol: str = WEBVOYAGER):
        self.store, self.config, self.k, self.report, self.protocol = store, config, k, report, protocol
        self.sem = asyncio.Semaphore(concurrency)
        self.on_stage: StageProgress | None = None
        self.helper: ModelClient | None = None
        self.client: openai.AsyncOpenAI | None = None
        if need_model:
            # The sync client resolves the key (a clear ModelError when OpenAI has none) and lends us its
            # asyncio twin, error messages and retry policy, so both paths behave and read the same.
            self.helper = ModelClient(config, api_key)
            self.client = self.helper.open_async()

    def tell(self, run_id: str, text: str) -> None:
        """Say where a run's judgement is (stage_progress); a failing callback never stops the judging."""
        if self.on_stage is not None:
            try:
                self.on_stage(run_id, text)
            except Exception:
                log.exception("judge stage progress callback failed")

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()
        if self.helper is not None:
            self.helper.close()

    # -- one request, with retries ---------------------------------------------
    async def ask_limited(self, messages: list[dict], max_tokens: int | None = None) -> _Answer:
        """:meth:`ask` within the batch's concurrency limit."""
        async with self.sem:
            return await self.ask(messages, max_tokens)

    async def ask(self, messages: list[dict], max_tokens: int | None = None) -> _Answer:
        """One request with our retries; `max_tokens` (at least the model config's) for long answers."""
        assert self.client is not None and self.helper is not None
        cfg, helper = self.config, self.helper
        limit = max(cfg.max_tokens, max_tokens or 0)
        payload = prepare_images(messages, cfg)
        client = self.client

        async def call():
            raw = await client.chat.completions.with_raw_response.create(
                model=cfg.model, messages=payload, temperature=cfg.temperature, max_tokens=limit)
            return check_json(raw, cfg)
        completion, attempt = await with_retries_async(call, helper.retry, helper.classify, what="judge call",
                                                       logger=log)
        choices = getattr(completion, "choices", None)
        if not choices:
            raise ModelError(f"the server at {cfg.display_url} returned no choices", reason="no-choices",
                             attempts=attempt)
        text = choices[0].message.content
        if not text or not text.strip():
            raise ModelError(f"the judge returned an empty reply (finish_reason={choices[0].finish_reason})",
                             reason="empty-reply", attempts=attempt)
        p, c, _ = usage_of(completion, payload, text)
        answer = _Answer(text, p, c, estimate_cost(cfg, p, c))
        rep = self.report
        rep.requests += 1
        rep.prompt_tokens += p
        rep.completion_tokens += c
        if answer.cost is not None:
            rep.cost = (rep.cost or 0.0) + answer.cost
        return answer

    # -- one run ---------------------------------------------------------------
    async def judge_one(self, item: "PlannedRun") -> None:
        res = item.result
        problems: list[str] = []
        if item.main:
            try:
                await self._main(item)
            except (ModelError, CockpitError, OSError) as e:
                problems.append(str(e))
        if item.checks:
            try:
                await self._references(item)
            except (ModelError, CockpitError, OSError) as e:
                problems.append(f"reference check: {e}")
        if problems:
            res.error = "; ".join(problems)
            self.report.errors[res.run_id] = res.error
        elif res.judged and res.verdict is None and res.why:
            self.tell(res.run_id, f"undecided: {res.why}")

    async def _main(self, item: "PlannedRun") -> None:
        res, run = item.result, item.run
        if self.protocol == WEBJUDGE:  # it judges the trajectory whether or not the run answered
            await webjudge.judge_run(self, run, res)
            return
        name = self.config.model
        if final_answer(run) is None:
            labels.set_verdict(self.store, res.run_id, name, self.k, PROMPT_VERSION, 0, reply=NO_ANSWER_REPLY)
            res.verdict, res.judged, res.by_rule = 0, True, True
            return
        async with self.sem:
            messages = build_request(self.store, res.run_id, self.k)
            res.asked = True
            ans = await self.ask(messages)
        verdict = parse_verdict(ans.text)
        if verdict is None:
            res.why = undecided_why(ans.text)
        labels.set_verdict(self.store, res.run_id, name, self.k, PROMPT_VERSION, verdict, reply=ans.text,
                           prompt_tokens=ans.prompt_tokens, completion_tokens=ans.completion_tokens,
                           cost=ans.cost)
        res.verdict, res.judged = verdict, True

    async def _references(self, item: "PlannedRun") -> None:
        res, run, refs = item.result, item.run, item.refs
        answer = final_answer(run)
        store = self.store
        if "exact_match" in item.checks:
            v = check_exact_match(answer, refs)
            labels.set_verdict(store, res.run_id, EXACT, 0, REF_VERSION, v,
                               reply=_ref_reply(answer, refs.exact_match, "equals one of"))
            res.references["exact_match"] = v
        if "must_include" in item.checks:
            v = check_must_include(answer, refs)
            labels.set_verdict(store, res.run_id, INCLUDE, 0, REF_VERSION, v,
                               reply=_ref_reply(answer, refs.must_include,
                                                "includes all of" if refs.include_all else "includes one of"))
            res.references["must_include"] = v
        if "fuzzy_match" in item.checks:
            name = fuzzy_judge_name(self.config.model)
            if answer is None:
                labels.set_verdict(store, res.run_id, name, 0, FUZZY_VERSION, 0, reply=NO_ANSWER_REPLY)
                res.references["fuzzy_match"] = 0
                return
            votes, replies, p, c, cost = [], [], 0, 0, None
            for statement in refs.fuzzy_statements():
                async with self.sem:
                    ans = await self.ask(fuzzy_request(run["task"], answer, statement))
                votes.append(parse_yes_no(ans.text))
                replies.append(f"{statement!r}: {ans.text.strip()}")
                p, c = p + ans.prompt_tokens, c + ans.completion_tokens
                if ans.cost is not None:
                    cost = (cost or 0.0) + ans.cost
            v = _combine(votes, refs.fuzzy_all or refs.unachievable)
            labels.set_verdict(store, res.run_id, name, 0, FUZZY_VERSION, v, reply="\n".join(replies),
                               prompt_tokens=p, completion_tokens=c, cost=cost)
            res.references["fuzzy_match"] = v


def _combine(votes: list[int | None], need_all: bool) -> int | None:
    """All must say yes (need_all) or one must; an undecided vote decides nothing unless the rest already do."""
    if need_all:
        if any(v == 0 for v in votes):
            return 0
        return 1 if all(v == 1 for v in votes) else None
    if any(v == 1 for v in votes):
        return 1
    return 0 if all(v == 0 for v in votes) else None


def _ref_reply(answer: str | None, refs: list[str], how: str) -> str:
    if answer is None:
        return NO_ANSWER_REPLY
    return f"answer {normalize(answer)!r} {how} {[normalize(r) for r in refs]!r}"


async def judge_runs(run_ids, *, store_root: Path | str | None, config: ModelConfig, k: int,
                     concurrency: int = 4, api_key: str | None = None, progress: Progress | None = None,
                     cancel: asyncio.Event | None = None, redo: bool = False,
                     reference_only: bool = False, protocol: str = WEBVOYAGER,
                     stage_progress: StageProgress | None = None) -> JudgeReport:
    """Judge ``run_ids`` with the judge model of ``config`` and run their reference checks.

    protocol: "webvoyager" (one request: task, answer, last k marked screenshots) or "webjudge"
    (Online-Mind2Web's three stages, :mod:`cockpit.core.review.webjudge`; k is not used and its verdicts
    are stored with k = 0 and WebJudge's prompt version).

    k: screenshots shown to the judge (the last k; 0 = all). concurrency: model
    requests in flight at most. progress(done, total, run_id, verdict) after
    each run (verdict: the judge's, None when undecided or not judged; the run's
    ``why`` in the report says why an undecided one is). stage_progress(run_id,
    text) as a WebJudge run goes through its stages (key points, each screenshot
    scored, the outcome).
    cancel: when set, nothing new starts and requests in flight are cancelled
    at once; the report then has ``cancelled`` and the verdicts written so far
    stay. redo: ask again even where a verdict for (run, judge model, k,
    prompt version) is stored (otherwise it is skipped and reported as
    skipped). reference_only: only the reference checks (fuzzy_match still asks
    the model).

    The judge's temperature is ``config.temperature`` (WebVoyager used 0).
    Errors of single runs land in ``report.errors`` and do not stop the batch.
    Raises ModelError ("no-key") before any work when a model is needed and
    there is no key for it; StoreError when the store cannot be opened.
    """
    if k < 0:
        raise ValueError("k must be 0 (all screenshots) or a positive number")
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown judge protocol {protocol!r} (one of {', '.join(PROTOCOLS)})")
    if protocol == WEBJUDGE:
        k = 0
    t0 = time.monotonic()
    report = JudgeReport()
    store = Store(store_root)
    judge: JudgeBatch | None = None
    try:
        items = plan(store, list(run_ids), config, k, redo, reference_only, report, protocol)
        report.total = len(report.runs)
        # Off the loop: the first client loads modules, TLS roots and the key store (0.3-0.8 s), and
        # the loop may be the window's.
        judge = await asyncio.to_thread(JudgeBatch, store, config, k, concurrency, report, api_key,
                                        needs_model(items, protocol), protocol)
        judge.on_stage = stage_progress
        await _judge_all(judge, items, report, progress, cancel)
    finally:
        if judge is not None:
            await judge.close()
        store.close()
        report.seconds = time.monotonic() - t0
    return report


def judge_runs_blocking(run_ids, *, cancel: threading.Event | None = None, **options) -> JudgeReport:
    """:func:`judge_runs` (same options) on an event loop of its own, for a worker thread: returns when the
    batch is done. Setting `cancel` does what setting judge_runs' ``cancel`` does (within CANCEL_POLL)."""

    async def run() -> JudgeReport:
        if cancel is None:
            return await judge_runs(run_ids, **options)
        stop = asyncio.Event()

        async def watch() -> None:
            while not cancel.is_set():
                await asyncio.sleep(CANCEL_POLL)
            stop.set()
        watcher = asyncio.create_task(watch(), name="judge-cancel-flag")
        try:
            return await judge_runs(run_ids, cancel=stop, **options)
        finally:
            watcher.cancel()
    return asyncio.run(run())


async def _judge_all(judge: JudgeBatch, items: list[PlannedRun], report: JudgeReport, progress: Progress | None,
                     cancel: asyncio.Event | None) -> None:
    """Judge the planned items concurrently until all are done or `cancel` is set (see judge_runs)."""

    def finished(res: RunJudgement) -> None:
        res.done = True
        if progress is not None:
            try:
                progress(report.done, report.total, res.run_id, res.verdict)
            except Exception:
                log.exception("judge progress callback failed")

    for res in list(report.runs.values()):  # unknown or running runs: counted as done at once
        if res.done:
            finished(res)

    async def one(item: PlannedRun) -> None:
        if cancel is not None and cancel.is_set():
            return
        res = item.result
        try:
            if item.main or item.checks:
                await judge.judge_one(item)
        except Exception as e:  # a bug in one run must not stop the others; it becomes that run's error
            log.exception("judging %s failed", res.run_id)
            res.error = report.errors[res.run_id] = f"internal error: {type(e).__name__}: {e}"
        finished(res)

    tasks = [asyncio.create_task(one(it), name=f"judge-{it.result.run_id}") for it in items]
    watcher: asyncio.Task | None = None
    try:
        pending: set[asyncio.Future] = set(tasks)
        if cancel is not None:
            watcher = asyncio.create_task(cancel.wait(), name="judge-cancel")
        while pending:
            waiting = pending | ({watcher} if watcher else set())
            done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if watcher is not None and watcher in done:
                report.cancelled = True
                break
            pending -= done
        if cancel is not None and cancel.is_set() and report.done < report.total:
            report.cancelled = True
    finally:
        for t in tasks:
            t.cancel()
        if watcher is not None:
            watcher.cancel()
        await asyncio.gather(*tasks, *([watcher] if watcher else []), return_exceptions=True)
