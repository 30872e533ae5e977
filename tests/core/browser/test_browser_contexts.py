"""A clean browser per task without a new Chrome: browser contexts (issue #32).

Real headless Chromium. visits_deep.html counts earlier visits in a cookie, localStorage,
sessionStorage and IndexedDB: each task of a batch must see a first visit, in one browser per
worker; and the tab made ready for the next task is never taken for a popup to close.
"""
from cockpit.core.agent.approval import PolicyApprover
from cockpit.core.agent.batch import Batch
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.browser import contexts as contexts_mod
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.tasks.task import Task
from tests.models import answer_with_title

FIRST = "cookie 0 storage 0 session 0 idb 0"


def run_batch(site, tmp_path, monkeypatch, n=3, keep=False):
    started = []
    real_start = Batch._start_session

    def counting(self):
        started.append(1)
        return real_start(self)
    monkeypatch.setattr(Batch, "_start_session", counting)
    tasks = [Task(f"V--{i}", f"Visits {i}?", site.url("visits_deep.html")) for i in range(n)]
    with ModelServer(answer_with_title) as srv:
        items = Batch(tasks, ModelConfig(base_url=srv.base_url, model="m", max_retries=0), AgentConfig(),
                      BrowserConfig(), approver_factory=lambda: PolicyApprover(False),
                      store_root=tmp_path / "home", api_key="k", keep_browser=keep).run()
    return [it.result.answer for it in items], len(started)


def test_each_task_sees_a_first_visit_in_one_browser(site, tmp_path, monkeypatch):
    answers, browsers = run_batch(site, tmp_path, monkeypatch)
    assert answers == [FIRST] * 3, answers
    assert browsers == 1  # the tasks after the first moved into new contexts of the same Chrome


def test_keeping_the_browser_state_carries_the_visits_over(site, tmp_path, monkeypatch):
    answers, browsers = run_batch(site, tmp_path, monkeypatch, keep=True)
    assert answers == [f"cookie {i} storage {i} session {i} idb {i}" for i in range(3)], answers
    assert browsers == 1


def test_without_contexts_each_task_gets_a_new_browser(site, tmp_path, monkeypatch):
    monkeypatch.setattr(contexts_mod.Contexts, "open", classmethod(lambda cls, session: None))
    answers, browsers = run_batch(site, tmp_path, monkeypatch)
    assert answers == [FIRST] * 3, answers
    assert browsers == 3


def test_the_tab_made_ready_is_not_folded_away_as_a_popup(site):
    with BrowserSession() as b:
        b.goto(site.url("visits_deep.html"))
        b.prepare_context()
        b._contexts._spare.result()  # the next task's tab exists now
        # a stray tab in the default context, as a middle click would open (through the browser socket)
        stray = b._contexts._root.call("Target.createTarget", {"url": site.url("agent_details.html")})["targetId"]
        assert len(b.guarded(lambda: b.driver.window_handles)) == 3
        moved = b.ensure_single_tab()
        assert moved and moved.endswith("agent_details.html")
        handles = b.guarded(lambda: b.driver.window_handles)
        assert stray not in handles and len(handles) == 2  # the tab in use and the one made ready
        assert b.fresh_context()
        b.goto(site.url("visits_deep.html"))
        assert b.title == FIRST
        assert b.js("return [innerWidth, innerHeight, !!window.__cockpitState]") == [1024, 768, True]
        assert len(b.guarded(lambda: b.driver.window_handles)) == 1
