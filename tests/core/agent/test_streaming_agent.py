"""Replies streamed into the run (issue #38): real Chromium, real store, the real openai client streaming from
the scripted server. What the server received and what the store holds are the same, streamed or not (a server
that refuses to stream gets today's requests); the run announces the thought as it is written, then the action;
a secret typed into a password field never shows; Stop during a reply ends the run and hangs up on the server."""
import json
import re
import threading

from cockpit.core.agent import events as ev
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.page import images
from testkit.pixelmodel import Move, PixelModel
from tests.models import by_page, mark_for, model_client

STORED = ("reply", "thought", "action_text", "action", "request", "prompt_tokens", "completion_tokens", "status",
          "outcome", "error", "target", "url", "url_after")


def paced(responder, delay=0.02):
    """The responder's replies, streamed a piece every `delay` seconds when asked to stream."""
    def respond(body):
        reply = responder(body)
        return Reply(text=reply, token_delay=delay) if isinstance(reply, str) else reply
    return respond


def marks_responder():
    return by_page({
        "Agent start": lambda b: ("Thought: the number I need is behind the details link, so I open it.\n"
                                  f"Action: Click [{mark_for(b, 'details page')}]"),
        "Details": "Thought: the page shows the secret number 4217.\nAction: ANSWER; 4217",
    })


IMAGE = re.compile(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+")


def sent(server, skip_refused=False) -> list[str]:
    """What the server received, as JSON text, without the two streaming parameters (and the refused request),
    screenshots as <image>: the second run's page differs by a visited link's colour (images_sent_are_stored checks them)."""
    bodies = server.requests[1:] if skip_refused else server.requests
    return [IMAGE.sub("<image>", json.dumps({k: v for k, v in b.items() if k not in ("stream", "stream_options")}))
            for b in bodies]


def images_sent_are_stored(server, store, run_id) -> None:
    """Each request's newest screenshot is its step's stored screenshot, encoded for the model."""
    steps = store.steps(run_id)
    for body, step in zip(server.requests[-len(steps):], steps):
        urls = IMAGE.findall(json.dumps(body))
        assert urls[-1] == images.data_url(images.for_model(store.file(step["screenshot"]).read_bytes(), "jpeg"))


def stored_steps(store, run_id) -> list[str]:
    return [json.dumps({k: s[k] for k in STORED}, sort_keys=True) for s in store.steps(run_id)]


def test_a_streamed_run_sends_and_stores_what_a_run_without_streaming_does(agent_for, store, site):
    runs = {}
    for mode in ("sse", "refuse"):
        with ModelServer(paced(marks_responder()), streaming=mode) as srv:
            agent = agent_for(srv)
            result = agent.run(Fresh("Find the secret number", site.url("agent_start.html")))
            runs[mode] = (result, srv, agent.events)
    (streamed, s_srv, s_events), (plain, p_srv, p_events) = runs["sse"], runs["refuse"]
    assert streamed.status == plain.status == "answered" and streamed.answer == "4217"
    assert all(b["stream"] is True and b["stream_options"] == {"include_usage": True} for b in s_srv.requests)
    assert p_srv.requests[0]["stream"] is True and all("stream" not in b for b in p_srv.requests[1:])
    assert sent(s_srv) == sent(p_srv, skip_refused=True)  # the exact requests, byte for byte
    assert stored_steps(store, streamed.run_id) == stored_steps(store, plain.run_id)  # the stored reply, request, tokens
    images_sent_are_stored(s_srv, store, streamed.run_id)
    images_sent_are_stored(p_srv, store, plain.run_id)
    assert store.steps(streamed.run_id)[0]["prompt_tokens"] > 0  # the usage came with the stream
    assert not [e for e in p_events if isinstance(e, ev.ModelStreaming) and e.tokens]  # nothing streamed there

    # the thought came as it was written, then the action, step by step, with a rate
    live = [e for e in s_events if isinstance(e, ev.ModelStreaming) and e.step == 1 and e.tokens]
    assert len(live) >= 3
    assert any(e.thought and not e.action for e in live)
    assert [len(e.thought) for e in live] == sorted(len(e.thought) for e in live)
    assert live[-1].thought == "the number I need is behind the details link, so I open it."
    assert live[-1].action.startswith("Click [") and live[-1].tokens_per_second
    kinds = [type(e).__name__ for e in s_events]
    assert kinds.index("ModelStreaming") < kinds.index("ModelReplied")


def test_tool_call_and_responses_api_runs_stream_and_store_the_same(browser, store, site):
    def run(dialect, mode):
        model = PixelModel(browser, [Move("click", "#press"), Move("answer", text="reserved")], dialect)
        with ModelServer(paced(model, 0.005), streaming=mode) as srv, \
                model_client(srv, model="pixel-test", timeout=20, dialect=dialect, image_format="png") as client:
            events = []
            agent = Agent(browser, client, store, listener=events.append, config=AgentConfig(max_steps=3))
            result = agent.run(Fresh("reserve", site.url("pixel_shop.html")))
        return result, srv, events

    def same(text):  # ids the scripted model draws at random for each reply (call_…, cu_…, resp_…)
        return re.sub(r"\b(call|cu|rs|msg|resp|cu_sc)_[0-9a-f]+", r"\1_ID", text)

    for dialect in ("openai_tools", "openai_computer"):
        (streamed, s_srv, s_events), (plain, p_srv, _) = run(dialect, "sse"), run(dialect, "refuse")
        assert streamed.status == plain.status == "answered", dialect
        assert [same(x) for x in sent(s_srv)] == [same(x) for x in sent(p_srv, skip_refused=True)], dialect
        assert [same(x) for x in stored_steps(store, streamed.run_id)] == [same(x) for x in stored_steps(store, plain.run_id)]
        live = [e for e in s_events if isinstance(e, ev.ModelStreaming) and e.step == 1 and e.action]
        assert live, dialect
        want = "click(" if dialect == "openai_tools" else "click {"
        assert live[-1].action.startswith(want), (dialect, live[-1].action)


def test_a_password_typed_by_the_model_never_shows_while_it_streams(agent_for, store, site):
    secret = "hunter2-correct-horse"
    responder = by_page({"Sign in to pay": [
        lambda b: f"Thought: I fill in the password field.\nAction: Type [{mark_for(b, 'Password')}]; {secret}",
        "Thought: done.\nAction: ANSWER; signed in"]})
    with ModelServer(paced(responder, 0.02)) as srv:
        agent = agent_for(srv)
        result = agent.run(Fresh("Sign in", site.url("secret_login.html")))
    assert result.status == "answered"
    live = [e for e in agent.events if isinstance(e, ev.ModelStreaming) and e.step == 1]
    assert any(e.action.startswith("Type [") for e in live)
    pieces = [secret[:k] for k in range(4, len(secret) + 1)]
    assert not [e for e in live if any(p in e.thought + e.action for p in pieces)]
    assert live[-1].action.endswith("(secret)")
    assert all(e.thought_held and not e.thought for e in live)  # the window says why it shows no thought


def test_stop_during_a_reply_ends_the_run_and_hangs_up_on_the_server(agent_for, store, site):
    long = "Thought: " + "Let me look at every link on this page once more. " * 200 + "\nAction: Wait"
    control = RunControl()
    seen = []

    def listener(e):
        seen.append(e)
        if isinstance(e, ev.ModelStreaming) and e.tokens >= 10:
            control.stop()
    with ModelServer(lambda b: Reply(text=long, token_delay=0.02)) as srv:
        agent = agent_for(srv, control=control, listener=listener)
        result = agent.run(Fresh("Look around", site.url("agent_start.html")))
        gone = threading.Event()
        for _ in range(100):
            if srv.abandoned:
                break
            gone.wait(0.05)
        assert srv.abandoned == 1
    assert result.status == "stopped"
    streamed = [e.tokens for e in seen if isinstance(e, ev.ModelStreaming)]
    assert max(streamed) < 200  # stopped well before the reply's ~1,000 pieces
    step = store.steps(result.run_id)[0]
    assert step["status"] == "stopped"
    # what the model had written is kept, marked as cut off, its pieces counted (#38 B2)
    kept, tokens = step["reply"], max(streamed)
    assert kept.startswith("Thought: Let me look at every link")
    assert kept.rstrip().endswith("the model had not finished this reply]") and "cut off by Stop" in kept
    assert step["completion_tokens"] >= tokens >= 10
    assert step["thought"].startswith("Let me look at every link")


def test_a_reply_stop_cut_off_on_a_page_with_a_password_field_keeps_no_secret(agent_for, store, site):
    secret = "hunter2-correct-horse"
    text = (f"Thought: the password is {secret}, I type it into the field now. " + "Still thinking. " * 100
            + "\nAction: Wait")
    control = RunControl()

    def listener(e):
        if isinstance(e, ev.ModelStreaming) and e.tokens >= 30:
            control.stop()
    with ModelServer(lambda b: Reply(text=text, token_delay=0.02)) as srv:
        agent = agent_for(srv, control=control, listener=listener)
        result = agent.run(Fresh("Sign in", site.url("secret_login.html")))
    assert result.status == "stopped"
    step = store.steps(result.run_id)[0]
    assert "cut off by Stop" in step["reply"] and step["completion_tokens"] >= 30
    assert "not kept: this page has a secret field" in step["reply"]
    pieces = [secret[:k] for k in range(4, len(secret) + 1)]
    assert not [p for p in pieces if p in json.dumps(store.steps(result.run_id))]


def test_an_html_page_sent_as_the_reply_is_named_with_its_start_and_each_retry_says_why(browser, store, site):
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway from proxy</h1></body></html>"
    with ModelServer(lambda b: Reply(body=page, content_type="text/event-stream")) as srv, \
            model_client(srv, model="test-model", max_retries=2, backoff=0.05) as client:
        events = []
        agent = Agent(browser, client, store, listener=events.append, config=AgentConfig(max_steps=2))
        result = agent.run(Fresh("Look around", site.url("agent_start.html")))
    assert result.status == "failed"
    said = "answered with an HTML page, not the API (502 Bad Gateway)"
    assert said in result.error and '"502 Bad Gateway from proxy"' in result.error
    assert "stream closed early" not in result.error
    step = store.steps(result.run_id)[0]
    assert said in step["error"] and step["status"] == "failed"
    notes = [e.note for e in events if isinstance(e, ev.ModelCalled) and e.note]
    assert len(notes) == 2 and all("an HTML page, not the API: 502 Bad Gateway" in n for n in notes)
