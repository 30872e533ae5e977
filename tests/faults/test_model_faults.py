"""Fault suite, model server: whole agent runs (real Chromium, real store, real openai client)
against a model server that misbehaves, and what the user then sees and finds recorded.

Every run here asks the model about the fixture page ``agent_start.html``. Successful replies
report fixed token counts (PROMPT/COMPLETION), so a total that counted a retried call twice,
or a failed one at all, shows.

Decisions tested here: an empty reply is not retried; like a reply with no Action it is a format
error that costs a step, and the tokens of the call still count. A very long reply (200 KB) is
stored whole, byte for byte (the record is what the model said); the conversation sent back keeps
it whole, as WebVoyager does; only displays clip it (`cockpit runs RUN` after 2000 characters, saying
how many more; the terminal progress line after 90).
"""
import json
import os
import subprocess
import sys

import pytest

from cockpit.core.agent import events as ev
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm import prompt
from cockpit.core.llm.modelserver import ModelServer, Reply, scripted
from cockpit.core.store import Store
from tests.clitools import free_port
from tests.models import model_client

pytestmark = pytest.mark.fault("model")

PROMPT, COMPLETION = 1000, 20
SCROLL = "Thought: the answer may be further down.\nAction: Scroll [WINDOW]; down"
ANSWER = "Thought: found it.\nAction: ANSWER; bottom"
TRUNCATED = ('{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m", '
             '"choices": [{"index": 0, "message": {"role": "assistant", "content": "Thought: cut')


def ok_reply(text: str) -> Reply:
    return Reply(text=text, prompt_tokens=PROMPT, completion_tokens=COMPLETION)


@pytest.fixture
def run_agent(browser, site, store):
    """run_agent(base_url, **model_config) -> (RunResult, events): one task on agent_start.html."""
    clients = []

    def run(base_url, *, max_steps=6, **model_kw):
        model_kw = {"max_retries": 3, "backoff": 0.05, "backoff_cap": 0.2, "timeout": 20, **model_kw}
        client = model_client(base_url, model="fault-model", **model_kw)
        clients.append(client)
        events = []
        agent = Agent(browser, client, store, config=AgentConfig(max_steps=max_steps, wait_seconds=0.2),
                      listener=events.append)
        return agent.run(Fresh("What is at the bottom of the start page?", site.url("agent_start.html"))), events
    yield run
    for c in clients:
        c.close()


def assert_recorded_once(store, run_id, n_steps, successful_calls):
    """Steps 1..n each recorded once; tokens of exactly the successful calls; totals agree."""
    rows = store.db.execute("SELECT step, COUNT(*) FROM steps WHERE run_id = ? GROUP BY step ORDER BY step",
                            [run_id]).fetchall()
    assert rows == [(k, 1) for k in range(1, n_steps + 1)]
    run = store.run(run_id)
    assert run["steps"] == n_steps
    assert (run["prompt_tokens"], run["completion_tokens"]) == (PROMPT * successful_calls,
                                                                COMPLETION * successful_calls)
    for s in store.steps(run_id):  # what the model was shown is on disk for every step
        assert store.file(s["screenshot"]).read_bytes()[:4] == b"\x89PNG"
    assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def retry_notes(events):
    return [e.note for e in events if isinstance(e, ev.ModelCalled) and e.note]


# ---------------------------------------------------------------- retried, and the run goes on

def test_429_with_retry_after_then_ok_continues(run_agent, store):
    with ModelServer(scripted([Reply.error(429, "slow down", headers={"Retry-After": "1"}),
                               ok_reply(SCROLL), ok_reply(ANSWER)])) as srv:
        result, events = run_agent(srv.base_url)
        assert len(srv.requests) == 3
    assert (result.status, result.answer, result.steps) == ("answered", "bottom", 2)
    assert retry_notes(events) == ["retrying in 1 s (429)"]  # the server's Retry-After, as the user sees it
    steps = store.steps(result.run_id)
    assert [s["attempts"] for s in steps] == [2, 1] and steps[0]["status"] == "ok"
    assert_recorded_once(store, result.run_id, 2, successful_calls=2)


def test_500s_then_ok_continues(run_agent, store):
    with ModelServer(scripted([Reply.error(500), Reply.error(502), ok_reply(SCROLL),
                               Reply.error(503), ok_reply(ANSWER)])) as srv:
        result, events = run_agent(srv.base_url)
        assert len(srv.requests) == 5
    assert (result.status, result.steps) == ("answered", 2)
    assert [n.split("(")[-1] for n in retry_notes(events)] == ["500)", "502)", "503)"]
    assert [s["attempts"] for s in store.steps(result.run_id)] == [3, 2]
    assert_recorded_once(store, result.run_id, 2, successful_calls=2)


def test_timeout_then_ok_continues(run_agent, store):
    # ModelConfig.timeout is per request; the first reply comes long after it.
    with ModelServer(scripted([Reply(text=SCROLL, delay=8, prompt_tokens=PROMPT, completion_tokens=COMPLETION),
                               ok_reply(SCROLL), ok_reply(ANSWER)])) as srv:
        result, events = run_agent(srv.base_url, timeout=1.5)
    assert (result.status, result.steps) == ("answered", 2)
    assert retry_notes(events) and "(timeout)" in retry_notes(events)[0]
    assert [s["attempts"] for s in store.steps(result.run_id)] == [2, 1]
    assert_recorded_once(store, result.run_id, 2, successful_calls=2)  # the abandoned reply is not counted


def test_truncated_json_then_ok_continues(run_agent, store):
    with ModelServer(scripted([Reply(body=TRUNCATED), ok_reply(ANSWER)])) as srv:
        result, events = run_agent(srv.base_url)
    assert (result.status, result.answer, result.steps) == ("answered", "bottom", 1)
    assert "(invalid-json)" in retry_notes(events)[0]
    assert_recorded_once(store, result.run_id, 1, successful_calls=1)


# ---------------------------------------------------------------- not worth retrying for ever: the run fails, saying why

def test_persistent_500_fails_the_run_naming_the_cause(run_agent, store):
    with ModelServer(lambda body: Reply.error(500, "the GPU is on fire")) as srv:
        result, _ = run_agent(srv.base_url, max_retries=2)
        assert len(srv.requests) == 3
    assert result.status == "failed"
    for text in (result.error, store.run(result.run_id)["error"]):
        assert "500" in text and "after 3 attempts" in text and "the GPU is on fire" in text
    step = store.steps(result.run_id)[0]  # the step in flight is kept: what the model was looking at
    assert step["status"] == "failed" and "500" in step["error"]
    assert store.run(result.run_id)["status"] == "failed"
    assert_recorded_once(store, result.run_id, 1, successful_calls=0)


def test_persistently_truncated_json_fails_naming_the_cause(run_agent, store):
    with ModelServer(lambda body: Reply(body=TRUNCATED)) as srv:
        result, _ = run_agent(srv.base_url, max_retries=1)
    assert result.status == "failed" and "malformed JSON" in result.error and "after 2 attempts" in result.error
    assert_recorded_once(store, result.run_id, 1, successful_calls=0)


def test_connection_refused_fails_the_run_naming_the_server(run_agent, store):
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    result, events = run_agent(url, max_retries=2)
    assert result.status == "failed"
    assert f"could not connect to {url}" in result.error and "is the server running?" in result.error
    assert len(retry_notes(events)) == 2 and all("(connection)" in n for n in retry_notes(events))
    assert isinstance(events[-1], ev.RunFailed) and events[-1].error == result.error
    assert_recorded_once(store, result.run_id, 1, successful_calls=0)


def test_cli_run_with_no_model_server_says_so_without_a_traceback(site, tmp_path):
    home = tmp_path / "home"
    url = f"http://127.0.0.1:{free_port()}/v1"
    r = subprocess.run([sys.executable, "-m", "cockpit", "run", "--task", "t", "--url", site.url("agent_start.html"),
                        "--base-url", url, "--model", "m", "--retries", "1"],
                       capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
                       env=dict(os.environ, COCKPIT_HOME=str(home)))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    assert "model call retrying in" in r.stderr  # the retry is visible while it waits
    assert f"FAILED after 1 step: model call failed after 2 attempts: could not connect to {url}" in r.stderr
    assert r.stdout.strip().startswith("(failed: model call failed after 2 attempts")
    with Store(home) as store:
        run = store.runs()[0]
        assert run["status"] == "failed" and "could not connect" in run["error"]


def test_cli_run_with_a_persistent_500_fails_with_the_servers_words(site, tmp_path):
    home = tmp_path / "home"
    with ModelServer(lambda body: Reply.error(500, "model overloaded, try later")) as srv:
        r = subprocess.run([sys.executable, "-m", "cockpit", "run", "--task", "t", "--url",
                            site.url("agent_start.html"), "--base-url", srv.base_url, "--model", "m",
                            "--retries", "0"],
                           capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
                           env=dict(os.environ, COCKPIT_HOME=str(home)))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "500 Internal Server Error" in r.stderr and "model overloaded, try later" in r.stderr


# ---------------------------------------------------------------- answered, but not usable: a format error that costs a step

def test_reply_without_an_action_is_fed_back_as_a_format_error_and_costs_a_step(run_agent, store):
    replies = ["I think I should scroll down to see more.",  # no Action at all
               "Thought: scrolling.\nAction: Scrol [WINDOW]; down",  # an Action Cockpit cannot parse
               ok_reply(ANSWER)]
    with ModelServer(scripted([ok_reply(r) if isinstance(r, str) else r for r in replies])) as srv:
        result, events = run_agent(srv.base_url, max_steps=3)
        sent = srv.requests
    assert (result.status, result.steps) == ("answered", 3)  # the budget of 3 was all spent
    steps = store.steps(result.run_id)
    assert [s["status"] for s in steps] == ["format_error", "format_error", "answered"]
    assert steps[0]["error"] == prompt.FORMAT_ERROR and steps[0]["reply"] == replies[0]
    assert steps[1]["error"].startswith("Format ERROR") and "Scrol" in steps[1]["error"]
    fed_back = [m["content"][0]["text"] for m in (sent[1]["messages"][-1], sent[2]["messages"][-1])]
    assert fed_back[0].startswith(prompt.FORMAT_ERROR)
    assert fed_back[1].startswith(steps[1]["error"])
    assert sent[1]["messages"][-2] == {"role": "assistant", "content": replies[0]}  # the model sees what it said
    assert_recorded_once(store, result.run_id, 3, successful_calls=3)


def test_no_action_replies_use_up_the_budget(run_agent, store):
    with ModelServer(scripted([ok_reply("Sure! Let me look at the page.")], repeat_last=True)) as srv:
        result, _ = run_agent(srv.base_url, max_steps=2)
        assert len(srv.requests) == 2
    assert (result.status, result.steps) == ("max_steps", 2)
    assert_recorded_once(store, result.run_id, 2, successful_calls=2)


@pytest.mark.parametrize("empty", [Reply(text="", prompt_tokens=PROMPT, completion_tokens=0),
                                   Reply(text=None, prompt_tokens=PROMPT, completion_tokens=0)],
                         ids=["empty-string", "null-content"])
def test_empty_reply_is_a_format_error_not_a_retry_and_its_tokens_count(run_agent, store, empty):
    with ModelServer(scripted([empty, ok_reply(ANSWER)])) as srv:
        result, events = run_agent(srv.base_url)
        sent = srv.requests
    assert len(sent) == 2  # not asked again in the same step: the empty reply cost a step
    assert (result.status, result.steps) == ("answered", 2)
    first = store.steps(result.run_id)[0]
    assert first["status"] == "format_error" and first["reply"] == ""
    assert sent[1]["messages"][-1]["content"][0]["text"].startswith(prompt.FORMAT_ERROR)
    # the empty reply was a call the server answered (and a provider bills): its prompt counts
    assert first["prompt_tokens"] == PROMPT and first["completion_tokens"] == 0
    assert store.run(result.run_id)["prompt_tokens"] == 2 * PROMPT


def test_a_200_kb_reply_is_stored_whole_and_the_run_goes_on(run_agent, store):
    thought = "".join(f"Line {i}: the page shows a library with a link and a button. " for i in range(3400))
    huge = f"Thought: {thought}\nAction: Scroll [WINDOW]; down"
    assert len(huge) > 200_000
    with ModelServer(scripted([ok_reply(huge), ok_reply(ANSWER)])) as srv:
        result, events = run_agent(srv.base_url)
        second = srv.requests[1]["messages"]
    assert (result.status, result.steps) == ("answered", 2)
    step = store.steps(result.run_id)[0]
    assert step["reply"] == huge  # the record keeps the raw reply intact, byte for byte
    assert step["thought"] == thought.strip() and step["action"] == "Scroll [WINDOW]; down"
    assert step["status"] == "ok" and "scrolled the window down" in step["outcome"]
    replied = [e for e in events if isinstance(e, ev.ModelReplied)][0]
    assert replied.text == huge
    assert {"role": "assistant", "content": huge} in second  # the history sent back is WebVoyager's: whole
    assert_recorded_once(store, result.run_id, 2, successful_calls=2)
    env = dict(os.environ, COCKPIT_HOME=str(store.root))
    shown = subprocess.run([sys.executable, "-m", "cockpit", "runs", result.run_id], capture_output=True, text=True,
                           timeout=60, env=env)
    assert shown.returncode == 0 and len(shown.stdout) < 10_000  # the listing clips it, and says so
    assert f"({len(thought.strip()) - 2000} more characters; --json shows all)" in shown.stdout
    whole = subprocess.run([sys.executable, "-m", "cockpit", "runs", result.run_id, "--json"], capture_output=True,
                           text=True, timeout=60, env=env)
    assert json.loads(whole.stdout)["steps"][0]["reply"] == huge
