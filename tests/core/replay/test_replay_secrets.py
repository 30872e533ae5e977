"""Replaying a run that typed into a secret field: the text was never stored, so the replay stops there.

A real agent run (scripted model server, real Chromium) types a user name, then a card number into an
autocomplete="cc-number" field (recorded as "Type [N]; (secret)"), then fails on a model error. Replay,
branch, resume by replay and `cockpit branch --replay-only` must stop at the card step with a message
saying why and what to do, and never type "(secret)" (or anything) into the card field.
"""
from pathlib import Path

import pytest

from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh, RunContext
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.replay.branch import branch
from cockpit.core.replay.replay import Diverged, ReplayOptions, replay
from cockpit.core.replay.resume import resume
from cockpit.core.store import Store
from tests.clitools import cockpit
from tests.models import model_client
from tests.secret_scan import mark_of

pytestmark = pytest.mark.fault("secrets")
CARD = "4111 1111 1111 1111"
FIELDS = "return [document.querySelector('[name=user]').value, document.querySelector('[name=card]').value]"


def parent_model():
    steps = iter([
        lambda b: f"Thought: the user first.\nAction: Type [{mark_of(b, 'User name')}]; bob",
        lambda b: f"Thought: now the card.\nAction: Type [{mark_of(b, 'Card number')}]; {CARD}",
        lambda b: Reply.error(400, "the model went away"),
    ])
    return lambda body: next(steps)(body)


@pytest.fixture
def recorded(browser, site, tmp_path):
    """(store, run id, card mark): a failed run whose step 2 typed the card number."""
    with Store(tmp_path / "home") as store:
        with ModelServer(parent_model()) as srv, model_client(srv, timeout=20) as client:
            result = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2)).run(Fresh(
                "Sign in as bob and enter the card", site.url("secret_login.html")))
            card = mark_of(srv.requests[1], "Card number")
        assert result.status == "failed" and result.steps == 3, result  # step 3: the model error
        assert browser.driver.execute_script(FIELDS) == ["bob", CARD]  # the run did type it
        steps = store.steps(result.run_id)
        assert steps[1]["action"] == f"Type [{card}]; (secret)" and steps[1]["status"] == "ok"
        yield store, result.run_id, card


def expect_secret_stop(message: str, card: int) -> None:
    assert f"step 2 typed into a secret field (Card number [{card}])" in message, message
    assert "never stored, so it cannot be replayed" in message
    assert "branch at step 2 or earlier" in message


def test_replay_stops_at_the_secret_step_without_typing(browser, recorded):
    store, run_id, card = recorded
    seen = []
    with pytest.raises(Diverged) as e:
        replay(RunContext(browser, store, on_replay=lambda n, info: seen.append(info)), run_id, None)
    assert e.value.divergence.reason == "secret" and e.value.divergence.step == 2
    expect_secret_stop(str(e.value), card)
    assert [s.step for s in e.value.replayed] == [1] == [s.step for s in seen]
    # step 1 was replayed on a fresh page; the card field was left alone: never "(secret)"
    assert browser.driver.execute_script(FIELDS) == ["bob", ""]


def test_the_placeholder_alone_stops_the_replay_when_the_marks_are_gone(browser, recorded):
    store, run_id, card = recorded
    Path(store.root, store.steps(run_id)[1]["marks_file"]).unlink()
    with pytest.raises(Diverged) as e:
        replay(RunContext(browser, store), run_id, None, ReplayOptions(check=False))
    assert e.value.divergence.reason == "secret"
    assert f"step 2 typed into a secret field ([{card}])" in str(e.value)
    assert browser.driver.execute_script(FIELDS) == ["bob", ""]


def test_branch_after_the_secret_step_stops_and_calls_no_model(browser, recorded):
    store, run_id, card = recorded
    with ModelServer(lambda b: "Thought: done\nAction: ANSWER; x") as srv, model_client(srv, timeout=20) as client:
        result = branch(RunContext(browser, store, client), run_id, 3, AgentConfig(wait_seconds=0.2))
        assert srv.requests == []
    assert result.status == "failed" and result.divergence is not None and result.divergence.reason == "secret"
    expect_secret_stop(result.error, card)
    assert browser.driver.execute_script(FIELDS) == ["bob", ""]
    assert store.steps(result.run_id) == []  # nothing recorded as done by the branch


def test_resume_by_replay_stops_with_the_reason(browser, recorded):
    store, run_id, card = recorded
    with ModelServer(lambda b: "Thought: done\nAction: ANSWER; x") as srv, model_client(srv, timeout=20) as client:
        result = resume(RunContext(browser, store, client), run_id, replay=True)
        assert srv.requests == []
    assert result.status == "failed"
    expect_secret_stop(result.error, card)
    assert "last page.s address" not in result.error  # one piece of advice, the one that fits
    assert browser.driver.execute_script(FIELDS) == ["bob", ""]


def test_cockpit_branch_replay_only_says_why(recorded):
    store, run_id, card = recorded
    r = cockpit(store.root, "branch", run_id, "3", "--replay-only")
    assert r.returncode == 4, r.stderr
    expect_secret_stop(r.stdout, card)
    expect_secret_stop(r.stderr, card)
    lines = r.stdout.splitlines()
    assert any(x.startswith("step 1 ") for x in lines)  # step 1 replayed, step 2 not reported as replayed
    assert not any(x.startswith("step 2 ") for x in lines), r.stdout
