"""The loopback model server, driven by the real openai client over HTTP."""
import asyncio
import json
import threading
import time

import openai
import pytest
from openai import AsyncOpenAI, OpenAI

from cockpit.core.llm.modelserver import IMAGE_TOKENS, ModelServer, Reply, ScriptExhausted, scripted
from tests.models import openai_for

USER = [{"role": "user", "content": "Open the page"}]
PNG_URL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
           "nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==")


def ask(client, messages=USER, **kw):
    return client.chat.completions.create(model="gpt-test", messages=messages, **kw)


def test_scripted_text_reply_with_usage():
    replies = ["Thought: open it\nAction: Click [3]", Reply(text="ANSWER; done", prompt_tokens=7, completion_tokens=2)]
    with ModelServer(scripted(replies)) as srv, openai_for(srv) as client:
        first = ask(client, temperature=0.2)
        second = ask(client)
    assert first.object == "chat.completion"
    assert first.model == "gpt-test"  # echoes the requested model
    assert first.choices[0].message.role == "assistant"
    assert first.choices[0].message.content == "Thought: open it\nAction: Click [3]"
    assert first.choices[0].finish_reason == "stop"
    assert first.usage.prompt_tokens == len("Open the page") // 4
    assert first.usage.completion_tokens == len("Thought: open it\nAction: Click [3]") // 4
    assert first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens
    assert second.choices[0].message.content == "ANSWER; done"
    assert (second.usage.prompt_tokens, second.usage.completion_tokens, second.usage.total_tokens) == (7, 2, 9)
    assert srv.requests[0]["temperature"] == 0.2
    assert len(srv.requests) == 2


def test_requests_record_messages_with_an_image():
    messages = [
        {"role": "system", "content": "You are a web agent."},
        {"role": "user", "content": [
            {"type": "text", "text": "Here is the screenshot"},
            {"type": "image_url", "image_url": {"url": PNG_URL}},
        ]},
    ]
    with ModelServer(lambda body: "Action: Scroll [WINDOW]; down") as srv, openai_for(srv) as client:
        reply = ask(client, messages, temperature=0, max_tokens=50)
        sent = srv.requests
    assert reply.choices[0].message.content == "Action: Scroll [WINDOW]; down"
    assert len(sent) == 1
    assert sent[0]["messages"] == messages
    assert sent[0]["messages"][1]["content"][1]["image_url"]["url"] == PNG_URL
    assert sent[0]["temperature"] == 0 and sent[0]["max_tokens"] == 50 and sent[0]["model"] == "gpt-test"
    text_chars = len("You are a web agent.") + len("Here is the screenshot")
    assert reply.usage.prompt_tokens == text_chars // 4 + IMAGE_TOKENS


def test_429_raises_rate_limit_error_with_retry_after():
    with ModelServer([Reply.error(429, "slow down", headers={"Retry-After": "1"})]) as srv, openai_for(srv) as client:
        with pytest.raises(openai.RateLimitError) as err:
            ask(client)
    assert err.value.status_code == 429
    assert err.value.response.headers["retry-after"] == "1"
    assert err.value.body["message"] == "slow down" and err.value.code == "rate_limit_exceeded"
    assert "slow down" in str(err.value)
    assert len(srv.requests) == 1  # max_retries=0: no retry


def test_500_raises_internal_server_error():
    with ModelServer([Reply(status=500)]) as srv, openai_for(srv) as client:
        with pytest.raises(openai.InternalServerError) as err:
            ask(client)
    assert err.value.status_code == 500 and err.value.type == "server_error"


def test_client_timeout_on_a_slow_reply():
    with ModelServer([Reply(text="late", delay=5)]) as srv, openai_for(srv, timeout=0.3) as client:
        t0 = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            ask(client)
        assert time.monotonic() - t0 < 2
        t0 = time.monotonic()
    # Leaving the block stopped the server while its handler was still waiting.
    assert time.monotonic() - t0 < 1


def test_stop_while_a_slow_reply_is_pending_returns_promptly():
    srv = ModelServer([Reply(text="late", delay=30)]).start()
    outcome = {}

    def call():
        with openai_for(srv, timeout=20) as client:
            try:
                outcome["reply"] = ask(client)
            except Exception as e:  # noqa: BLE001 - recorded for the assertion
                outcome["error"] = e

    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    deadline = time.monotonic() + 5
    while not srv.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    assert srv.requests, "the request never reached the server"
    t0 = time.monotonic()
    srv.stop()
    assert time.monotonic() - t0 < 1
    caller.join(timeout=2)
    assert not caller.is_alive()
    # The pending request is dropped unanswered: a connection error, not a reply.
    assert isinstance(outcome.get("error"), openai.APIConnectionError)


def test_a_slow_reply_does_not_block_other_requests():
    def responder(body):
        slow = body["messages"][0]["content"] == "slow"
        return Reply(text="slow done", delay=2) if slow else "fast done"

    def slow_call(url):
        with OpenAI(base_url=url, api_key="test-key", max_retries=0, timeout=0.5) as client:
            with pytest.raises(openai.APITimeoutError):
                ask(client, [{"role": "user", "content": "slow"}])

    with ModelServer(responder) as srv:
        caller = threading.Thread(target=slow_call, args=(srv.base_url,), daemon=True)
        caller.start()
        deadline = time.monotonic() + 5
        while not srv.requests and time.monotonic() < deadline:
            time.sleep(0.01)
        t0 = time.monotonic()
        with openai_for(srv) as client:
            assert ask(client).choices[0].message.content == "fast done"
        assert time.monotonic() - t0 < 1.0  # answered while the slow one still waits
        caller.join(timeout=2)


def test_truncated_json_body_raises_a_json_decode_error_not_an_openai_error():
    # Surprise: openai only wraps schema mismatches; a 200 with an
    # application/json body that is not JSON escapes as json.JSONDecodeError.
    with ModelServer([Reply(body='{"id": "chatcmpl-1", "object": "chat.comp')]) as srv, openai_for(srv) as client:
        with pytest.raises(json.JSONDecodeError) as err:
            ask(client)
    assert not isinstance(err.value, openai.OpenAIError)


def test_invalid_schema_raises_validation_error_in_strict_mode():
    with ModelServer([Reply(body='{"unexpected": true}')], model_name="m") as srv:
        with openai_for(srv, _strict_response_validation=True) as client:
            with pytest.raises(openai.APIResponseValidationError):
                ask(client)


def test_models_list_and_unknown_url():
    with ModelServer(lambda body: "x", model_name="cockpit-demo") as srv, openai_for(srv) as client:
        assert [m.id for m in client.models.list()] == ["cockpit-demo"]
        assert client.models.retrieve("cockpit-demo").id == "cockpit-demo"
        with pytest.raises(openai.NotFoundError) as err:
            client.post("/nowhere", cast_to=object, body={})
        assert err.value.body["message"].startswith("Unknown request URL")
        assert set(err.value.body) >= {"message", "type", "code"}
    assert srv.requests == []  # only chat completions are recorded


def test_streaming_is_refused_with_400_when_the_server_is_made_so():
    with ModelServer(lambda body: "x", streaming="refuse") as srv, openai_for(srv) as client:
        with pytest.raises(openai.BadRequestError) as err:
            ask(client, stream=True)
    assert err.value.param == "stream"
    assert srv.requests[0]["stream"] is True


def test_exhausted_script_is_a_non_retried_500():
    with ModelServer(scripted(["only one"])) as srv:
        with OpenAI(base_url=srv.base_url, api_key="k", max_retries=2) as client:
            ask(client)
            with pytest.raises(openai.InternalServerError, match="exhausted"):
                ask(client)
    assert len(srv.requests) == 2  # x-should-retry: false stopped the client's retries
    assert isinstance(srv.errors[0], ScriptExhausted)


def test_scripted_repeat_last():
    with ModelServer(scripted(["a", "b"], repeat_last=True)) as srv, openai_for(srv) as client:
        assert [ask(client).choices[0].message.content for _ in range(4)] == ["a", "b", "b", "b"]


def test_async_client():
    async def main(url):
        async with AsyncOpenAI(base_url=url, api_key="test-key", max_retries=0) as client:
            return await client.chat.completions.create(model="gpt-test", messages=USER)

    with ModelServer(["async hello"]) as srv:
        reply = asyncio.run(main(srv.base_url))
    assert reply.choices[0].message.content == "async hello"
    assert srv.requests[0]["messages"] == USER
