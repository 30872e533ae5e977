"""The model client streams a reply when its caller watches (on_delta), through the real openai client: the
reply so far reaches the caller's thread as it comes; the request and the result are those of a call that does
not stream; servers that do not stream are used as they are; retries, cancelling and usage still work."""
import threading
import time

import pytest

from cockpit.core.llm.client import ModelCancelled, ModelError
from cockpit.core.llm.modelserver import ModelServer, Reply, scripted
from tests.models import model_client

USER = [{"role": "system", "content": "You are a web agent."}, {"role": "user", "content": "Open the page"}]
TEXT = "Thought: the search box is at the top, I will use it.\nAction: Type [3]; wireless headphones"
CALLS = [{"id": "call_7", "type": "function",
          "function": {"name": "computer_use", "arguments": '{"action": "left_click", "coordinate": [600, 475]}'}}]
OUTPUT = [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Order is below."}]},
          {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
           "action": {"type": "click", "button": "left", "x": 10, "y": 20}, "pending_safety_checks": []}]
STREAM_KEYS = {"stream", "stream_options"}


def without_stream(body: dict) -> dict:
    return {k: v for k, v in body.items() if k not in STREAM_KEYS}


def same_result(a, b) -> None:
    assert (a.text, a.tool_calls, a.output, a.finish_reason, a.model) == (b.text, b.tool_calls, b.output,
                                                                         b.finish_reason, b.model)
    assert (a.prompt_tokens, a.completion_tokens, a.tokens_estimated, a.cost) == (
        b.prompt_tokens, b.completion_tokens, b.tokens_estimated, b.cost)


def test_a_text_reply_streams_to_the_callers_thread_and_ends_as_the_same_result():
    with ModelServer(lambda b: Reply(text=TEXT, token_delay=0.03)) as srv, model_client(srv) as client:
        seen, threads = [], set()
        streamed = client.chat(USER, on_delta=lambda p: (seen.append(p), threads.add(threading.get_ident())))
        plain = client.chat(USER)
        sent = srv.requests
    same_result(streamed, plain)
    assert threads == {threading.get_ident()}  # on_delta ran on the caller's thread, never the request's
    thoughts = [p.preview()[0] for p in seen]
    assert any(t and not p.preview()[1] for t, p in zip(thoughts, seen))  # the thought came before the action
    assert seen[-1].preview() == ("the search box is at the top, I will use it.", "Type [3]; wireless headphones")
    assert [p.pieces for p in seen] == sorted(p.pieces for p in seen)
    assert seen[-1].tokens_per_second is not None and seen[-1].first is not None
    # the same request, asked to stream (with the usage), and nothing else different
    assert sent[0]["stream"] is True and sent[0]["stream_options"] == {"include_usage": True}
    assert without_stream(sent[0]) == sent[1] and STREAM_KEYS.isdisjoint(sent[1])
    assert streamed.prompt_tokens > 0 and not streamed.tokens_estimated and client.streams is True


def test_tool_call_arguments_arriving_as_deltas_end_as_the_same_tool_calls():
    with ModelServer(lambda b: Reply(text="", tool_calls=CALLS, token_delay=0.03)) as srv, \
            model_client(srv) as client:
        seen = []
        streamed = client.chat(USER, tools=[{"type": "function", "function": {"name": "computer_use"}}],
                               on_delta=seen.append)
        plain = client.chat(USER, tools=[{"type": "function", "function": {"name": "computer_use"}}])
    same_result(streamed, plain)
    assert streamed.tool_calls == CALLS
    actions = [p.preview()[1] for p in seen]
    assert actions[-1] == 'computer_use({"action": "left_click", "coordinate": [600, 475]})'
    assert any(a.startswith("computer_use(") and a != actions[-1] for a in actions)  # arguments seen growing


def test_the_responses_api_streams_its_events_and_ends_as_the_same_result():
    with ModelServer(lambda b: Reply(output=OUTPUT, token_delay=0.02)) as srv, model_client(srv) as client:
        seen = []
        streamed = client.respond({"input": "hi", "tools": []}, on_delta=seen.append)
        plain = client.respond({"input": "hi", "tools": []})
        sent = srv.requests
    same_result(streamed, plain)
    assert streamed.response_id and streamed.response_id != plain.response_id  # each response its own id
    assert seen[-1].preview() == ("Order is below.", 'click {"button": "left", "x": 10, "y": 20}')
    assert without_stream(sent[0]) == sent[1]


def test_a_server_that_refuses_to_stream_is_asked_again_at_once_and_never_asked_to_stream_again():
    with ModelServer(lambda b: TEXT, streaming="refuse") as srv, model_client(srv) as client:
        first = client.chat(USER, on_delta=lambda p: None)
        second = client.chat(USER, on_delta=lambda p: None)
        sent = srv.requests
    assert first.text == second.text == TEXT and first.attempts == 1
    assert [b.get("stream") for b in sent] == [True, None, None]
    assert without_stream(sent[0]) == sent[1] == sent[2] and client.streams is False


def test_a_server_that_answers_a_stream_request_with_plain_json_is_read_as_it_is():
    with ModelServer(lambda b: TEXT, streaming="plain") as srv, model_client(srv) as client:
        seen = []
        result = client.chat(USER, on_delta=seen.append)
    assert result.text == TEXT and len(srv.requests) == 1 and not result.tokens_estimated
    assert all(p.pieces == 0 for p in seen)


def test_a_streamed_request_answered_with_a_web_page_is_a_wrong_base_url():
    with ModelServer(lambda b: Reply(body="<html>hi</html>", content_type="text/html")) as srv, \
            model_client(srv) as client:
        with pytest.raises(ModelError, match="instead of JSON; is the base URL right") as err:
            client.chat(USER, on_delta=lambda p: None)
    assert err.value.reason == "not-json"


@pytest.mark.parametrize("body, says", [
    ("OK", "answered with text/plain instead of JSON; is the base URL right"),
    ("<html><title>Sign in</title><body>Sign in to the proxy</body></html>", "HTML page, not the API (Sign in)")])
def test_a_body_that_is_not_json_is_told_the_same_streamed_or_not(body, says):
    """Asked with and without streaming, a server that answers with something else gets one message, its status
    kept."""
    errors = []
    with ModelServer(lambda b: Reply(body=body, content_type="text/plain" if body == "OK" else "text/html")) \
            as srv, model_client(srv) as client:
        for on_delta in (None, lambda p: None):
            with pytest.raises(ModelError, match=says.replace("(", r"\(").replace(")", r"\)")) as err:
                client.chat(USER, on_delta=on_delta)
            errors.append(err.value)
    first, streamed = errors
    assert str(first) == str(streamed) and first.reason == streamed.reason == "not-json"
    assert first.status == streamed.status == 200


def test_retries_still_work_a_500_and_a_stream_broken_off_are_asked_again_and_the_preview_restarts():
    script = [Reply.error(500), Reply(text=TEXT, cut_after=6), Reply(text=TEXT, prompt_tokens=50, completion_tokens=20)]
    with ModelServer(scripted(script)) as srv, model_client(srv, max_retries=3, backoff=0.05) as client:
        seen, retries = [], []
        result = client.chat(USER, on_delta=seen.append, on_retry=lambda a, w, why: retries.append((a, why)))
    assert retries == [(1, "500"), (2, "truncated-stream")]
    assert result.text == TEXT and result.attempts == 3 and (result.prompt_tokens, result.completion_tokens) == (50, 20)
    assert len(srv.requests) == 3 and all(b["stream"] for b in srv.requests)
    last = [p for p in seen if p.attempt == seen[-1].attempt]
    assert last[0].pieces <= last[-1].pieces and seen[-1].preview()[1] == "Type [3]; wireless headphones"


def test_stop_during_a_reply_cancels_the_request_and_the_server_sees_it_hang_up():
    long = "Thought: " + "I am still thinking about it. " * 300 + "\nAction: Wait"
    with ModelServer(lambda b: Reply(text=long, token_delay=0.02)) as srv, model_client(srv) as client:
        cancel, seen = threading.Event(), []

        def watch(p):
            seen.append(p)
            if p.pieces >= 10:
                cancel.set()
        with pytest.raises(ModelCancelled):
            client.chat(USER, on_delta=watch, cancel=cancel)
        assert seen[-1].pieces < 100  # it did not read on to the end
        for _ in range(100):
            if srv.abandoned:
                break
            time.sleep(0.05)
        assert srv.abandoned == 1


def test_an_empty_streamed_reply_is_an_empty_reply_with_its_usage():
    with ModelServer(lambda b: Reply(text="", finish_reason="length", prompt_tokens=30, completion_tokens=0)) as srv, \
            model_client(srv, max_tokens=5) as client:
        with pytest.raises(ModelError, match="max_tokens=5 may be too small") as err:
            client.chat(USER, on_delta=lambda p: None)
    assert err.value.reason == "empty-reply" and err.value.result.prompt_tokens == 30


def test_a_caller_that_does_not_watch_sends_todays_request():
    with ModelServer(lambda b: TEXT) as srv, model_client(srv) as client:
        client.chat(USER)
    assert STREAM_KEYS.isdisjoint(srv.requests[0]) and client.streams is None
