"""WebJudge (Online-Mind2Web's judge): its three stages against a recording model server, on runs imported
from WebVoyager folders and on Cockpit's own; malformed replies at each stage; the CLI."""
import asyncio
import base64
import io
import json
import re

import pytest
from PIL import Image

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.review import judge as J
from cockpit.core.review import webjudge_prompt as W
from cockpit.core.store import Store, judge_stages
from cockpit.core.store.exchange import import_folders
from cockpit.core.store.labels import verdicts

JUDGE = "judge-m"
TASK = "Find the cheapest vegetarian lasagna recipe with at least 4.5 stars"
KEY_POINTS_REPLY = "**Key Points**:\n1. Vegetarian lasagna recipe\n\n2. Sort by lowest price\n3. At least 4.5 stars"


def shot(k: int) -> bytes:
    """Step k's screenshot: a flat colour whose red channel says k (the server reads it back)."""
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), (2 + 4 * k, 60, 90)).save(buf, "PNG")
    return buf.getvalue()


def step_of_image(url: str) -> int:
    data = base64.b64decode(url.split(",", 1)[1])
    with Image.open(io.BytesIO(data)) as im:
        r = im.convert("RGB").getpixel((5, 5))[0]
    return round((r - 2) / 4)


def webvoyager_folder(root, n: int, task: str = TASK):
    """A WebVoyager results folder of n screenshots: n-1 clicks, then ANSWER."""
    folder = root / "results" / "20240120_15_30_05" / "taskAllrecipes--7"
    folder.mkdir(parents=True)
    placeholder = {"type": "image_url", "image_url": {"url": "data:image/png;base64,{b64_img}"}}
    msgs = [{"role": "system", "content": "Imagine you are a robot browsing the web ..."}]
    for k in range(1, n + 1):
        text = (f"Now given a task: {task}  Please interact with https://www.allrecipes.com/ and get the answer. \n"
                if k == 1 else "") + "Observation: please analyze the attached screenshot."
        msgs.append({"role": "user", "content": [{"type": "text", "text": text}, placeholder]})
        action = f"Click [{k}]" if k < n else "ANSWER; Vegetarian Four Cheese Lasagna"
        msgs.append({"role": "assistant", "content": f"Thought: step {k}.\n\nAction: {action}"})
        (folder / f"screenshot{k}.png").write_bytes(shot(k))
    (folder / "interact_messages.json").write_text(json.dumps(msgs))
    return root / "results"


def imported_run(tmp_path, n: int) -> tuple:
    home = tmp_path / "home"
    with Store(home) as store:
        report = import_folders(store, webvoyager_folder(tmp_path, n))
        assert not report.failed, report.failed
        (run_id,) = [r["id"] for r in store.runs()]
    return home, run_id


def stage_of(body: dict) -> str:
    system = body["messages"][0]["content"]
    if "list the key points" in system:
        return "key_points"
    if "one screenshot" in system:
        return "image"
    if "You evaluate a web agent" in system:
        return "outcome"
    raise AssertionError(f"not a WebJudge request: {system[:80]!r}")


def images_in(body: dict) -> list[int]:
    return [step_of_image(p["image_url"]["url"]) for p in body["messages"][1]["content"] if p["type"] == "image_url"]


def first_user_text(body: dict) -> str:
    return body["messages"][1]["content"][0]["text"]


def rules(scores: dict[int, str], outcome: str = 'Thoughts: every key point is met.\nStatus: "success"',
          key_points: str = KEY_POINTS_REPLY):
    """A judge that answers each stage by its system prompt, and each screenshot by the step it shows."""
    def responder(body):
        stage = stage_of(body)
        if stage == "key_points":
            return key_points
        if stage == "image":
            (k,) = images_in(body)
            return scores[k]
        return outcome
    return responder


def score_reply(k: int, score: int) -> str:
    return f"**Reasoning**: Screenshot {k} shows the results page.\nIt lists recipes.\n\n**Score**: {score}"


def webjudge_config(srv, **kw) -> ModelConfig:
    return ModelConfig(**{**dict(base_url=srv.base_url, model=JUDGE, temperature=0.0, timeout=10, backoff=0.01,
                                 max_retries=1), **kw})


def webjudge(home, run_ids, srv, **kw):
    return asyncio.run(J.judge_runs(run_ids, store_root=home, config=webjudge_config(srv), k=3, api_key="k",
                                    protocol="webjudge", **kw))


# --------------------------------------------------------------------------- reading replies


def test_key_points_are_read_after_their_heading_or_the_whole_reply_is_used():
    text, note = W.parse_key_points(KEY_POINTS_REPLY)
    assert text == "1. Vegetarian lasagna recipe\n2. Sort by lowest price\n3. At least 4.5 stars" and note == ""
    text, note = W.parse_key_points("Here they are.\nKey Points:\n   1. A\n   2. B")
    assert text == "1. A\n2. B" and note == ""
    text, note = W.parse_key_points("1. A\n2. B")  # no heading: kept whole, and said so
    assert text == "1. A\n2. B" and "no 'Key Points' heading" in note


@pytest.mark.parametrize("reply, score, reason", [
    ("**Reasoning**: The filter shows 4.5+.\n\n**Score**: 4", 4, "The filter shows 4.5+."),
    ("1. **Reasoning**: A cart page\nwith the item.\n\n2. **Score**: 5/5", 5, "A cart page with the item."),
    ("**Reasoning**: nothing useful\n**Score**: 1", 1, "nothing useful **Score**: 1"),
    ("Score: 3 (some hints)", 3, "Score: 3 (some hints)"),
])
def test_screenshot_scores_and_reasons(reply, score, reason):
    got_score, got_reason, note = W.parse_image_score(reply)
    assert (got_score, got_reason, note) == (score, reason, "")


@pytest.mark.parametrize("reply", ["**Reasoning**: it is a search page.", "Score: none of these", "", None,
                                   # as the script reads it: only the text up to the next "Score" counts
                                   "**Reasoning**: The Scores tab is open.\n\n**Score**: 4"])
def test_a_screenshot_reply_without_a_score_scores_zero_and_says_so(reply):
    score, reason, note = W.parse_image_score(reply)
    assert score == 0 and reason == "" and "scored 0" in note


@pytest.mark.parametrize("reply, verdict", [
    ('Thoughts: all key points met.\nStatus: "success"', 1),
    ("Thoughts: the price filter is $0-$200, not $25-$200.\nStatus: failure", 0),
    ("THOUGHTS: fine\nSTATUS: Success", 1),
    ('Thoughts: the sort was applied.\nStatus: "failure"', 0),
])
def test_the_outcome_is_read_from_the_status_line(reply, verdict):
    assert W.parse_status(reply) == (verdict, "")


def test_an_outcome_without_a_status_line_is_undecided_not_failed():
    verdict, note = W.parse_status("The agent seems to have succeeded.")
    assert verdict is None and "undecided" in note


# --------------------------------------------------------------------------- the three stages


def test_the_three_stages_send_what_the_protocol_says_on_an_imported_webvoyager_run(tmp_path):
    home, run_id = imported_run(tmp_path, 6)
    scores = {1: score_reply(1, 1), 2: score_reply(2, 3), 3: score_reply(3, 2), 4: score_reply(4, 5),
              5: score_reply(5, 4), 6: score_reply(6, 2)}
    with ModelServer(rules(scores)) as srv:
        report = webjudge(home, [run_id], srv)
        bodies = list(srv.requests)
    assert not report.errors and report.runs[run_id].verdict == 1
    by_stage = {}
    for b in bodies:
        by_stage.setdefault(stage_of(b), []).append(b)
    # 1. key points from the task alone: no image, no answer, no actions
    (kp,) = by_stage["key_points"]
    assert first_user_text(kp) == f"Task: {TASK}" and images_in(kp) == []
    # 2. every screenshot scored, one request each, with the task and the key points
    assert sorted(k for b in by_stage["image"] for k in images_in(b)) == [1, 2, 3, 4, 5, 6]
    for b in by_stage["image"]:
        assert TASK in first_user_text(b) and "2. Sort by lowest price" in first_user_text(b)
    # 3. the outcome: only the screenshots scored 3 or more, in trajectory order, with their reasons
    (final,) = by_stage["outcome"]
    assert images_in(final) == [2, 4, 5]
    text = first_user_text(final)
    assert text.startswith(f"User Task: {TASK}\n\nKey Points: 1. Vegetarian lasagna recipe\n")
    assert "Action History:\n1. Click [1]\n2. Click [2]\n" in text and "6. ANSWER; Vegetarian Four Cheese Lasagna" in text
    assert ("their reasons:\n1. Screenshot 2 shows the results page. It lists recipes.\n"
            "2. Screenshot 4 shows") in text
    assert final["max_tokens"] >= 4096 and kp["max_tokens"] >= 2048 and final["temperature"] == 0
    with Store(home) as store:
        (v,) = verdicts(store, run_id, judge=JUDGE)
        stages = judge_stages.of(store, run_id)
    assert (v["verdict"], v["k"], v["prompt_version"]) == (1, 0, W.PROMPT_VERSION)
    assert v["reply"].endswith('Status: "success"') and v["prompt_tokens"] > 0
    assert [s["stage"] for s in stages] == ["key_points"] + ["image"] * 6 + ["outcome"]
    assert [(s["step"], s["score"], s["kept"]) for s in stages if s["stage"] == "image"] == [
        (1, 1, 0), (2, 3, 1), (3, 2, 0), (4, 5, 1), (5, 4, 1), (6, 2, 0)]
    sent = json.loads(stages[-1]["request"])  # as sent, the screenshots named by their step
    assert [p["image_url"]["url"] for p in sent[1]["content"][1:]] == [
        "[screenshot of step 2]", "[screenshot of step 4]", "[screenshot of step 5]"]
    assert v["prompt_tokens"] == sum(s["prompt_tokens"] for s in stages)


def test_at_most_fifty_screenshots_reach_the_outcome(tmp_path):
    home, run_id = imported_run(tmp_path, 55)
    with ModelServer(rules({k: score_reply(k, 5) for k in range(1, 56)})) as srv:
        report = webjudge(home, [run_id], srv, concurrency=8)
        final = [b for b in srv.requests if stage_of(b) == "outcome"]
    assert not report.errors
    assert len([b for b in srv.requests if stage_of(b) == "image"]) == 55
    assert images_in(final[0]) == list(range(1, 51))


def test_no_screenshot_kept_sends_the_outcome_without_the_snapshot_section(tmp_path):
    home, run_id = imported_run(tmp_path, 3)
    with ModelServer(rules({k: score_reply(k, 2) for k in (1, 2, 3)},
                           outcome="Thoughts: no evidence.\nStatus: failure")) as srv:
        report = webjudge(home, [run_id], srv)
        (final,) = [b for b in srv.requests if stage_of(b) == "outcome"]
    assert report.runs[run_id].verdict == 0
    assert images_in(final) == [] and "snapshots" not in first_user_text(final)
    assert first_user_text(final).endswith("3. ANSWER; Vegetarian Four Cheese Lasagna")


def test_malformed_replies_at_each_stage_are_read_as_stated_and_noted(tmp_path):
    home, run_id = imported_run(tmp_path, 3)
    scores = {1: "It is a page of recipes.", 2: score_reply(2, 4), 3: "**Score**: high"}
    with ModelServer(rules(scores, outcome="The agent seems to be done.",
                           key_points="1. Lasagna\n2. Cheapest")) as srv:
        report = webjudge(home, [run_id], srv)
        (final,) = [b for b in srv.requests if stage_of(b) == "outcome"]
    assert not report.errors
    res = report.runs[run_id]
    assert res.judged and res.verdict is None  # undecided, not a failure of the agent
    assert "Key Points: 1. Lasagna\n2. Cheapest" in first_user_text(final) and images_in(final) == [2]
    with Store(home) as store:
        (v,) = verdicts(store, run_id, judge=JUDGE)
        notes = {(s["stage"], s["step"]): s["note"] for s in judge_stages.of(store, run_id)}
    assert v["verdict"] is None
    assert "no 'Key Points' heading" in notes[("key_points", None)]
    assert "scored 0" in notes[("image", 1)] and "scored 0" in notes[("image", 3)] and notes[("image", 2)] is None
    assert "undecided" in notes[("outcome", None)]


def test_a_screenshot_the_server_refuses_scores_zero_and_the_run_is_judged(tmp_path):
    home, run_id = imported_run(tmp_path, 3)

    def responder(body):
        if stage_of(body) == "image" and images_in(body) == [2]:
            return Reply(status=400, error_message="image too large")
        return rules({1: score_reply(1, 4), 3: score_reply(3, 4)})(body)
    with ModelServer(responder) as srv:
        report = webjudge(home, [run_id], srv)
        (final,) = [b for b in srv.requests if stage_of(b) == "outcome"]
    assert not report.errors and report.runs[run_id].verdict == 1 and images_in(final) == [1, 3]
    with Store(home) as store:
        (two,) = [s for s in judge_stages.of(store, run_id) if s["step"] == 2]
    assert (two["score"], two["kept"]) == (0, 0) and "400" in two["note"] and "image too large" in two["note"]


def test_a_server_that_stays_down_stores_nothing_and_reports_the_run(tmp_path):
    home, run_id = imported_run(tmp_path, 4)

    def responder(body):
        if stage_of(body) == "image" and images_in(body) == [2]:
            return Reply(status=500, error_message="overloaded")
        return rules({k: score_reply(k, 4) for k in (1, 3, 4)})(body)
    with ModelServer(responder) as srv:
        report = webjudge(home, [run_id], srv, concurrency=1)
        outcome_asked = any(stage_of(b) == "outcome" for b in srv.requests)
        tried = [images_in(b) for b in srv.requests if stage_of(b) == "image"]
    assert run_id in report.errors and "500" in report.errors[run_id] and not outcome_asked
    assert tried.count([2]) == 2 and [4] not in tried  # retried once; the others were cancelled
    with Store(home) as store:
        assert verdicts(store, run_id) == [] and judge_stages.of(store, run_id) == []


def test_a_cockpit_run_gives_its_actions_with_the_elements_they_hit_and_unmarked_screenshots(tmp_path):
    from cockpit.core.page.marks import Mark
    from cockpit.core.store.newrun import NewRun
    home = tmp_path / "home"
    with Store(home) as store:
        rid = store.new_run(NewRun(TASK, "http://shop.test/", model="agent-model", config={}))
        marks = [Mark(id=7, bbox=(1, 2, 30, 10), tag="button", text="Sort by price")]
        files = store.write_step_files(rid, 1, screenshot=shot(1), marked=shot(9), marks=[m.to_dict() for m in marks])
        store.commit_step(rid, dict(step=1, action="Click [7]", target=7, status="ok", **files))
        files = store.write_step_files(rid, 2, screenshot=shot(2), marked=shot(9), marks=[])
        store.commit_step(rid, dict(step=2, action="ANSWER; Lasagna", status="answered", **files))
        store.finish_run(rid, "answered", answer="Lasagna")
    with ModelServer(rules({1: score_reply(1, 4), 2: score_reply(2, 4)})) as srv:
        report = webjudge(home, [rid], srv)
        (final,) = [b for b in srv.requests if stage_of(b) == "outcome"]
    assert report.runs[rid].verdict == 1
    assert 'Action History:\n1. Click [7] -> <button> "Sort by price"\n2. ANSWER; Lasagna' in first_user_text(final)
    assert images_in(final) == [1, 2]  # the unmarked screenshots (the marked ones would read as step 9)


def test_both_protocols_keep_their_own_verdicts_and_a_judged_run_is_skipped(tmp_path):
    home, run_id = imported_run(tmp_path, 2)

    def responder(body):
        if "Did the agent accomplish the task?" in json.dumps(body):
            return "It looks right.\nNOT SUCCESS"
        return rules({1: score_reply(1, 4), 2: score_reply(2, 4)})(body)
    with ModelServer(responder) as srv:
        webjudge(home, [run_id], srv)
        asyncio.run(J.judge_runs([run_id], store_root=home, config=webjudge_config(srv), k=3, api_key="k"))
        n = len(srv.requests)
        again = webjudge(home, [run_id], srv)
        assert len(srv.requests) == n and again.skipped == [run_id] and again.runs[run_id].verdict == 1
    with Store(home) as store:
        got = {(v["prompt_version"], v["k"]): v["verdict"] for v in verdicts(store, run_id, judge=JUDGE)}
    assert got == {(W.PROMPT_VERSION, 0): 1, (J.PROMPT_VERSION, 3): 0}


def test_cli_judges_with_webjudge_and_shows_the_stages(tmp_path):
    from tests.clitools import cockpit
    home, run_id = imported_run(tmp_path, 3)
    scores = {1: score_reply(1, 1), 2: score_reply(2, 4), 3: score_reply(3, 5)}
    with ModelServer(rules(scores)) as srv:
        r = cockpit(home, "judge", "--no-canary", run_id, "--protocol", "webjudge", "--base-url", srv.base_url,
                    "--model", JUDGE)
    assert r.returncode == 0, r.stderr
    assert re.search(rf"{run_id}\s+SUCCESS", r.stdout) and "WebJudge: 1 SUCCESS" in r.stdout
    shown = cockpit(home, "runs", run_id, "--judge").stdout
    assert f"{JUDGE}  k=all  {W.PROMPT_VERSION}: SUCCESS" in shown
    assert "step 1 screenshot: score 1\n" in shown and "step 3 screenshot: score 5 (kept)" in shown
    assert "key points:\n    **Key Points**:\n    1. Vegetarian lasagna recipe" in shown and 'Status: "success"' in shown


def test_cli_says_each_stage_of_a_webjudge_run_and_why_it_is_undecided(tmp_path):
    """#38: progress within a run (key points, each screenshot scored, the outcome), and the reason of an
    undecided verdict in the progress and the table."""
    from tests.clitools import cockpit
    home, run_id = imported_run(tmp_path, 3)
    scores = {k: score_reply(k, 4) for k in (1, 2, 3)}
    with ModelServer(rules(scores, outcome="The agent seems to be done.")) as srv:
        r = cockpit(home, "judge", "--no-canary", run_id, "--protocol", "webjudge", "--base-url", srv.base_url,
                    "--model", JUDGE, "--concurrency", "1")
    assert r.returncode == 0, r.stderr
    said = [line.strip() for line in r.stderr.splitlines() if line.strip().startswith(f"{run_id}: ")]
    assert said[:5] == [f"{run_id}: key points", f"{run_id}: screenshots 0/3 scored", f"{run_id}: screenshots 1/3 scored",
                        f"{run_id}: screenshots 2/3 scored", f"{run_id}: screenshots 3/3 scored"], r.stderr
    assert said[5].startswith(f"{run_id}: outcome") and "no 'Status:' line" in said[6], said
    assert re.search(rf"{run_id}\s+undecided\s+-\s+undecided: the outcome reply has no 'Status:' line", r.stdout), r.stdout
