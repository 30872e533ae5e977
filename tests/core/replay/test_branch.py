"""Replay and branch: real Chromium on fixture pages, real store, scripted model over loopback HTTP."""
import re
import shutil
import time

import pytest

from cockpit.core.agent.approval import Decision, PolicyApprover, ScriptedApprover
from cockpit.core.agent.control import RunControl, Stopped
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh, RunContext
from cockpit.core.errors import CockpitError
from cockpit.core.llm import prompt
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import LocalSite
from cockpit.core.page.marks import Mark
from cockpit.core.page.match import match_mark, same_url, similarity
from cockpit.core.replay.branch import branch, history_before
from cockpit.core.replay.replay import Diverged, ReplayOptions, check_step, replay
from cockpit.core.store import Store
from tests import PAGES
from tests.clitools import cockpit
from tests.models import by_page, last_user_text, mark_for, model_client

TASK = "Find the code on page C"


def parent_script():
    return by_page({
        "Branch A": ["Thought: try the first element.\nAction: Click [999]",
                     lambda b: f"Thought: B has the way forward.\nAction: Click [{mark_for(b, 'Go to page B')}]"],
        "Branch B": lambda b: f"Thought: C is behind the button.\nAction: Click [{mark_for(b, 'Continue to C')}]",
        "Branch C": "Thought: the page shows the code.\nAction: ANSWER; 7391",
    })


@pytest.fixture
def bsite(tmp_path):
    """The branch pages on a site of their own, so a test may change what it serves."""
    root = tmp_path / "site"
    root.mkdir()
    for p in PAGES.glob("branch_*.html"):
        shutil.copy(p, root / p.name)
    with LocalSite(root) as s:
        yield s


def record_parent(browser, store, site, srv):
    """Parent run: 1 Click [999] (error), 2 click the link on A, 3 click the button on B, 4 answer on C."""
    browser.goto(site.url("branch_a.html"))
    browser.js("localStorage.clear()")  # B shows an extra link to returning visitors only
    with model_client(srv, timeout=20) as client:
        result = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2)).run(Fresh(
            TASK, site.url("branch_a.html"), task_id="Branch--1"))
    assert (result.status, result.answer, result.steps) == ("answered", "7391", 4)
    steps = store.steps(result.run_id)
    assert [s["status"] for s in steps] == ["error", "ok", "ok", "answered"]
    return result.run_id, steps


def test_branch_replays_the_steps_before_k_and_continues_with_the_history(browser, bsite, store):
    with ModelServer(parent_script()) as srv:
        parent, psteps = record_parent(browser, store, bsite, srv)
    branch_script = by_page({"Branch C": [
        lambda b: f"Thought: there may be more.\nAction: Click [{mark_for(b, 'Reveal more')}]",
        "Thought: found the second code.\nAction: ANSWER; 8102"]})
    seen = []
    with ModelServer(branch_script) as srv2, model_client(srv2, timeout=20) as client:
        result = branch(RunContext(browser, store, client, on_replay=lambda n, info: seen.append((n, info))),
                        parent, 4, AgentConfig(wait_seconds=0.2))
        first = srv2.requests[0]["messages"]
    assert (result.status, result.answer, result.steps, result.divergence) == ("answered", "8102", 2, None)
    run = store.run(result.run_id)
    assert (run["parent_run"], run["parent_step"], run["task"], run["task_id"]) == (parent, 4, TASK, "Branch--1")
    new_steps = store.steps(result.run_id)
    assert new_steps[0]["url"] == psteps[3]["url"] and new_steps[0]["url"].endswith("branch_c.html")
    assert [s["action"] for s in new_steps][1] == "ANSWER; 8102"
    # the replay: step 1 (an error) skipped, 2 and 3 executed, the page of step 4 checked
    assert [n for n, _ in seen] == [2, 3, 4] and [i.step for i in result.replayed] == [2, 3, 4]
    two, three, check = result.replayed
    assert two.recorded_action == psteps[1]["action"] and not two.id_changed and two.similarity == 1.0
    assert three.url.endswith("branch_b.html") and three.url_after.endswith("branch_c.html")
    # B shows the returning visitor one more link above the button: the same button, another id
    assert three.id_changed and three.target_to == three.target_from + 1
    assert three.action == f"Click [{three.target_to}]" and 0.6 <= three.similarity < 1.0
    assert check.is_check and check.similarity == 1.0
    # the model sees the parent's conversation before step 4, then the page of step 4 as the parent saw it
    replies = [m["content"] for m in first if m["role"] == "assistant"]
    assert replies == [s["reply"] for s in psteps[:3]]
    assert "C is behind the button." in replies[2] and "B has the way forward." in replies[1]
    assert first[1]["content"].startswith(f"Now given a task: {TASK}")  # the task survives, its image omitted
    parent_request = store.step(parent, 4)["request"]
    assert len(first) == len(parent_request)
    assert last_user_text({"messages": first}) == parent_request[-1]["content"][0]["text"]
    assert "Result of your last action: clicked [" in last_user_text({"messages": first})
    images = [p for m in first if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"]
    assert len(images) == 1 and images[0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    # the parent is untouched
    assert [s["action"] for s in store.steps(parent)] == [s["action"] for s in psteps]
    assert store.run(parent)["steps"] == 4


def test_history_is_rebuilt_when_the_request_was_not_stored(browser, bsite, store):
    with ModelServer(parent_script()) as srv:
        parent, _ = record_parent(browser, store, bsite, srv)

    def seeded(step):
        seed, lead = history_before(store, parent, step)
        conv = prompt.Conversation("system")
        conv.seed(seed)
        return conv.messages, lead
    stored = {k: seeded(k) for k in (1, 2, 3, 4)}
    assert stored[1] == ([{"role": "system", "content": "system"}], prompt.task_text(TASK, bsite.url("branch_a.html")))
    assert stored[4][1].startswith("Result of your last action: clicked [")
    with store._lock:
        store.db.execute("UPDATE steps SET request = NULL WHERE run_id = ? AND step = 4", [parent])
    assert seeded(4) == stored[4]  # from step 3's request and reply
    with store._lock:
        store.db.execute("UPDATE steps SET request = NULL WHERE run_id = ?", [parent])
    for k in (1, 2, 3, 4):  # from nothing but the replies and outcomes
        assert seeded(k) == stored[k], k
    with pytest.raises(CockpitError, match="has no step 5"):
        check_step(store, parent, 5)  # the run answered: there is nothing after its last step
    with pytest.raises(CockpitError, match="not a step number"):
        check_step(store, parent, 0)


def test_a_changed_site_diverges_at_the_right_step_and_the_branch_run_says_so(browser, bsite, store):
    with ModelServer(parent_script()) as srv:
        parent, psteps = record_parent(browser, store, bsite, srv)
    root = bsite.root
    # the link on A now leads to a sign-in page: the page of step 3 is another one
    (root / "branch_a.html").write_text((PAGES / "branch_a.html").read_text().replace(
        'href="branch_b.html"', 'href="branch_login.html"'))
    with ModelServer(by_page({})) as srv2, model_client(srv2, timeout=20) as client:
        result = branch(RunContext(browser, store, client), parent, 4, AgentConfig(wait_seconds=0.2))
        assert srv2.requests == []  # no model call after a divergence
    d = result.divergence
    assert (result.status, d.step, d.reason) == ("failed", 3, "url")
    assert d.expected_url == psteps[2]["url"] and d.expected_url.endswith("/branch_b.html")
    assert d.actual_url.endswith("/branch_login.html") and d.similarity < 0.6
    assert re.fullmatch(r"step 3: the page no longer matches: expected http://127\.0\.0\.1:\d+/branch_b\.html, "
                        r"got http://127\.0\.0\.1:\d+/branch_login\.html \(marks similarity 0\.\d\d < 0\.6\)",
                        d.message), d.message
    assert [i.step for i in result.replayed] == [2]
    run = store.run(result.run_id)  # created, so the user sees it, and failed with the report
    assert (run["status"], run["error"], run["steps"]) == ("failed", d.message, 0)
    assert (run["parent_run"], run["parent_step"]) == (parent, 4)

    # same address, other content: the marks no longer match
    shutil.copy(PAGES / "branch_a.html", root / "branch_a.html")
    shutil.copy(PAGES / "branch_login.html", root / "branch_b.html")
    with pytest.raises(Diverged) as e:
        replay(RunContext(browser, store), parent, 4)
    d = e.value.divergence
    assert (d.step, d.reason, d.expected_url, d.actual_url) == (3, "marks", psteps[2]["url"], psteps[2]["url"])
    assert d.similarity < 0.6 and "marks similarity" in str(e.value)
    assert [i.step for i in e.value.replayed] == [2]

    # the page still matches, but the button the step clicked is gone
    (root / "branch_b.html").write_text((PAGES / "branch_b.html").read_text().replace(
        ">Continue to C<", ">Proceed<"))
    with pytest.raises(Diverged) as e:
        replay(RunContext(browser, store), parent, 4)
    d = e.value.divergence
    assert (d.step, d.reason) == (3, "target")
    assert 'acted on, [' in d.message and '<button> "Continue to C"' in d.message


def test_replaying_a_whole_run_visits_the_same_pages(browser, bsite, store):
    with ModelServer(parent_script()) as srv:
        parent, psteps = record_parent(browser, store, bsite, srv)
    seen = []
    t0 = time.monotonic()
    done = replay(RunContext(browser, store, on_replay=lambda n, info: seen.append(n)), parent, None,
                  ReplayOptions(speed=50.0))
    assert time.monotonic() - t0 < 15
    assert [d.step for d in done] == seen == [2, 3]
    assert [d.url for d in done] == [psteps[1]["url"], psteps[2]["url"]]
    assert [d.url_after for d in done] == [psteps[1]["url_after"], psteps[2]["url_after"]]
    assert same_url(browser.url, psteps[3]["url"])
    assert all(d.similarity >= 0.6 for d in done) and "Click [" in done[0].describe()
    stopped = RunControl()
    stopped.stop()
    with pytest.raises(Stopped):
        replay(RunContext(browser, store, control=stopped), parent, None)
    # replaying nothing but the start page (branch from step 1) checks that page
    only = replay(RunContext(browser, store), parent, 1)
    assert [(d.step, d.is_check) for d in only] == [(1, True)] and only[0].similarity == 1.0


class SwappingApprover:
    """Says yes, but while the question is open the page re-renders: the approved button becomes another, one that
    looks no riskier (so only the binding can tell)."""

    def __init__(self, browser):
        self.browser, self.requests = browser, []

    def decide(self, request, cancel):
        self.requests.append(request)
        self.browser.js("const b = [...document.querySelectorAll('button')].find(b => b.textContent.includes("
                        "'Continue to C')); b.textContent = 'Continue to D'; b.onclick = () => { window.__clicked = 1; };")
        return Decision(True, "human:tester")


def test_a_replayed_step_runs_only_on_the_element_its_approver_saw(browser, bsite, store):
    """Issue #17's binding, in a replay: the approval was for "Continue to C"; when the button under that mark is
    now "Continue to D", nothing is clicked and the replay stops there, saying why."""
    with ModelServer(parent_script()) as srv:
        parent, psteps = record_parent(browser, store, bsite, srv)
    with store._lock:  # as if the click on B had been an order's submit button
        store.db.execute("UPDATE steps SET risk = 'irreversible' WHERE run_id = ? AND step = 3", [parent])
    swap = SwappingApprover(browser)
    with pytest.raises(Diverged) as e:
        replay(RunContext(browser, store, approver=swap), parent, None)
    d = e.value.divergence
    assert d.step == 3 and "not what was approved" in d.message and "Continue to D" in d.message, d.message
    assert swap.requests[0].mark.text == "Continue to C"
    assert browser.js("return window.__clicked || 0") == 0, "the swapped button was clicked"


def test_irreversible_steps_need_a_yes_and_stop_ends_a_branch_in_its_replay(browser, bsite, store):
    with ModelServer(parent_script()) as srv:
        parent, psteps = record_parent(browser, store, bsite, srv)
    with store._lock:  # as if the click on B had been an order's submit button
        store.db.execute("UPDATE steps SET risk = 'irreversible' WHERE run_id = ? AND step = 3", [parent])
    with pytest.raises(Diverged) as e:
        replay(RunContext(browser, store), parent, None)
    d = e.value.divergence
    assert (d.step, d.reason) == (3, "refused") and "no approver" in d.message
    with pytest.raises(Diverged, match=r"step 3: replaying Click \[\d+\] was not approved .*policy:deny"):
        replay(RunContext(browser, store, approver=PolicyApprover(False)), parent, None)
    yes = ScriptedApprover([Decision(True, "human:tester")])
    done = replay(RunContext(browser, store, approver=yes), parent, None)
    assert [x.step for x in done] == [2, 3] and [r.step for r in yes.requests] == [3]
    assert yes.requests[0].risk.level == "irreversible" and yes.requests[0].mark.text == "Continue to C"
    assert len(replay(RunContext(browser, store), parent, None, ReplayOptions(policy="never"))) == 2

    control = RunControl()
    control.stop()
    with ModelServer(by_page({})) as srv2, model_client(srv2, timeout=20) as client:
        result = branch(RunContext(browser, store, client, control=control), parent, 4,
                        AgentConfig(wait_seconds=0.2))
        assert srv2.requests == []
    assert result.status == "stopped" and result.replayed == [] and result.divergence is None
    assert store.run(result.run_id)["status"] == "stopped"


def test_similarity_and_matching_marks():
    def mk(i, tag, text, x=0, **kw):
        return Mark(id=i, bbox=(x, 10 * i, 50, 10), tag=tag, text=text, **kw)
    a = [mk(1, "a", "Home"), mk(2, "button", "Buy"), mk(3, "input", "", type="text", placeholder="Search")]
    assert similarity(a, a) == 1.0 and similarity([], []) == 1.0 and similarity(a, []) == 0.0
    b = [mk(1, "a", "home "), mk(2, "button", "Buy"), mk(3, "a", "News")]
    assert similarity(a, b) == pytest.approx(2 / 4)
    assert similarity([m.to_dict() for m in a], b) == similarity(a, b)  # marks.json dicts work too
    assert similarity([mk(1, "button", "Buy")] * 2, [mk(1, "button", "Buy")] * 4) == 0.5
    assert same_url("http://h:1/p?q=1#top", "HTTP://H:1/p?q=1") and not same_url("http://h/p?q=1", "http://h/p?q=2")
    shifted = [mk(1, "a", "New!"), mk(2, "button", "Buy", x=500), mk(3, "button", "Buy", x=5)]
    assert match_mark(mk(2, "button", "Buy", x=0), shifted).id == 3  # the nearest of the same kind
    assert match_mark(mk(9, "a", "Gone", href="http://h/x"), shifted) is None
    # a link found by its address only when its label is alike (a count changed), not another one at that address
    # (walkthrough 5: a note deleted, /note?i=0 was another note, and replay clicked it)
    notes = [mk(1, "a", "Renew passport", href="http://h/note?i=0"), mk(2, "a", "Cart (3)", href="http://h/cart")]
    assert match_mark(mk(1, "a", "Call Alice about the quarterly report", href="http://h/note?i=0"), notes) is None
    assert match_mark(mk(5, "a", "Cart (2)", href="http://h/cart"), notes).id == 2
    assert match_mark(mk(5, "a", "", href="http://h/cart"), notes).id == 2  # an icon link: its address is all


def test_cli_replays_branches_and_reports_divergence(browser, bsite, tmp_path):
    home = tmp_path / "cli-home"
    with ModelServer(parent_script()) as srv:
        with Store(home) as store:
            parent, _ = record_parent(browser, store, bsite, srv)
        bad = cockpit(home, "branch", parent, "9")
        assert bad.returncode == 2 and "has no step 9" in bad.stderr
        r = cockpit(home, "branch", parent[:17], "4", "--replay-only")
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert lines[0].startswith("step 2  Click [") and lines[1].startswith("step 3  Click [")
        assert lines[2].startswith("step 4  page checked at ") and "similarity 1.00" in lines[2]
        assert lines[3].startswith(f"replayed 2 steps of {parent}; the pages matched")
        # go on with the parent's model (its server is still up): it answers on C
        n_before = len(srv.requests)
        r = cockpit(home, "branch", parent, "4", "--approval", "deny", "--max-steps", "3")
        assert r.returncode == 0, r.stderr
        new_id, answer = r.stdout.splitlines()[:2]
        assert answer == "7391" and "replay step 3" in r.stderr and len(srv.requests) == n_before + 1
    with Store(home) as store:
        run = store.run(new_id)
        assert (run["parent_run"], run["parent_step"], run["status"], run["model"]) == (parent, 4, "answered", "m")
    (bsite.root / "branch_a.html").write_text((PAGES / "branch_a.html").read_text().replace(
        'href="branch_b.html"', 'href="branch_login.html"'))
    r = cockpit(home, "branch", parent, "0", "--replay-only")
    assert r.returncode == 4, r.stderr
    assert "DIVERGED step 3: the page no longer matches: expected " in r.stdout
    assert "/branch_login.html (marks similarity" in r.stdout and "diverged" in r.stderr


def test_an_address_the_browser_only_wrote_differently_is_no_page_change():
    """The change measure (effects) and replay (pagematch) agree on what counts as the same page."""
    from PIL import Image

    from cockpit.core.page.effects import effect
    from cockpit.core.page.match import same_url
    shot = Image.new("L", (256, 192))
    for a, b in (("http://Shop.example", "http://shop.example/"), ("https://x.org/a#top", "https://x.org/a")):
        assert same_url(a, b)
        assert effect(a, [], shot, b, [], shot).url_changed is False
    assert effect("https://x.org/a", [], shot, "https://x.org/b", [], shot).url_changed is True
