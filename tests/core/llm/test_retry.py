"""The model calls' retry policy (cockpit/core/llm/retry.py), shared by the client and the judge."""
import asyncio
import threading
import time

import pytest

from cockpit.core.llm.modelconfig import ModelConfig
from cockpit.core.llm.modelerrors import ModelCancelled, ModelError
from cockpit.core.llm.retry import RetryPolicy, with_retries, with_retries_async


def _flaky(failures: list[BaseException], result="ok"):
    """A call that raises the given errors in turn, then returns `result`; its calls counted in .calls."""
    def call():
        call.calls += 1
        if failures:
            raise failures.pop(0)
        return result
    call.calls = 0
    return call


def _as_is(exc: BaseException) -> ModelError:
    return exc if isinstance(exc, ModelError) else ModelError(str(exc), retryable=False, reason="bug")


def test_the_policy_is_the_config_s_and_waits_double_within_the_cap():
    policy = RetryPolicy.of(ModelConfig(max_retries=3, backoff=1.0, backoff_cap=3.0))
    assert policy == RetryPolicy(3, 1.0, 3.0)
    waits = [policy.wait_for(ModelError("busy", retryable=True), n) for n in (1, 2, 3, 4)]
    assert 0.8 <= waits[0] <= 1.2 and 1.6 <= waits[1] <= 2.4 and waits[2] <= 3.0 and waits[3] <= 3.0
    assert policy.wait_for(ModelError("slow down", retryable=True, retry_after=7.5), 1) == 7.5  # the server's


def test_a_retryable_failure_is_retried_and_a_final_one_is_not():
    policy = RetryPolicy(max_retries=2, backoff=0.01, backoff_cap=0.02)
    seen = []
    call = _flaky([ModelError("busy", retryable=True, reason="server"), ModelError("busy", status=503, retryable=True)])
    assert with_retries(call, policy, _as_is, on_retry=lambda *a: seen.append(a)) == ("ok", 3)
    assert [(a, r) for a, _, r in seen] == [(1, "server"), (2, "503")]
    refused = _flaky([ModelError("bad key", status=401, retryable=False, reason="auth")])
    with pytest.raises(ModelError) as e:
        with_retries(refused, policy, _as_is)
    assert refused.calls == 1 and e.value.attempts == 1 and e.value.reason == "auth"
    down = _flaky([ModelError("down", retryable=True, reason="connection")] * 5)
    with pytest.raises(ModelError, match="failed after 3 attempts: down") as e:
        with_retries(down, policy, _as_is)
    assert down.calls == 3 and e.value.attempts == 3 and e.value.retryable


def test_cancel_stops_a_wait_at_once():
    policy = RetryPolicy(max_retries=3, backoff=30, backoff_cap=30)
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    t0 = time.monotonic()
    with pytest.raises(ModelCancelled):
        with_retries(_flaky([ModelError("busy", retryable=True)]), policy, _as_is, cancel=cancel)
    assert time.monotonic() - t0 < 5  # not the 30 s wait


def test_the_async_loop_follows_the_same_policy():
    policy = RetryPolicy(max_retries=1, backoff=0.01, backoff_cap=0.02)

    def run(failures):
        sync = _flaky(failures)

        async def call():
            return sync()
        return asyncio.run(with_retries_async(call, policy, _as_is, what="judge call")), sync.calls
    assert run([ModelError("busy", retryable=True)]) == (("ok", 2), 2)
    with pytest.raises(ModelError, match="failed after 2 attempts"):
        run([ModelError("busy", retryable=True)] * 2)
    with pytest.raises(ModelError, match="bug"):
        run([ValueError("bug")])  # every exception classified: this one is not retried
