"""The retry policy of model calls, one for every caller: the blocking :class:`~cockpit.core.llm.client.ModelClient`
(the agent, look-ahead, the connection check) and the judge's asyncio batch (:mod:`cockpit.core.review.judge`).

What it decides (see :mod:`cockpit.core.llm.client` for which failures are retryable):

* a failure that is not retryable is raised at once (its ``attempts`` set);
* after ``max_retries`` retries the last failure is raised as "model call failed after N attempts: ...";
* otherwise the wait before the next attempt is the server's ``Retry-After`` when it gave one, else
  ``backoff`` doubling per retry, capped at ``backoff_cap``, with +-20 % jitter (never above the cap).

:func:`with_retries` runs a blocking call under the policy, cancellable at any moment through a
``threading.Event``; :func:`with_retries_async` runs a coroutine under it (cancelled as asyncio tasks are).
Both turn every exception into a :class:`ModelError` with the caller's ``classify`` (which scrubs the key).
Neither lets the ``openai`` client retry: callers build it with ``max_retries=0``.
"""
from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from cockpit.core.llm.modelconfig import ModelConfig
from cockpit.core.llm.modelerrors import ModelCancelled, ModelError
from cockpit.core.words import plural

__all__ = ["CANCEL_POLL", "Classify", "OnRetry", "RetryPolicy", "run_cancellable", "with_retries",
           "with_retries_async"]

log = logging.getLogger(__name__)

CANCEL_POLL = 0.05  # how often a waiting call looks at its cancel event

#: exception -> the ModelError a human reads (the client's ``classify``)
Classify = Callable[[BaseException], ModelError]
#: on_retry(attempt that failed, seconds to wait, reason)
OnRetry = Callable[[int, float, str], Any]


@dataclass(frozen=True)
class RetryPolicy:
    """How many retries, and how long to wait before each."""

    max_retries: int = 4
    backoff: float = 1.0
    backoff_cap: float = 30.0

    @classmethod
    def of(cls, config: ModelConfig) -> "RetryPolicy":
        """The policy a model configuration asks for."""
        return cls(config.max_retries, config.backoff, config.backoff_cap)

    def wait_for(self, err: ModelError, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt` (from 1)."""
        if err.retry_after is not None:
            return err.retry_after
        base = min(self.backoff_cap, self.backoff * 2 ** (attempt - 1))
        return max(0.0, min(self.backoff_cap, base * random.uniform(0.8, 1.2)))

    def after_failure(self, err: ModelError, attempt: int, what: str = "model call",
                      logger: logging.Logger | None = None) -> float:
        """The wait before the next attempt; raises `err` when it is not retried, or the final error when
        the retries are used up (both with their ``attempts``). Each is logged on `logger`: the caller's
        own (the client's, the judge's), so `-v` shows whose call it was."""
        log_ = logger or log
        err.attempts = attempt
        if not err.retryable:
            log_.info("%s failed (not retried): %s", what, err)  # raised: the caller tells the user
            raise err
        if attempt > self.max_retries:
            final = ModelError(f"model call failed after {plural(attempt, 'attempt')}: {err}", status=err.status,
                               retryable=True, reason=err.reason, attempts=attempt)
            log_.info("%s", final)  # raised: the caller tells the user (with -v, this line too)
            raise final
        wait = self.wait_for(err, attempt)
        log_.info("%s attempt %d failed (%s); retrying in %.2f s", what, attempt, err.reason, wait)
        return wait


def run_cancellable(fn: Callable[[], Any], cancel: threading.Event | None,
                    tick: Callable[[], Any] | None = None) -> Any:
    """Run ``fn`` in a daemon thread; return its result, or raise ModelCancelled at once on cancel.

    ``tick()`` is called on this (the caller's) thread every CANCEL_POLL seconds while ``fn`` runs, and once
    when it has succeeded: a streamed reply's progress reaches the caller that way. An abandoned call finishes (or times out) in
    the background and is ignored.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def work():
        try:
            box["value"] = fn()
        except BaseException as e:  # handed to the caller below
            box["error"] = e
        finally:
            done.set()

    threading.Thread(target=work, name="model-request", daemon=True).start()
    while not done.wait(CANCEL_POLL if cancel is not None or tick is not None else None):
        if cancel is not None and cancel.is_set():
            raise ModelCancelled("model call cancelled")
        if tick is not None:
            try:
                tick()
            except Exception:  # a broken progress callback must not break the call
                log.exception("progress callback failed")
    if "error" in box:
        raise box["error"]
    if tick is not None:  # the whole of it, once
        try:
            tick()
        except Exception:
            log.exception("progress callback failed")
    return box["value"]


def with_retries(call: Callable[[], Any], policy: RetryPolicy, classify: Classify, *,
                 cancel: threading.Event | None = None, on_retry: OnRetry | None = None,
                 logger: logging.Logger | None = None, tick: Callable[[], Any] | None = None) -> tuple[Any, int]:
    """`call()`'s result and the attempts it took, retrying what is worth retrying (blocking).

    Raises ModelCancelled as soon as `cancel` is set (during a request or a wait), else the ModelError of
    the last attempt. ``on_retry`` is called before each wait; ``tick`` while a request runs
    (:func:`run_cancellable`)."""
    attempt = 0
    while True:
        if cancel is not None and cancel.is_set():
            raise ModelCancelled("model call cancelled")
        attempt += 1
        try:
            return run_cancellable(call, cancel, tick), attempt
        except ModelCancelled:
            raise
        except Exception as exc:  # classified into a ModelError
            err = classify(exc)
        wait = policy.after_failure(err, attempt, logger=logger)
        if on_retry is not None:
            try:
                on_retry(attempt, wait, err.why or err.reason)
            except Exception:
                log.exception("on_retry callback failed")
        if cancel is not None:
            if cancel.wait(wait):
                raise ModelCancelled("model call cancelled while waiting to retry")
        else:
            time.sleep(wait)


async def with_retries_async(call: Callable[[], Awaitable[Any]], policy: RetryPolicy, classify: Classify, *,
                             what: str = "model call", logger: logging.Logger | None = None) -> tuple[Any, int]:
    """`await call()`'s result and the attempts it took, retrying what is worth retrying; cancelling the
    task that awaits it cancels the request or the wait."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call(), attempt
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # classified into a ModelError
            err = classify(exc)
        await asyncio.sleep(policy.after_failure(err, attempt, what, logger))
