"""Replaying a run from its web recording (issue #41): the site as it was, even changed or gone since; no
request reaches it; time and randomness as recorded; irreversible steps and typed secrets answered from the
recording."""
import json

import pytest

from cockpit.core.agent.approval import PolicyApprover
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.agent.start import Fresh, RunContext
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.replay.branch import branch
from cockpit.core.replay.recorded import NotRecorded, ServedRun, why_not_recorded
from cockpit.core.replay.replay import Diverged, ReplayOptions, replay
from cockpit.core.replay.stepcheck import SERVED_NOTE
from cockpit.core.store.webarchive import WebArchive
from tests.models import model_client
from tests.webshop import WebShop, web_shopper


@pytest.fixture
def fresh_browser():
    with BrowserSession(BrowserConfig()) as b:
        yield b


def page_text(session, css):
    return session.js(f"return document.querySelector({css!r}).textContent")


def test_a_changed_site_replays_as_recorded_without_a_request(recorded_run, store, fresh_browser):
    run_id, shop = recorded_run
    steps = store.steps(run_id)
    assert [s["action"].split(";")[0].split(" [")[0] for s in steps] == ["Click", "Type", "Click", "ANSWER"]
    shop.change()  # prices, order and the kettle's name: the recorded target is gone live
    with pytest.raises(Diverged) as live:
        replay(RunContext(fresh_browser, store), run_id, None, ReplayOptions())
    assert live.value.divergence.reason in ("target", "marks")

    before = len(shop.seen)
    done = replay(RunContext(fresh_browser, store), run_id, None, ReplayOptions(recorded=True))
    assert len(shop.seen) == before  # not one request reached the site
    assert [d.step for d in done] == [1, 2, 3]
    assert fresh_browser.title == "Order placed"
    # the typed secret was answered from the recording; the order step was not asked about (no approver here)
    assert "(secret)" in done[1].recorded_action and done[2].note == SERVED_NOTE
    assert all(not d.missing for d in done)


def test_time_and_randomness_are_as_recorded(recorded_run, store, fresh_browser):
    run_id, shop = recorded_run
    shop.stop()  # the site is gone
    arc = WebArchive.of(store.run_dir(run_id))
    snap = json.loads(arc.body(arc.steps()[1]["snapshot"]))
    token = next(s for s in snap["strings"] if s.startswith("Token "))
    today = next(s for s in snap["strings"] if s.startswith("Today: "))
    with ServedRun.open(fresh_browser, store, run_id) as served:  # kept open: the page reads it after
        replay(RunContext(fresh_browser, store), run_id, 1, ReplayOptions(recorded=True), served)
        names = fresh_browser.js("return [...document.querySelectorAll('#items a')].map(a => a.textContent)")
        assert served.missing == []
    assert page_text(fresh_browser, "#token") == token  # Math.random and crypto.randomUUID as drawn then
    assert page_text(fresh_browser, "#today") == today
    assert names == ["Green mug", "Yellow cup", "Red kettle", "Blue teapot"] or \
        names == ["Yellow cup", "Green mug", "Red kettle", "Blue teapot"]
    assert [s for s in snap["strings"] if s in names] == [n for n in names]  # the same order as recorded


def test_a_request_the_recording_lacks_fails_and_is_listed(recorded_run, store, fresh_browser):
    run_id, shop = recorded_run
    log = store.run_dir(run_id) / "web" / "log.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    log.write_text("".join(json.dumps(e) + "\n" for e in lines
                           if not (e.get("kind") == "request" and e["url"].endswith("web.css"))))
    before = len(shop.seen)
    done = replay(RunContext(fresh_browser, store), run_id, None, ReplayOptions(recorded=True))
    assert len(shop.seen) == before
    missing = [m for d in done for m in d.missing]
    assert missing and all(m.startswith("GET ") and m.endswith("/web.css") for m in missing)
    assert "not in the recording" in done[0].describe()
    assert fresh_browser.js("return getComputedStyle(document.body).marginTop") == "8px"  # no stylesheet


def test_a_branch_replays_recorded_then_goes_on_live(recorded_run, store, fresh_browser):
    run_id, shop = recorded_run
    shop.change()
    with ModelServer(["Thought: it is ordered\nAction: ANSWER; done"]) as srv, model_client(srv) as client:
        res = branch(RunContext(fresh_browser, store, client, PolicyApprover(False)), run_id, 4,
                     AgentConfig(wait_seconds=0.2), recorded=True)
        assert res.status == "answered" and res.divergence is None, res
        assert [r.step for r in res.replayed if not r.is_check] == [1, 2, 3]
        first = store.steps(res.run_id)[0]
        assert first["url"].endswith("web_done.html")
        # the live branch of the same step stops where the site changed
        live = branch(RunContext(fresh_browser, store, client, PolicyApprover(True)), run_id, 4,
                      AgentConfig(wait_seconds=0.2))
    assert live.status == "failed" and live.divergence is not None


def test_a_run_without_a_recording_says_so(make_agent, store, tmp_path, fresh_browser):
    with WebShop(tmp_path / "shop") as shop, ModelServer(web_shopper()) as srv:
        agent = make_agent(srv, AgentConfig(wait_seconds=0.2, record_web=False), approver=PolicyApprover(True))
        run_id = agent.run(Fresh("buy", shop.url("web_list.html"))).run_id
    with pytest.raises(NotRecorded, match="no web recording") as err:
        replay(RunContext(fresh_browser, store), run_id, None, ReplayOptions(recorded=True))
    # the same words as Review's disabled Replay button gives (why_not_recorded), and what to do instead
    assert str(err.value) == f"{why_not_recorded(store, run_id)} Replay run {run_id} live instead."
