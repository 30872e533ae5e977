"""The loopback model server streams as OpenAI-compatible servers do: chat chunks (text and tool-call deltas),
Responses API events, and the ways servers fail to (a refusal, a plain body, a stream broken off)."""
import json
import threading
import urllib.request

import openai
import pytest

from cockpit.core.llm.modelserver import ModelServer, Reply
from tests.models import openai_for

USER = [{"role": "user", "content": "Open the page"}]
TEXT = "Thought: the search box is at the top.\nAction: Type [3]; headphones"
CALLS = [{"id": "call_7", "type": "function",
          "function": {"name": "computer_use", "arguments": '{"action": "left_click", "coordinate": [600, 475]}'}}]


def raw_post(server, path, body) -> tuple[str, str]:
    """(content type, body text) of a POST, read off the wire."""
    req = urllib.request.Request(server.base_url + path, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.headers["Content-Type"], resp.read().decode()


def test_a_chat_reply_streams_as_chunks_that_join_to_the_same_text_and_usage():
    with ModelServer(lambda b: Reply(text=TEXT, prompt_tokens=11, completion_tokens=9)) as srv, \
            openai_for(srv) as client:
        chunks = list(client.chat.completions.create(model="m", messages=USER, stream=True,
                                                     stream_options={"include_usage": True}))
        whole = client.chat.completions.create(model="m", messages=USER)
    assert chunks[0].choices[0].delta.role == "assistant"
    texts = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(texts) > 10 and "".join(texts) == TEXT == whole.choices[0].message.content
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == [] and (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens) == (11, 9)
    assert all(c.usage is None for c in chunks[:-1])
    assert len({c.id for c in chunks}) == 1 and chunks[0].object == "chat.completion.chunk"


def test_the_wire_is_server_sent_events_ending_with_done_and_no_usage_unless_asked():
    with ModelServer(lambda b: TEXT) as srv:
        ctype, body = raw_post(srv, "/chat/completions", {"model": "m", "messages": USER, "stream": True})
    assert ctype.startswith("text/event-stream")
    events = [e for e in body.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events) and events[-1] == "data: [DONE]"
    chunks = [json.loads(e[len("data: "):]) for e in events[:-1]]
    assert all("usage" not in c for c in chunks) and chunks[-1]["choices"][0]["delta"] == {}


def test_tool_calls_stream_as_deltas_opened_by_id_and_name_then_arguments_in_pieces():
    with ModelServer(lambda b: Reply(text="", tool_calls=CALLS)) as srv, openai_for(srv) as client:
        chunks = list(client.chat.completions.create(model="m", messages=USER, stream=True))
    deltas = [tc for c in chunks for tc in (c.choices[0].delta.tool_calls or [])]
    first, rest = deltas[0], deltas[1:]
    assert (first.index, first.id, first.type, first.function.name, first.function.arguments) == (
        0, "call_7", "function", "computer_use", "")
    assert len(rest) > 3 and all(d.id is None and d.function.name is None for d in rest)
    assert "".join(d.function.arguments for d in rest) == CALLS[0]["function"]["arguments"]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_responses_api_streams_its_events_and_completes_with_the_whole_response():
    output = [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "The button."}]},
              {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
               "action": {"type": "click", "button": "left", "x": 10, "y": 20}, "pending_safety_checks": []}]
    with ModelServer(lambda b: Reply(output=output)) as srv, openai_for(srv) as client:
        events = list(client.responses.create(model="m", input="hi", stream=True))
        whole = client.responses.create(model="m", input="hi")
    kinds = [e.type for e in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "".join(e.delta for e in events if e.type == "response.reasoning_summary_text.delta") == "The button."
    assert [e.sequence_number for e in events] == list(range(len(events)))
    done = [e.item.model_dump(exclude_none=True) for e in events if e.type == "response.output_item.done"]
    final = events[-1].response
    assert [o.model_dump(exclude_none=True) for o in final.output] == done \
        == [o.model_dump(exclude_none=True) for o in whole.output]


def test_a_server_made_to_answer_plainly_sends_the_whole_reply_as_json():
    with ModelServer(lambda b: TEXT, streaming="plain") as srv:
        ctype, body = raw_post(srv, "/chat/completions", {"model": "m", "messages": USER, "stream": True})
    assert ctype == "application/json" and json.loads(body)["choices"][0]["message"]["content"] == TEXT


def test_a_refusing_server_answers_400_naming_the_stream_parameter():
    with ModelServer(lambda b: TEXT, streaming="refuse") as srv, openai_for(srv) as client:
        with pytest.raises(openai.BadRequestError) as err:
            client.chat.completions.create(model="m", messages=USER, stream=True)
        assert client.chat.completions.create(model="m", messages=USER).choices[0].message.content == TEXT
    assert err.value.param == "stream"
    with pytest.raises(ValueError):
        ModelServer(lambda b: TEXT, streaming="sometimes")


def test_a_stream_cut_off_ends_without_done():
    with ModelServer(lambda b: Reply(text=TEXT, cut_after=3)) as srv:
        _, body = raw_post(srv, "/chat/completions", {"model": "m", "messages": USER, "stream": True})
    events = [e for e in body.split("\n\n") if e]
    assert len(events) == 3 and "[DONE]" not in body


def test_a_client_hanging_up_mid_stream_is_counted_as_abandoned():
    with ModelServer(lambda b: Reply(text="word " * 400, token_delay=0.01)) as srv, openai_for(srv) as client:
        stream = client.chat.completions.create(model="m", messages=USER, stream=True)
        for i, _ in enumerate(stream):
            if i == 5:
                break
        stream.close()
        gone = threading.Event()
        for _ in range(100):  # the server notices at its next writes
            if srv.abandoned:
                break
            gone.wait(0.05)
        assert srv.abandoned == 1
