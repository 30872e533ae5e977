"""ModelClient against the loopback model server (real openai client, real HTTP); API keys: test_apikeys.py."""
import base64
import io
import json
import logging
import socket
import threading
import time

import pytest
from PIL import Image

from cockpit.core.llm.client import (
    ChatResult,
    ModelCancelled,
    ModelClient,
    ModelConfig,
    ModelError,
    estimate_cost,
    prepare_images,
    price_for,
)
from cockpit.core.llm.modelserver import ModelServer, Reply, scripted

USER = [{"role": "user", "content": "Open the page"}]
SECRET = "sk-test-SECRET-0123456789"


def config(srv=None, **kw):
    kw.setdefault("base_url", srv.base_url if srv else None)
    kw.setdefault("backoff", 0.05)
    kw.setdefault("max_retries", 3)
    kw.setdefault("timeout", 5.0)
    return ModelConfig(**kw)


def client(srv=None, api_key="test-key", **kw):
    return ModelClient(config(srv, **kw), api_key=api_key)


def png_data_url(width, height):
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def png_size(url):
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def completion_body(choices, usage=None):
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "gpt-4o", "choices": choices}
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body)


def message_choice(text):
    return [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]


# --------------------------------------------------------------------------- successful calls


def test_plain_reply_with_tokens_and_cost():
    reply = Reply(text="Thought: go\nAction: Click [3]", prompt_tokens=1000, completion_tokens=100)
    with ModelServer([reply]) as srv, client(srv, temperature=0.3, max_tokens=321) as c:
        result = c.chat(USER)
        sent = srv.requests[0]
    assert isinstance(result, ChatResult)
    assert result.text == "Thought: go\nAction: Click [3]"
    assert result.model == "gpt-4o"
    assert (result.prompt_tokens, result.completion_tokens) == (1000, 100)
    assert result.cost == pytest.approx((1000 * 2.5 + 100 * 10) / 1e6)
    assert result.attempts == 1 and result.finish_reason == "stop" and not result.tokens_estimated
    assert 0 < result.seconds < 5
    assert sent["model"] == "gpt-4o" and sent["temperature"] == 0.3 and sent["max_tokens"] == 321
    assert sent["messages"] == USER


def test_missing_usage_is_estimated_and_unknown_price_gives_no_cost():
    body = completion_body(message_choice("x" * 40))
    with ModelServer([Reply(body=body)]) as srv, client(srv, model="llama3") as c:
        result = c.chat(USER)
    assert result.tokens_estimated
    assert result.completion_tokens == 10
    assert result.prompt_tokens == len("Open the page") // 4
    assert result.cost is None


def test_prices_prefix_match_and_overrides():
    assert price_for("gpt-4o-mini-2024-07-18") == (0.15, 0.6)
    assert price_for("gpt-4o-2024-08-06") == (2.5, 10.0)
    assert price_for("gpt-4.1-mini") == (0.4, 1.6)
    assert price_for("qwen2.5-vl") is None
    assert estimate_cost(ModelConfig(model="qwen2.5-vl", price_in=1.0, price_out=2.0), 10**6, 10**6) == 3.0
    assert estimate_cost(ModelConfig(model="gpt-4o", price_in=0.0), 10**6, 10**6) == 10.0


def test_config_roundtrip_ignores_unknown_keys():
    cfg = ModelConfig(base_url="http://localhost:11434/v1", model="llava", image_max_width=800)
    data = cfg.to_dict()
    assert "api_key" not in data
    assert ModelConfig.from_dict({**data, "api_key": "x", "future_field": 1}) == cfg
    assert ModelConfig.from_dict(None) == ModelConfig()


# --------------------------------------------------------------------------- retries


@pytest.mark.fault("model")
def test_429_with_retry_after_is_honoured():
    calls = []
    replies = [Reply.error(429, "slow down", headers={"Retry-After": "1"}), "ok"]
    with ModelServer(replies) as srv, client(srv) as c:
        result = c.chat(USER, on_retry=lambda *a: calls.append(a))
        assert len(srv.requests) == 2
    assert result.text == "ok" and result.attempts == 2
    assert calls == [(1, 1.0, "429")]
    assert 0.95 <= result.seconds < 2.5


@pytest.mark.fault("model")
def test_retry_after_ms_header():
    calls = []
    replies = [Reply.error(503, headers={"retry-after-ms": "200"}), "ok"]
    with ModelServer(replies) as srv, client(srv) as c:
        result = c.chat(USER, on_retry=lambda *a: calls.append(a))
    assert result.attempts == 2
    assert calls == [(1, pytest.approx(0.2), "503")]


@pytest.mark.fault("model")
def test_two_500s_then_success():
    calls = []
    with ModelServer([Reply.error(500), Reply.error(500), "fine"]) as srv, client(srv) as c:
        result = c.chat(USER, on_retry=lambda *a: calls.append(a))
    assert result.text == "fine" and result.attempts == 3
    assert [reason for _, _, reason in calls] == ["500", "500"]
    # backoff 0.05 doubling with +-20 % jitter
    assert 0.04 <= calls[0][1] <= 0.06 and 0.08 <= calls[1][1] <= 0.12


@pytest.mark.fault("model")
def test_persistent_500_gives_up_after_max_retries():
    with ModelServer(scripted([Reply.error(500)], repeat_last=True)) as srv, client(srv, max_retries=4) as c:
        with pytest.raises(ModelError) as info:
            c.chat(USER)
        assert len(srv.requests) == 5
        base = srv.base_url
    err = info.value
    assert str(err).startswith(f"model call failed after 5 attempts: 500 Internal Server Error from {base}")
    assert err.status == 500 and err.attempts == 5


def test_should_retry_false_header_is_final():
    # The scripted responder runs out: the server answers 500 with x-should-retry: false.
    with ModelServer(["one"]) as srv, client(srv) as c:
        c.chat(USER)
        with pytest.raises(ModelError) as info:
            c.chat(USER)
        assert len(srv.requests) == 2
    assert info.value.status == 500 and not info.value.retryable


@pytest.mark.fault("model")
def test_401_is_not_retried_and_never_shows_the_key():
    reply = Reply.error(401, f"Incorrect API key provided: {SECRET}")
    with ModelServer(scripted([reply], repeat_last=True)) as srv, client(srv, api_key=SECRET) as c:
        with pytest.raises(ModelError) as info:
            c.chat(USER)
        assert len(srv.requests) == 1
    err = info.value
    assert "rejected the API key (401)" in str(err)
    assert err.status == 401 and not err.retryable
    assert SECRET not in str(err) and SECRET not in repr(err) and "***" in str(err)
    assert err.__cause__ is None and err.__context__ is None


@pytest.mark.fault("model")
def test_key_never_in_final_error_or_logs(caplog):
    caplog.set_level(logging.DEBUG, logger="cockpit")
    reply = Reply.error(502, f"upstream saw key {SECRET}")
    with ModelServer(scripted([reply], repeat_last=True)) as srv, client(srv, api_key=SECRET, max_retries=1) as c:
        with pytest.raises(ModelError) as info:
            c.chat(USER)
        assert SECRET not in repr(c)
    assert "after 2 attempts" in str(info.value)
    assert SECRET not in str(info.value)
    assert all(SECRET not in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("status, words", [(400, "400 Bad Request"), (403, "access denied (403)"),
                                           (404, "model 'gpt-4o' not found"), (422, "422 Unprocessable")])
def test_client_errors_fail_at_once(status, words):
    with ModelServer(scripted([Reply.error(status, "nope")], repeat_last=True)) as srv, client(srv) as c:
        with pytest.raises(ModelError) as info:
            c.chat(USER)
        assert len(srv.requests) == 1
    assert words in str(info.value) and "nope" in str(info.value)
    assert info.value.status == status and not info.value.retryable


def test_insufficient_quota_429_is_final():
    reply = Reply(text=None, status=429, body=json.dumps({"error": {
        "message": "You exceeded your current quota", "type": "insufficient_quota",
        "code": "insufficient_quota", "param": None}}))
    with ModelServer(scripted([reply], repeat_last=True)) as srv, client(srv) as c:
        with pytest.raises(ModelError, match="no quota left"):
            c.chat(USER)
        assert len(srv.requests) == 1


@pytest.mark.fault("model")
def test_timeout_is_retried_then_fails():
    slow = Reply(text="late", delay=3)
    start = time.monotonic()
    with ModelServer(scripted([slow], repeat_last=True)) as srv, client(srv, timeout=0.3, max_retries=1) as c:
        with pytest.raises(ModelError) as info:
            c.chat(USER)
        assert len(srv.requests) == 2
    assert time.monotonic() - start < 2.5
    assert info.value.reason == "timeout"
    assert "after 2 attempts" in str(info.value) and "timeout" in str(info.value)


@pytest.mark.fault("model")
def test_connection_refused():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    calls = []
    with ModelClient(config(base_url=url, max_retries=2), api_key="k") as c:
        with pytest.raises(ModelError) as info:
            c.chat(USER, on_retry=lambda *a: calls.append(a))
    assert info.value.reason == "connection" and info.value.status is None
    assert "could not connect" in str(info.value) and url in str(info.value)
    assert "after 3 attempts" in str(info.value) and len(calls) == 2


@pytest.mark.fault("model")
def test_truncated_json_is_retried():
    with ModelServer([Reply(body='{"id": "x", "choi'), "recovered"]) as srv, client(srv) as c:
        result = c.chat(USER)
    assert result.text == "recovered" and result.attempts == 2


@pytest.mark.fault("model")
def test_persistently_truncated_json_fails():
    bad = Reply(body='{"id": "x", "choi')
    with ModelServer(scripted([bad], repeat_last=True)) as srv, client(srv, max_retries=1) as c:
        with pytest.raises(ModelError) as info:
            c.chat(USER)
    assert info.value.reason == "invalid-json" and "malformed JSON" in str(info.value)


@pytest.mark.fault("model")
def test_non_json_reply_points_at_the_base_url():
    html = Reply(body="<html>LM Studio</html>", content_type="text/html")
    with ModelServer(scripted([html], repeat_last=True)) as srv, client(srv) as c:
        with pytest.raises(ModelError) as info:
            c.chat(USER)
        assert len(srv.requests) == 1
    assert info.value.reason == "not-json" and "text/html" in str(info.value) and "/v1" in str(info.value)


@pytest.mark.fault("model")
@pytest.mark.parametrize("reply", [Reply(text=""), Reply(text=None), Reply(text="  \n")])
def test_empty_content_is_an_error_not_retried(reply):
    with ModelServer(scripted([reply], repeat_last=True)) as srv, client(srv) as c:
        with pytest.raises(ModelError) as info:
            c.chat(USER)
        assert len(srv.requests) == 1
    assert "empty reply" in str(info.value)
    assert info.value.reason == "empty-reply" and not info.value.retryable


def test_empty_reply_cut_by_length_hints_at_max_tokens():
    with ModelServer([Reply(text="", finish_reason="length")]) as srv, client(srv, max_tokens=5) as c:
        with pytest.raises(ModelError, match="max_tokens=5"):
            c.chat(USER)


@pytest.mark.fault("model")
def test_no_choices():
    with ModelServer([Reply(body=completion_body([]))]) as srv, client(srv) as c:
        with pytest.raises(ModelError, match="no choices") as info:
            c.chat(USER)
    assert not info.value.retryable


# --------------------------------------------------------------------------- cancellation


def cancel_after(seconds):
    event = threading.Event()
    stamp = {}

    def fire():
        stamp["at"] = time.monotonic()
        event.set()

    timer = threading.Timer(seconds, fire)
    timer.start()
    return event, stamp


def test_cancel_during_slow_reply_returns_promptly():
    with ModelServer([Reply(text="too late", delay=10)]) as srv, client(srv, timeout=30) as c:
        cancel, stamp = cancel_after(0.3)
        with pytest.raises(ModelCancelled):
            c.chat(USER, cancel=cancel)
        assert time.monotonic() - stamp["at"] < 0.5
        assert len(srv.requests) == 1


def test_cancel_during_backoff():
    replies = [Reply.error(429, headers={"Retry-After": "30"}), "never"]
    cancel = threading.Event()
    stamp = {}

    def on_retry(attempt, wait, reason):
        assert (attempt, wait, reason) == (1, 30.0, "429")
        threading.Timer(0.2, lambda: (stamp.setdefault("at", time.monotonic()), cancel.set())).start()

    with ModelServer(replies) as srv, client(srv) as c:
        with pytest.raises(ModelCancelled):
            c.chat(USER, cancel=cancel, on_retry=on_retry)
        assert time.monotonic() - stamp["at"] < 0.5
        assert len(srv.requests) == 1


def test_already_cancelled_sends_nothing():
    cancel = threading.Event()
    cancel.set()
    with ModelServer(["x"]) as srv, client(srv) as c:
        with pytest.raises(ModelCancelled):
            c.chat(USER, cancel=cancel)
        assert srv.requests == []


# --------------------------------------------------------------------------- images


def image_messages(url):
    return [{"role": "user", "content": [
        {"type": "text", "text": "Here is the page"},
        {"type": "image_url", "image_url": {"url": url}},
    ]}]


def test_prepare_images_downscales_and_sets_detail():
    url = png_data_url(1024, 768)
    messages = image_messages(url)
    out = prepare_images(messages, ModelConfig(image_detail="low", image_max_width=512))
    part = out[0]["content"][1]["image_url"]
    assert part["detail"] == "low"
    assert png_size(part["url"]) == (512, 384)
    assert messages == image_messages(url)  # input untouched


def test_prepare_images_leaves_small_and_foreign_images_alone():
    small = png_data_url(300, 200)
    placeholder = "data:image/png;base64,{b64_img}"
    remote = "https://example.org/shot.png"
    msgs = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": u}}
                                         for u in (small, placeholder, remote)]},
            {"role": "assistant", "content": "Thought: x"}]
    out = prepare_images(msgs, ModelConfig(image_detail="high", image_max_width=512, image_format="png"))
    parts = [p["image_url"] for p in out[0]["content"]]
    assert [p["url"] for p in parts] == [small, placeholder, remote]
    assert {p["detail"] for p in parts} == {"high"}
    assert out[1] == msgs[1]


def test_prepare_images_sends_the_configured_format():
    png = png_data_url(300, 200)
    out = prepare_images(image_messages(png), ModelConfig())  # JPEG by default
    url = out[0]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,") and png_size(url) == (300, 200)
    # A JPEG already is sent byte for byte; as PNG it is converted back.
    assert prepare_images(out, ModelConfig())[0]["content"][1]["image_url"]["url"] == url
    back = prepare_images(out, ModelConfig(image_format="png"))[0]["content"][1]["image_url"]["url"]
    assert back.startswith("data:image/png;base64,") and png_size(back) == (300, 200)
    # Downscaling keeps the format asked for.
    big = prepare_images(image_messages(png_data_url(1024, 768)), ModelConfig(image_max_width=512))
    url = big[0]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,") and png_size(url) == (512, 384)


def test_chat_sends_prepared_images():
    with ModelServer(["seen"]) as srv, client(srv, image_max_width=640, image_detail="low") as c:
        c.chat(image_messages(png_data_url(1024, 768)))
        sent = srv.requests[0]["messages"][0]["content"][1]["image_url"]
    assert sent["detail"] == "low" and png_size(sent["url"]) == (640, 480)


# --------------------------------------------------------------------------- models list


def test_list_models():
    with ModelServer(["x"], model_name="qwen2.5-vl-7b") as srv, client(srv) as c:
        assert c.list_models() == ["qwen2.5-vl-7b"]


def test_list_models_in_the_server_s_order():
    """Walkthrough 4: List models picked the alphabetically first model; the server's first is the one it serves."""
    with ModelServer(["x"], model_name="zeta-vl-72b", also_listed=["alpha-embed", "mid-7b"]) as srv, client(srv) as c:
        assert c.list_models() == ["zeta-vl-72b", "alpha-embed", "mid-7b"]


def test_list_models_wrong_base_url():
    with ModelServer(["x"]) as srv:
        wrong = srv.base_url[: -len("/v1")]
        with ModelClient(config(base_url=wrong), api_key="k") as c:
            with pytest.raises(ModelError, match="404") as info:
                c.list_models()
    assert "base URL" in str(info.value)
