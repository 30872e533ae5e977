"""Canary runs: made once on the demo shop in headless Chromium, judged first by `cockpit judge`, and a judge
that misses one (always SUCCESS) or cannot be read is flagged in `cockpit agreement`, text and JSON."""
import json
import re
import shutil

import pytest
from PIL import Image

from cockpit.core.demo import canaries as C
from cockpit.core.demo.catalogue import catalogue
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.review.canary_audit import FOLDER, KNOWN, audit
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit
from tests.images import numbered_png

FAILS = ["answer-without-doing", "buy-refused", "captcha-blocked", "price-wrong"]
ALL = sorted(c.name for c in C.CANARIES)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("canaries")
    made = []
    ids = C.ensure(root, progress=made.append)
    assert made == [c.name for c in C.CANARIES]
    return root, ids


def test_canaries_are_real_runs_on_the_demo_shop_with_their_outcomes_kept(built):
    root, ids = built
    with Store(root / FOLDER) as store:
        runs = {store.run(i)["task_id"]: store.run(i) for i in ids}
        known = {store.run(lb["run_id"])["task_id"]: lb["verdict"] for lb in L.labels(store, annotator=KNOWN)}
        assert known == {c.name: c.outcome for c in C.CANARIES}
        assert all(r["status"] in ("answered", "refused") and r["answer"] for r in runs.values())
        assert runs["buy-refused"]["status"] == "refused"
        steps = {name: store.steps(r["id"]) for name, r in runs.items()}
        for name, ss in steps.items():  # every step has a real screenshot from Chromium
            for s in ss:
                with Image.open(store.file(s["screenshot"])) as im:
                    assert im.size[0] >= 800, name
    assert "order-placed.html" in steps["buy-placed"][-1]["url"]
    assert "placed" in runs["buy-placed"]["answer"]
    assert "nothing was bought" in runs["buy-refused"]["answer"]
    assert "$22.50" in runs["price-right"]["answer"]
    lamp = next(p for p in catalogue() if p.name == "LED Desk Lamp")
    assert "LED Desk Lamp" in runs["price-wrong"]["answer"] and lamp.price_text not in runs["price-wrong"]["answer"]
    assert len(steps["answer-without-doing"]) == 1 and steps["answer-without-doing"][0]["url"].endswith("index.html")
    assert steps["captcha-blocked"][0]["title"] == "Security check" and len(steps["captcha-blocked"]) == 1


def test_canaries_are_made_once(built):
    root, ids = built
    again = []
    assert C.ensure(root, progress=again.append) == ids and again == []


def always_success(body):
    return "The agent did what was asked.\nSUCCESS"


def unreadable(body):
    return "Hmm. Hard to say; the screenshots are interesting."


def careful(body):
    """Rule-based on the task and the answer, as a careful judge would decide the canaries."""
    text = body["messages"][-1]["content"]
    text = text if isinstance(text, str) else text[0]["text"]
    task = re.search(r"Task: (.*)", text).group(1)
    answer = (re.search(r"final answer: (.*)", text) or [None, ""])[1]
    ok = False
    if task.startswith("What is the price"):
        product = next(p for p in catalogue() if p.name in task)
        ok = product.price_text in answer
    elif task.startswith("Buy"):
        ok = "order has been placed" in answer
    else:  # the user's runs below: their answer says
        ok = "done" in answer
    return "Looked at it.\n" + ("SUCCESS" if ok else "NOT SUCCESS")


def home_with_user_runs(tmp_path, built):
    """A data folder with three labelled runs (two successes, one failure) and the canaries already made."""
    home = tmp_path / "home"
    shutil.copytree(built[0] / FOLDER, home / FOLDER)
    with Store(home) as store:
        for i, (answer, verdict) in enumerate((("done", "success"), ("done", "success"), ("gave up", "fail"))):
            rid = store.new_run(NewRun(f"user task {i}", "http://shop.test/", model="agent-m", site="shop.test"))
            files = store.write_step_files(rid, 1, screenshot=numbered_png(1), marked=numbered_png(2), marks=[])
            store.commit_step(rid, dict(step=1, action=f"ANSWER; {answer}", status="answered", **files))
            store.finish_run(rid, "answered", answer=answer)
            for who in ("ada", "bob"):
                L.set_label(store, rid, who, verdict)
    return home


def judge_cli(home, srv, name, *extra):
    return cockpit(home, "judge", "--all", "--model", name, "--base-url", srv.base_url, "--retries", "0", *extra)


@pytest.mark.parametrize("responder,name,missed,unread", [
    (always_success, "yes-judge", FAILS, []),
    (unreadable, "mumble-judge", [], ALL),
])
def test_a_broken_judge_is_flagged_wherever_its_verdicts_are_reported(tmp_path, built, responder, name, missed,
                                                                       unread):
    home = home_with_user_runs(tmp_path, built)
    with ModelServer(responder) as srv:
        r = judge_cli(home, srv, name)
        assert r.returncode == 0, r.stderr
        assert len(srv.requests) == 6 + 3  # the canaries first, then the user's runs
        tasks = [re.search(r"Task: (.*)", b["messages"][-1]["content"][0]["text"]).group(1) for b in srv.requests]
        assert set(tasks[:6]) == {c.task for c in C.CANARIES} and all(t.startswith("user task") for t in tasks[6:])
    assert f"WARNING: judge {name} is FLAGGED by the canaries" in r.stderr
    for canary in missed + unread:
        assert canary in r.stderr
    text = cockpit(home, "agreement").stdout
    table = text.split("Judges vs human consensus (WebVoyager Table 2)\n", 1)[1].split("\n\n", 1)[0]
    assert f"{name} " in table and "FLAGGED" in table
    canary_line = next(line for line in text.splitlines() if line.strip().startswith(f"{name} k=3 cockpit-judge-1:"))
    assert "FLAGGED by the canaries" in canary_line
    if missed:
        assert "missed " + ", ".join(missed) in canary_line
    if unread:
        assert "unreadable replies on " + ", ".join(unread) in canary_line
    rep = json.loads(cockpit(home, "agreement", "--json").stdout)
    (flag,) = rep["flagged_judges"]
    assert (flag["judge"], flag["canary"]["missed"], flag["canary"]["unreadable"]) == (name, missed, unread)
    assert rep["judges"][0]["canary"]["flagged"] and rep["adjudication"]["judges"][0]["canary"]["flagged"]
    if name == "yes-judge":  # the user's failed run called a success: a false-positive rate of 1
        row = rep["judges"][0]
        assert (row["fp"], row["tn"], row["fpr"]) == (1, 0, 1.0) and row["fpr_ci"] == [1.0, 1.0]


def test_a_careful_judge_passes_and_its_canary_verdicts_are_kept(tmp_path, built):
    home = home_with_user_runs(tmp_path, built)
    with ModelServer(careful) as srv:
        r = judge_cli(home, srv, "careful-judge")
        assert r.returncode == 0, r.stderr
        assert "judge careful-judge passed 6 of 6 canaries" in r.stderr and "WARNING" not in r.stderr
        asked = len(srv.requests)
        again = judge_cli(home, srv, "careful-judge")  # stored: neither the canaries nor the runs are asked again
        assert again.returncode == 0 and len(srv.requests) == asked
        assert "passed 6 of 6 canaries" in again.stderr
        skipped = judge_cli(home, srv, "other-judge", "--no-canary")
        assert skipped.returncode == 0 and len(srv.requests) == asked + 3 and "canar" not in skipped.stderr
    results = audit(home)
    assert results[("careful-judge", 3, "cockpit-judge-1")]["flagged"] is False
    text = cockpit(home, "agreement").stdout
    assert "careful-judge k=3 cockpit-judge-1: passed 6 of 6 canaries" in text
    assert "other-judge k=3 cockpit-judge-1: not checked on the canaries" in text
    assert "FLAGGED" not in text
    helptext = cockpit(home, "judge", "--help").stdout
    assert "--no-canary" in helptext and "known outcomes" in helptext and "CAPTCHA" in helptext
