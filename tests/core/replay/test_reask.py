"""Re-ask at step k, against the loopback model server and a run recorded the way the agent records one."""
import json

import pytest

from cockpit.core.errors import CockpitError
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ModelConfig, ModelError, prepare_images
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.page import images
from cockpit.core.replay import reask as R
from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit
from tests.images import numbered_png

TASK = "Find the cheapest headphones"
URL = "http://shop.test/"
ALT = "Thought: The search box is quicker.\nAction: Type [2]; headphones"


def record_run(store: Store, base_url: str, *, keep_images: int = 2, human_step: bool = True) -> str:
    """Three agent steps (and a human one), recorded as the agent loop records them."""
    model = ModelConfig(base_url=base_url, model="m1", temperature=1.0, max_retries=0, timeout=20,
                        price_in=1.0, price_out=2.0)
    rid = store.new_run(NewRun(TASK, URL, model="m1", base_url=base_url,
                               config={"model": model.to_dict(), "agent": {"keep_images": keep_images}}))
    conv = prompt.Conversation(prompt.system_prompt(), keep_images)
    lead = prompt.task_text(TASK, URL)
    replies = ["Thought: I see the shop front.\nAction: Click [3]",
               "Thought: The category page lists headphones.\nAction: Click [5]",
               "Thought: The cheapest is the Basic pair.\nAction: ANSWER; Basic headphones"]
    for k, reply in enumerate(replies, 1):
        files = store.write_step_files(rid, k, screenshot=numbered_png(100 + k), marked=numbered_png(k), marks=[])
        conv.add_observation(k, prompt.observation_text(f"[{k}]: <button> \"Item {k}\"", url=f"{URL}p{k}",
                                                        title=f"Page {k}"), lead=lead)
        request = conv.request()
        conv.add_reply(reply)
        parsed = prompt.parse_reply(reply)
        answer = parsed.action.kind == "answer"
        store.commit_step(rid, dict(step=k, url=f"{URL}p{k}", title=f"Page {k}", request=request, reply=reply,
                                    thought=parsed.thought, action=str(parsed.action),
                                    action_text=parsed.action_text, target=parsed.action.target,
                                    status="answered" if answer else "ok", prompt_tokens=100,
                                    completion_tokens=10, cost=0.001, n_marks=0, **files))
        lead = prompt.feedback_text(outcome=f"clicked item {k}")
    if human_step:
        files = store.write_step_files(rid, 4, screenshot=numbered_png(104), marked=numbered_png(4), marks=[])
        store.commit_step(rid, dict(step=4, actor="human", request=[], action="Scroll [WINDOW]; down",
                                    action_text="Scroll [WINDOW]; down", status="ok", **files))
    store.finish_run(rid, "answered", answer="Basic headphones")
    return rid


def store_snapshot(store: Store) -> tuple[dict, dict]:
    tables = {t: [dict(r) for r in store.db.query(f"SELECT * FROM {t} ORDER BY rowid")]
              for t in ("runs", "steps", "decisions", "corrections")}
    files = {str(p.relative_to(store.root)): p.read_bytes()
             for p in sorted(store.files.rglob("*")) if p.is_file()}
    return tables, files


def image_urls(messages: list[dict]) -> list[str]:
    return [p["image_url"]["url"] for m in messages if isinstance(m["content"], list)
            for p in m["content"] if p.get("type") == "image_url"]


def data_url(b: bytes) -> str:
    """The stored PNG `b` as the model is sent it (JPEG by default)."""
    return images.data_url(images.for_model(b, "jpeg"))


@pytest.fixture
def srv():
    server = ModelServer([Reply(text=ALT, prompt_tokens=1000, completion_tokens=50)], model_name="m1")
    with server:
        yield server


@pytest.fixture
def rec(tmp_path, srv):
    store = Store(tmp_path / "home")
    rid = record_run(store, srv.base_url)
    yield store, rid
    store.close()


# --------------------------------------------------------------------------- rebuilding


def test_rebuild_request_is_the_recorded_one(rec):
    store, rid = rec
    req = R.rebuild_request(store, rid, 2)
    assert req == store.step(rid, 2)["request"]
    assert req[0] == {"role": "system", "content": prompt.system_prompt()}
    assert prompt.image_steps(req) == [1, 2]
    assert all(u.startswith(prompt.IMAGE_REF) for u in image_urls(req))
    assert prompt.image_steps(R.rebuild_request(store, rid, 3)) == [2, 3]  # recorded with keep_images=2


def test_steps_that_cannot_be_reasked_say_why(rec, tmp_path):
    store, rid = rec
    with pytest.raises(CockpitError, match="human supervisor"):
        R.rebuild_request(store, rid, 4)
    with pytest.raises(CockpitError, match=r"no step 9 \(it has steps 1 to 4\)"):
        R.rebuild_request(store, rid, 9)
    with pytest.raises(CockpitError, match="no run"):
        R.rebuild_request(store, "nope", 1)
    imported = store.new_run(NewRun("t", URL, model="(imported)", source="webvoyager", config={}))
    store.commit_step(imported, dict(step=1, request=[
        {"role": "user", "content": [{"type": "text", "text": "Observation: ..."},
                                     {"type": "image_url", "image_url": {"url": "data:image/png;base64,{b64_img}"}}]}]))
    store.commit_step(imported, dict(step=2, request=[]))
    with pytest.raises(CockpitError, match="imported.*placeholder"):
        R.rebuild_request(store, imported, 1)
    with pytest.raises(CockpitError, match="imported"):
        R.rebuild_request(store, imported, 2)


# --------------------------------------------------------------------------- asking


def test_reask_sends_exactly_the_recorded_request_and_returns_the_alternative(rec, srv):
    store, rid = rec
    result = R.reask(store, rid, 2, api_key="test-key")
    assert (result.original_action, result.new_action) == ("Click [5]", "Type [2]; headphones")
    assert result.original_thought == "The category page lists headphones."
    assert result.new_thought == "The search box is quicker." and result.parse_error == ""
    assert result.changed and result.new_reply == ALT
    assert (result.model, result.original_model, result.temperature) == ("m1", "m1", 1.0)
    assert (result.prompt_tokens, result.completion_tokens, result.tokens) == (1000, 50, 1050)
    assert result.cost == pytest.approx((1000 * 1.0 + 50 * 2.0) / 1e6)
    stored = store.step(rid, 2)["request"]
    assert result.messages_sent == stored  # kept with references, not pixels

    assert len(srv.requests) == 1
    body = srv.requests[0]
    files = {j: store.file(store.step(rid, j)["screenshot"]).read_bytes() for j in (1, 2)}
    assert body["messages"] == prepare_images(prompt.materialize(stored, files.__getitem__), ModelConfig())
    assert image_urls(body["messages"]) == [data_url(numbered_png(1)), data_url(numbered_png(2))]
    assert body["model"] == "m1" and body["temperature"] == 1.0


def test_edits_reach_the_server(rec, srv):
    store, rid = rec
    srv.responder = lambda body: ALT
    result = R.reask(store, rid, 2, R.ReaskEdit(system="You are terse.", keep_images=1, model="m2",
                                                temperature=0.0, max_tokens=77, extra_user_note="Try search."),
                     api_key="k")
    body = srv.requests[-1]
    msgs = body["messages"]
    assert msgs[0] == {"role": "system", "content": "You are terse."}
    assert image_urls(msgs) == [data_url(numbered_png(2))]
    stored = store.step(rid, 2)["request"]
    assert msgs[1]["content"] == f"{prompt.task_text(TASK, URL)}\nObservation: {prompt.OMITTED}"
    assert msgs[-1]["content"][0]["text"] == stored[-1]["content"][0]["text"] + "\nTry search."
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("m2", 0.0, 77)
    assert (result.model, result.temperature, result.original_model) == ("m2", 0.0, "m1")
    assert result.edit == {"system": "You are terse.", "keep_images": 1, "model": "m2", "temperature": 0.0,
                           "max_tokens": 77, "extra_user_note": "Try search."}
    assert prompt.image_steps(result.messages_sent) == [2]

    R.reask(store, rid, 2, R.ReaskEdit(keep_images=0), api_key="k")
    assert image_urls(srv.requests[-1]["messages"]) == []

    messages = R.rebuild_request(store, rid, 1) + [{"role": "user", "content": "Anything else?"}]
    R.reask(store, rid, 1, R.ReaskEdit(messages=messages), api_key="k")
    assert srv.requests[-1]["messages"][-1] == {"role": "user", "content": "Anything else?"}
    with pytest.raises(CockpitError, match="role"):
        R.reask(store, rid, 1, R.ReaskEdit(messages=[{"content": "x"}]), api_key="k")


def test_more_screenshots_than_were_sent_restores_the_older_ones(rec, srv):
    store, rid = rec
    srv.responder = lambda body: ALT
    stored3 = store.step(rid, 3)["request"]
    assert prompt.image_steps(stored3) == [2, 3]
    R.reask(store, rid, 3, R.ReaskEdit(keep_images=3), api_key="k")
    msgs = srv.requests[-1]["messages"]
    assert image_urls(msgs) == [data_url(numbered_png(1)), data_url(numbered_png(2)), data_url(numbered_png(3))]
    step1_obs = store.step(rid, 1)["request"][-1]
    assert msgs[1]["content"][0] == step1_obs["content"][0]  # the full observation text, as sent at step 1
    assert [m["role"] for m in msgs] == [m["role"] for m in stored3]
    # keep_images=2 at step 3 is the request as recorded
    assert R.edited_request(store, rid, 3, R.ReaskEdit(keep_images=2)) == stored3
    # clip_images does what the conversation does
    conv_like = R.clip_images(R.edited_request(store, rid, 3, R.ReaskEdit(keep_images=3)), 2)
    assert conv_like == stored3


def test_a_reply_without_an_action_is_reported(rec, srv):
    store, rid = rec
    srv.responder = lambda body: "I am not sure what to do here."
    result = R.reask(store, rid, 1, api_key="k")
    assert result.new_action is None and result.parse_error.startswith("Format ERROR")
    assert result.original_action == "Click [3]" and result.changed


def test_the_run_is_left_untouched_and_reasks_are_listed(rec, srv):
    store, rid = rec
    srv.responder = lambda body: ALT
    tables, files = store_snapshot(store)
    first = R.reask(store, rid, 2, api_key="k")
    second = R.reask(store, rid, 2, R.ReaskEdit(temperature=0.5), api_key="k")
    R.reask(store, rid, 3, api_key="k", save=False)
    tables2, files2 = store_snapshot(store)
    assert tables2 == tables
    assert {k: v for k, v in files2.items() if k in files} == files
    step_dir = f"runs/{rid}/step-002"
    assert sorted(set(files2) - set(files)) == [f"{step_dir}/reask-1.json", f"{step_dir}/reask-2.json"]
    assert (first.n, first.saved, second.n) == (1, f"{step_dir}/reask-1.json", 2)

    past = R.past_reasks(store, rid, 2)
    assert [p.n for p in past] == [1, 2]
    assert past[0].new_action == "Type [2]; headphones" and past[1].temperature == 0.5
    assert past[0].messages_sent == store.step(rid, 2)["request"]
    assert "base64" not in json.dumps(json.loads(store.file(first.saved).read_text()))
    assert R.past_reasks(store, rid, 3) == [] and R.past_reasks(store, rid, 99) == []
    store.file(first.saved).write_text("{not json")
    assert [p.n for p in R.past_reasks(store, rid, 2)] == [2]


def test_a_missing_screenshot_is_a_clear_error(rec, srv):
    store, rid = rec
    missing = store.step_dir(rid, 1) / "marked.png"
    missing.unlink()
    with pytest.raises(CockpitError) as e:
        R.reask(store, rid, 2, api_key="k")
    assert "screenshot of step 1" in str(e.value) and str(missing) in str(e.value)
    assert srv.requests == []  # nothing was sent
    assert R.reask(store, rid, 3, api_key="k").new_action  # step 3 only attaches steps 2 and 3


def test_a_model_error_is_raised_and_nothing_is_kept(rec, srv):
    store, rid = rec
    srv.responder = lambda body: Reply.error(404, "no such model")
    with pytest.raises(ModelError, match="not found"):
        R.reask(store, rid, 2, R.ReaskEdit(model="ghost"), api_key="k")
    assert R.past_reasks(store, rid, 2) == []


def test_request_text_shows_screenshots_as_step_labels(rec):
    store, rid = rec
    text = R.request_text(R.rebuild_request(store, rid, 2))
    assert "[screenshot of step 1]" in text and "[screenshot of step 2]" in text
    assert "--- message 1: system ---" in text and "base64" not in text


# --------------------------------------------------------------------------- the command line


def test_cockpit_reask_command(rec, srv, tmp_path):
    store, rid = rec
    home = store.root
    srv.responder = lambda body: Reply(text=ALT, prompt_tokens=1000, completion_tokens=50)
    before = store_snapshot(store)[0]

    r = cockpit(home, "reask", rid, "2")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.index("ORIGINAL (m1)") < out.index("Click [5]") < out.index("NEW (m1)") < out.index(
        "Type [2]; headphones")
    assert "a different action" in out and "1000 + 50 = 1050 tokens" in out and "$0.0011" in out
    assert "[screenshot of step" not in out
    assert len(srv.requests) == 1 and srv.requests[0]["model"] == "m1"

    prompt_file = tmp_path / "system.txt"
    prompt_file.write_text("Only ever scroll.\n")
    r = cockpit(home, "reask", rid[:12], "3", "--model", "m2", "--temperature", "0", "--prompt-file", str(prompt_file),
                "--keep-images", "1", "--note", "Hurry.", "--show-request")
    assert r.returncode == 0, r.stderr
    body = srv.requests[-1]
    assert body["messages"][0]["content"] == "Only ever scroll."
    assert (body["model"], body["temperature"]) == ("m2", 0.0)
    assert image_urls(body["messages"]) == [data_url(numbered_png(3))]
    assert "[screenshot of step 3]" in r.stdout and "Only ever scroll." in r.stdout and "Hurry." in r.stdout
    assert "NEW (m2)" in r.stdout and "system prompt replaced" in r.stdout

    r = cockpit(home, "reask", rid, "2", "--json", "--no-save")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["new_action"] == "Type [2]; headphones" and data["saved"] == ""

    assert cockpit(home, "reask", "nope", "1").returncode == 2
    r = cockpit(home, "reask", rid, "4")
    assert r.returncode == 2 and "human supervisor" in r.stderr
    r = cockpit(home, "reask", rid, "9")
    assert r.returncode == 2 and "no step 9" in r.stderr
    assert cockpit(home, "reask", rid, "2", "--prompt-file", str(tmp_path / "absent.txt")).returncode == 2

    srv.responder = lambda body: Reply.error(404, "no such model")
    n = len(srv.requests)
    r = cockpit(home, "reask", rid, "2", "--model", "ghost")
    assert r.returncode == 3 and "ghost" in r.stderr
    assert len(srv.requests) == n + 1

    assert store_snapshot(store)[0] == before
    assert [p.n for p in R.past_reasks(store, rid, 2)] == [1]
    assert [p.n for p in R.past_reasks(store, rid, 3)] == [1]


def test_a_demo_run_is_reasked_against_the_demo_policy_served_again(tmp_path):
    from cockpit.core.demo.policy import DEMO_MODEL
    with Store(tmp_path / "home") as store:
        with ModelServer(["unused"]) as gone:
            dead = gone.base_url  # the port the demo policy was served on is gone by now
        rid = record_run(store, dead, human_step=False)
        config = store.run(rid)["config"]
        config["model"]["model"] = DEMO_MODEL
        store.set_run(rid, demo=1, model=DEMO_MODEL, config=json.dumps(config))
        result = R.reask(store, rid, 1, save=False)
        assert result.base_url == "(demo policy)" and result.model == DEMO_MODEL
        assert result.new_reply and result.original_action == "Click [3]"


def test_a_cancelled_reask_sends_nothing(rec, srv):
    import threading

    from cockpit.core.llm.client import ModelCancelled
    store, rid = rec
    stop = threading.Event()
    stop.set()
    with pytest.raises(ModelCancelled):
        R.reask(store, rid, 2, api_key="k", cancel=stop)
    assert srv.requests == [] and R.past_reasks(store, rid, 2) == []
