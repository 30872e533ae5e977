"""The LLM judge and reference checks, against the loopback model server (no browser needed)."""
import asyncio
import base64
import io
import re
import threading
import time

import pytest
from PIL import Image

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.page import images
from cockpit.core.review import judge as J
from cockpit.core.store import Store
from cockpit.core.store.labels import verdicts
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit
from tests.images import numbered_png

JUDGE = "judge-m"


def make_run(store: Store, task: str = "What is the answer?", *, steps: int = 4, answer: str | None = "42",
             config: dict | None = None, status: str | None = None, batch: str = "") -> str:
    """A finished run with `steps` steps; the last one is ANSWER unless answer is None."""
    rid = store.new_run(NewRun(task, "http://shop.test/", model="agent-model", config=config or {}, batch=batch))
    for s in range(1, steps + 1):
        files = store.write_step_files(rid, s, screenshot=numbered_png(100 + s), marked=numbered_png(s), marks=[])
        last = s == steps and answer is not None
        store.commit_step(rid, dict(step=s, action=f"ANSWER; {answer}" if last else "Click [1]",
                                    status="answered" if last else "ok", url="http://shop.test/", **files))
    store.finish_run(rid, status or ("answered" if answer is not None else "max_steps"), answer=answer)
    return rid


def config_for(srv: ModelServer, **kw) -> ModelConfig:
    base = dict(base_url=srv.base_url, model=JUDGE, temperature=0.0, timeout=10, backoff=0.01, max_retries=2)
    base.update(kw)
    return ModelConfig(**base)


def judge(root, run_ids, srv, *, k=3, **kw):
    config = kw.pop("config", None) or config_for(srv)
    return asyncio.run(J.judge_runs(run_ids, store_root=root, config=config, k=k, api_key="test-key", **kw))


def task_of(body: dict) -> str:
    content = body["messages"][-1]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    return re.search(r"Task: (.*)", text).group(1)


def images_of(body: dict) -> list[bytes]:
    parts = body["messages"][1]["content"]
    return [base64.b64decode(p["image_url"]["url"].split(",", 1)[1]) for p in parts if p["type"] == "image_url"]


def by_task(replies: dict):
    """A responder answering by the task text the request holds (request order varies with concurrency)."""
    def responder(body):
        task = task_of(body)
        for key, reply in replies.items():
            if key in task:
                return reply
        raise AssertionError(f"unexpected task {task!r}")
    return responder


def stored(root, run_id, judge_name=JUDGE):
    with Store(root) as store:
        return verdicts(store, run_id, judge=judge_name)


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize("text, expected", [
    ("The cart holds the item.\nSUCCESS", 1),
    ("The price filter was not applied.\nNOT SUCCESS", 0),
    ("Verdict: **SUCCESS**", 1),
    ("It is SUCCESS? No: NOT SUCCESS", 0),  # as in WebVoyager's script, NOT SUCCESS wins
    ("I think it worked", None),
    ("success", None),  # case-sensitive, as the public script
    ("", None),
    (None, None),
])
def test_parse_verdict_follows_webvoyagers_rule(text, expected):
    assert J.parse_verdict(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Yes, it follows.", 1), ("no.", 0), ("NO - the prices differ", 0), ("Maybe", None), ("Yesterday", None),
])
def test_parse_yes_no(text, expected):
    assert J.parse_yes_no(text) == expected


# --------------------------------------------------------------------------- the judge verdict


def test_scripted_verdicts_are_parsed_and_stored_with_model_k_and_prompt_version(tmp_path):
    with Store(tmp_path) as store:
        ok = make_run(store, "task A")
        bad = make_run(store, "task B")
        odd = make_run(store, "task C")
    replies = {"task A": Reply("Everything matches.\nSUCCESS", prompt_tokens=1000, completion_tokens=20),
               "task B": "The answer is not on the page.\nNOT SUCCESS",
               "task C": "I think it worked"}
    seen = []
    with ModelServer(by_task(replies)) as srv:
        report = judge(tmp_path, [ok, bad, odd], srv, config=config_for(srv, price_in=1.0, price_out=2.0),
                       progress=lambda *a: seen.append(a))
        bodies = srv.requests
    assert report.errors == {}
    assert {r: report.runs[r].verdict for r in (ok, bad, odd)} == {ok: 1, bad: 0, odd: None}
    assert "neither SUCCESS nor NOT SUCCESS" in report.runs[odd].why and not report.runs[ok].why  # #38: why
    assert len(bodies) == 3
    for body in bodies:
        assert body["model"] == JUDGE and body["temperature"] == 0.0
        assert body["messages"][0]["role"] == "system"
        assert "SUCCESS" in body["messages"][0]["content"] and "NOT SUCCESS" in body["messages"][0]["content"]
        assert "The agent's final answer: 42" in body["messages"][1]["content"][0]["text"]
    rows = {r: stored(tmp_path, r) for r in (ok, bad, odd)}
    assert [v["verdict"] for v in rows[ok]] == [1] and rows[bad][0]["verdict"] == 0
    assert rows[odd][0]["verdict"] is None and rows[odd][0]["reply"] == "I think it worked"
    v = rows[ok][0]
    assert (v["judge"], v["k"], v["prompt_version"]) == (JUDGE, 3, J.PROMPT_VERSION)
    assert (v["prompt_tokens"], v["completion_tokens"]) == (1000, 20)
    assert v["cost"] == pytest.approx((1000 * 1.0 + 20 * 2.0) / 1e6)
    assert report.cost is not None and report.requests == 3
    assert sorted(a[0] for a in seen) == [1, 2, 3] and all(a[1] == 3 for a in seen)
    assert {a[2]: a[3] for a in seen} == {ok: 1, bad: 0, odd: None}
    assert report.counts() == {"success": 1, "not": 1, "undecided": 1, "errors": 0}


def test_500_and_429_are_retried_and_a_final_error_stays_with_its_run(tmp_path):
    with Store(tmp_path) as store:
        flaky = make_run(store, "task flaky")
        broken = make_run(store, "task broken")
        fine = make_run(store, "task fine")
    calls = {"flaky": 0}
    lock = threading.Lock()

    def responder(body):
        task = task_of(body)
        if "flaky" in task:
            with lock:
                calls["flaky"] += 1
                n = calls["flaky"]
            if n == 1:
                return Reply.error(500, "overloaded")
            if n == 2:
                return Reply.error(429, headers={"retry-after-ms": "10"})
            return "Looks right.\nSUCCESS"
        if "broken" in task:
            return Reply.error(400, "this model does not take images")
        return "NOT SUCCESS"

    with ModelServer(responder) as srv:
        report = judge(tmp_path, [flaky, broken, fine], srv)
        n = len(srv.requests)
    assert calls["flaky"] == 3 and n == 5  # 500 and 429 retried; 400 is not
    assert report.runs[flaky].verdict == 1 and report.runs[fine].verdict == 0
    assert list(report.errors) == [broken] and "does not take images" in report.errors[broken]
    assert stored(tmp_path, broken) == []  # no verdict for a run the judge never answered


@pytest.mark.parametrize("k, expect_steps", [(1, [5]), (2, [4, 5]), (3, [3, 4, 5]), (0, [1, 2, 3, 4, 5])])
def test_exactly_the_last_k_marked_screenshots_are_sent(tmp_path, k, expect_steps):
    with Store(tmp_path) as store:
        rid = make_run(store, steps=5)
    with ModelServer(["SUCCESS"]) as srv:
        judge(tmp_path, [rid], srv, k=k)
        body = srv.requests[0]
    assert images_of(body) == [images.for_model(numbered_png(s), "jpeg") for s in expect_steps]  # as JPEG by default
    labels = [p["text"] for p in body["messages"][1]["content"] if p["type"] == "text" and p["text"].startswith("Screenshot")]
    assert labels == [f"Screenshot of step {s}:" for s in expect_steps]
    details = {p["image_url"]["detail"] for p in body["messages"][1]["content"] if p["type"] == "image_url"}
    assert details == {"auto"}


def test_missing_screenshot_files_are_skipped_and_named(tmp_path):
    with Store(tmp_path) as store:
        rid = make_run(store, steps=4)
        store.file(store.steps(rid)[3]["screenshot"]).unlink()
        messages = J.build_request(store, rid, 2)
    text = messages[1]["content"][0]["text"]
    assert "screenshot of step 4 is missing" in text
    assert images_of({"messages": messages}) == [numbered_png(3)]


def test_image_options_are_applied(tmp_path):
    with Store(tmp_path) as store:
        rid = make_run(store, steps=2)
    with ModelServer(["SUCCESS"]) as srv:
        judge(tmp_path, [rid], srv, k=1, config=config_for(srv, image_detail="low", image_max_width=10))
        body = srv.requests[0]
    part = [p for p in body["messages"][1]["content"] if p["type"] == "image_url"][0]
    assert part["image_url"]["detail"] == "low"
    assert Image.open(io.BytesIO(images_of(body)[0])).width == 10


def test_a_run_without_answer_scores_zero_without_a_request(tmp_path):
    with Store(tmp_path) as store:
        rid = make_run(store, answer=None)
        messages = J.build_request(store, rid, 1)
    assert "without an ANSWER action" in messages[1]["content"][0]["text"]
    with ModelServer(["SUCCESS"]) as srv:
        report = judge(tmp_path, [rid], srv)
        assert srv.requests == []
    assert report.runs[rid].verdict == 0 and report.errors == {}
    row = stored(tmp_path, rid)[0]
    assert row["verdict"] == 0 and row["reply"] == "no ANSWER: scored 0 without asking the judge"


def overlap_counter(seconds: float):
    """A judge model answering SUCCESS after `seconds`, counting the requests it serves at once:
    (respond, state), state["peak"] the most at once."""
    state = {"now": 0, "peak": 0}
    lock = threading.Lock()

    def slow(body):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(seconds)
        with lock:
            state["now"] -= 1
        return "SUCCESS"
    return slow, state


def test_requests_really_overlap(tmp_path):
    with Store(tmp_path) as store:
        ids = [make_run(store, f"task {i}", steps=1) for i in range(4)]
    slow, state = overlap_counter(0.5)
    with ModelServer(slow) as srv:
        t0 = time.monotonic()
        report = judge(tmp_path, ids, srv, concurrency=4)
        elapsed = time.monotonic() - t0
    assert all(report.runs[r].verdict == 1 for r in ids)
    assert state["peak"] == 4 and elapsed < 1.5


def test_concurrency_is_a_limit(tmp_path):
    with Store(tmp_path) as store:
        ids = [make_run(store, f"task {i}", steps=1) for i in range(5)]
    slow, state = overlap_counter(0.1)
    with ModelServer(slow) as srv:
        judge(tmp_path, ids, srv, concurrency=2)
    assert state["peak"] == 2


def test_cancel_stops_scheduling_and_cancels_requests_in_flight(tmp_path):
    with Store(tmp_path) as store:
        ids = [make_run(store, f"task {i}", steps=1) for i in range(5)]
    seen = []

    async def main(srv):
        cancel, cancelled_at = asyncio.Event(), []

        async def cancel_once_two_are_in_flight():  # not after a fixed delay: a busy machine sends them later
            while len(srv.requests) < 2:
                await asyncio.sleep(0.02)
            cancelled_at.append(time.monotonic())
            cancel.set()

        canceller = asyncio.create_task(cancel_once_two_are_in_flight())
        report = await J.judge_runs(ids, store_root=tmp_path, config=config_for(srv), k=1, concurrency=2,
                                    api_key="x", cancel=cancel, progress=lambda *a: seen.append(a))
        canceller.cancel()
        return report, time.monotonic() - cancelled_at[0]

    with ModelServer(lambda body: Reply("SUCCESS", delay=20)) as srv:
        report, elapsed = asyncio.run(main(srv))
        sent = len(srv.requests)
    assert elapsed < 2  # from the cancel, not the 20 s the answers would take
    assert report.cancelled and report.errors == {} and seen == []
    assert sent == 2  # only the two in flight were ever sent
    with Store(tmp_path) as store:
        assert verdicts(store) == []


def test_already_judged_runs_are_skipped_unless_redo(tmp_path):
    with Store(tmp_path) as store:
        rid = make_run(store)
    with ModelServer(lambda body: "SUCCESS") as srv:
        first = judge(tmp_path, [rid], srv)
        again = judge(tmp_path, [rid], srv)
        assert len(srv.requests) == 1
        assert again.skipped == [rid] and again.runs[rid].verdict == 1 and again.requests == 0
        other_k = judge(tmp_path, [rid], srv, k=1)
        assert len(srv.requests) == 2 and other_k.skipped == []
        judge(tmp_path, [rid], srv, redo=True)
        assert len(srv.requests) == 3
        other_judge = judge(tmp_path, [rid], srv, config=config_for(srv, model="another-judge"))
        assert len(srv.requests) == 4 and other_judge.skipped == []
    assert first.skipped == []
    rows = stored(tmp_path, rid)
    assert sorted(r["k"] for r in rows) == [1, 3]  # redo replaced the k=3 verdict


def test_unknown_and_running_runs_are_errors_of_their_own(tmp_path):
    with Store(tmp_path) as store:
        good = make_run(store)
        running = store.new_run(NewRun("still going", "http://shop.test/"))
    with ModelServer(["SUCCESS"]) as srv:
        report = judge(tmp_path, ["no-such-run", running, good], srv)
    assert report.runs[good].verdict == 1
    assert "no run 'no-such-run'" in report.errors["no-such-run"]
    assert "still running" in report.errors[running]
    assert report.total == 3 and report.done == 3


# --------------------------------------------------------------------------- reference checks


def test_string_checks():
    refs = J.References("webarena", exact_match=["Blue  Widget"], must_include=["blue", "$12 |OR| 12 dollars"])
    assert J.check_exact_match("  blue widget ", refs) == 1
    assert J.check_exact_match("the blue widget", refs) == 0
    assert J.check_must_include("The BLUE one costs 12 dollars", refs) == 1
    assert J.check_must_include("The blue one costs 13 dollars", refs) == 0
    assert J.check_must_include(None, refs) == 0
    wv = J.references_of({"reference_answers": [{"type": "golden", "ans": "Paris"}, {"type": "golden", "ans": "Lyon"}]})
    assert wv.checks == ["exact_match", "must_include", "fuzzy_match"]
    assert J.check_exact_match("lyon", wv) == 1 and J.check_must_include("It is Paris.", wv) == 1
    assert J.references_of({"reference_answers": [{"type": "possible", "ans": "any recipe"}]}) is None
    assert J.references_of({"model": {}, "agent": {}}) is None
    na = J.references_of({"eval": {"reference_answers": {"fuzzy_match": "N/A"}, "string_note": "no such order"}})
    assert na.unachievable and na.fuzzy_statements() == ["the task cannot be completed (no such order)"]
    nested = J.references_of({"task": {"eval": {"reference_answers": {"must_include": ["x"]}}}})
    assert nested.checks == ["must_include"]


def test_reference_checks_exact_must_include_and_fuzzy(tmp_path):
    wa = {"eval": {"eval_types": ["string_match"], "reference_answers": {
        "exact_match": "Blue Widget", "must_include": ["blue", "widget"], "fuzzy_match": ["the item is blue"]}}}
    wv = {"reference_answers": [{"type": "golden", "ans": "Paris"}]}
    with Store(tmp_path) as store:
        a = make_run(store, "task wa", answer="  blue   WIDGET ", config=wa)
        b = make_run(store, "task wv", answer="The capital is Paris.", config=wv)
        c = make_run(store, "task none", answer=None, config=wa)

    def responder(body):
        user = body["messages"][-1]["content"]
        if isinstance(user, str):  # the fuzzy question
            assert "would it be correct to infer" in user
            return "Yes, it says so." if "the item is blue" in user else "No."
        return "SUCCESS"

    with ModelServer(responder) as srv:
        report = judge(tmp_path, [a, b, c], srv)
        fuzzy = [r for r in srv.requests if isinstance(r["messages"][-1]["content"], str)]
        assert len(srv.requests) == 4 and len(fuzzy) == 2  # two judge verdicts, two fuzzy questions
    assert report.runs[a].references == {"exact_match": 1, "must_include": 1, "fuzzy_match": 1}
    assert report.runs[b].references == {"exact_match": 0, "must_include": 1, "fuzzy_match": 0}
    assert report.runs[c].references == {"exact_match": 0, "must_include": 0, "fuzzy_match": 0}
    assert report.runs[c].verdict == 0
    with Store(tmp_path) as store:
        rows = {(v["run_id"], v["judge"]): v for v in verdicts(store)}
    assert rows[(a, "ref:exact_match")]["verdict"] == 1 and rows[(a, "ref:exact_match")]["k"] == 0
    assert rows[(a, "ref:must_include")]["verdict"] == 1
    fz = rows[(a, f"ref:fuzzy_match:{JUDGE}")]
    assert fz["verdict"] == 1 and fz["k"] == 0 and fz["prompt_version"] == J.FUZZY_VERSION and "Yes" in fz["reply"]
    assert rows[(b, f"ref:fuzzy_match:{JUDGE}")]["verdict"] == 0


def test_reference_only_asks_only_the_fuzzy_question(tmp_path):
    wa = {"eval": {"reference_answers": {"must_include": ["widget"], "fuzzy_match": ["a widget"]}}}
    with Store(tmp_path) as store:
        rid = make_run(store, "task ref", answer="one widget", config=wa)
        plain = make_run(store, "task plain")
    with ModelServer(["Yes"]) as srv:
        report = judge(tmp_path, [rid, plain], srv, reference_only=True)
        assert len(srv.requests) == 1
    assert report.runs[rid].references == {"must_include": 1, "fuzzy_match": 1}
    assert not report.runs[rid].judged and stored(tmp_path, rid) == []
    # string checks alone need no model and no server at all
    with Store(tmp_path) as store:
        only_strings = make_run(store, "task s", answer="one widget",
                                config={"eval": {"reference_answers": {"must_include": ["widget"]}}})
    report = asyncio.run(J.judge_runs([only_strings], store_root=tmp_path, k=3, reference_only=True,
                                      config=ModelConfig(base_url="http://127.0.0.1:9/v1", model=JUDGE)))
    assert report.runs[only_strings].references == {"must_include": 1} and report.requests == 0


# --------------------------------------------------------------------------- the command line


def test_cockpit_judge_end_to_end(tmp_path):
    wa = {"eval": {"reference_answers": {"must_include": ["42"]}}}
    with Store(tmp_path) as store:
        yes = make_run(store, "task yes", config=wa, batch="b1")
        no = make_run(store, "task no", batch="b1")
        idle = make_run(store, "task idle", answer=None, batch="b1")
        other = make_run(store, "task other", batch="b2")
    replies = {"task yes": "Fine.\nSUCCESS", "task no": "Wrong page.\nNOT SUCCESS"}
    with ModelServer(by_task(replies)) as srv:
        r = cockpit(tmp_path, "judge", "--no-canary", "--batch", "b1", "--model", JUDGE, "--base-url", srv.base_url,
                    "--k", "2")
        assert r.returncode == 0, r.stderr
        assert len(srv.requests) == 2
        assert all(len(images_of(b)) == 2 for b in srv.requests)
        assert sorted(re.findall(r"\[(\d)/3\]", r.stderr)) == ["1", "2", "3"]
        out = r.stdout
        assert re.search(rf"{yes}\s+SUCCESS\s+include=1", out), out
        assert re.search(rf"{no}\s+NOT SUCCESS\s+-", out), out
        assert re.search(rf"{idle}\s+NOT SUCCESS", out), out
        assert other not in out
        assert "1 SUCCESS, 2 NOT SUCCESS (1 by rule: no answer), 0 undecided, 0 errors" in out
        assert "reference checks: must_include 1/1 passed" in out
        again = cockpit(tmp_path, "judge", "--no-canary", yes[:-1], no, "--model", JUDGE,
                        "--base-url", srv.base_url, "--k", "2")
        assert again.returncode == 0, again.stderr
        assert "(stored)" in again.stdout and len(srv.requests) == 2
    with Store(tmp_path) as store:
        assert {v["run_id"]: v["verdict"] for v in verdicts(store, judge=JUDGE)} == {yes: 1, no: 0, idle: 0}
        assert verdicts(store, yes, judge="ref:must_include")[0]["verdict"] == 1

    none = cockpit(tmp_path, "judge", "--status", "nope", "--model", JUDGE, "--base-url", "http://127.0.0.1:9/v1")
    assert none.returncode == 2 and "no runs matched" in none.stderr
    vague = cockpit(tmp_path, "judge", "--model", JUDGE)
    assert vague.returncode == 2 and "say which runs" in vague.stderr
    nokey = cockpit(tmp_path, "judge", "--all", "--model", "gpt-4o",
                    env={"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}, drop=("OPENAI_API_KEY",))
    assert nokey.returncode == 2 and "no API key" in nokey.stderr, nokey.stderr
    assert "Traceback" not in nokey.stderr
