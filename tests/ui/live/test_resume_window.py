"""Resuming from the window (Review tab → Resume): the run's own approval gate, and no model client left open.

Real parts: `cockpit run` in a subprocess killed with SIGKILL, real Chromium, the real store, the scripted
model server, the real window (offscreen).
"""
import threading

import pytest

from cockpit.core.llm.client import ModelClient
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.settings import Settings
from cockpit.core.store import Store, liveness
from cockpit.core.store.newrun import NewRun
from cockpit.ui.live import bridge as bridge_module
from cockpit.ui.main_window import MainWindow
from tests.clitools import kill_leftovers, kill_when, text_of
from tests.lookahead_helpers import mark_in

LONG = 120_000
RESUMED = "has been resumed"


class OrderModel:
    """Before the kill: open the details page, then hang on the next question (the test kills the run).
    After the resume: follow "Order a copy", click "Place order"; refused, it answers "not ordered"."""

    def __init__(self):
        self.stuck = threading.Event()

    def __call__(self, body):
        text = text_of(body['messages'][-1])
        if "refused by the human supervisor" in text:
            return "Thought: refused.\nAction: ANSWER; not ordered"
        if "The page is 'Order placed'" in text:
            return "Thought: done.\nAction: ANSWER; ordered"
        if "The page is 'Order'" in text:
            return f"Thought: place it.\nAction: Click [{mark_in(text, 'Place order')}]"
        if RESUMED in text:
            return f"Thought: order a copy.\nAction: Click [{mark_in(text, 'Order a copy')}]"
        if "The page is 'Agent start'" in text:
            return f"Thought: open the details.\nAction: Click [{mark_in(text, 'Open the details page')}]"
        self.stuck.set()
        return Reply(text="Thought: hmm\nAction: Wait", delay=60)


def run_until_step_2_and_kill(home, url: str, srv, model: OrderModel) -> None:
    """`cockpit run --ask-before irreversible` until step 1 is committed and step 2 waits on the model;
    then SIGKILL it."""
    kill_when(home, ["run", "--task", "Order a copy of the book", "--url", url, "--base-url", srv.base_url,
                     "--model", "m", "--max-steps", "6", "--ask-before", "irreversible"], model.stuck, "step 2")

@pytest.mark.fault("kill")
def test_window_resume_asks_as_the_run_did_though_its_settings_never_ask(qtbot, site, tmp_path):
    home = tmp_path / "home"
    model = OrderModel()
    with ModelServer(model) as srv:
        try:
            run_until_step_2_and_kill(home, site.url("agent_start.html"), srv, model)
        finally:
            kill_leftovers(home)
        w = MainWindow(settings=Settings(annotator="ada", approval_policy="never"), store_root=home)
        qtbot.addWidget(w)
        w.show()
        try:
            (rid, run), = [(r["id"], w.store.run(r["id"])) for r in w.store.runs()]
            assert run["status"] == "interrupted" and run["config"]["agent"]["approval_policy"] == "irreversible"
            assert w.toolbar.policy.currentText() == "never"  # today's setting: do not ask

            w.modes.setCurrentWidget(w.review)
            w.review.show_run(rid)
            w.review.viewer.tools.resume_btn.click()  # the window's own path: Review → Resume → start_resume
            assert w.modes.currentWidget() is w.live
            assert "approval policy: irreversible" in w.status.current()
            qtbot.waitUntil(lambda: w.live.approval.isVisible() or not w.runs.running, timeout=LONG)
            assert w.live.approval.isVisible(), "the resumed run went on without asking before placing the order"
            assert "Place order" in w.live.approval.title.text() and "irreversible" in w.live.approval.title.text()
            w.live.approval.message.setText("not from here")
            w.live.approval.reject_btn.click()
            qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
        finally:
            w.close()
            kill_leftovers(home)

    with Store(home) as store:
        run = store.run(rid)
        steps = store.steps(rid)
        decisions = store.decisions(rid)
    assert (run["status"], run["answer"]) == ("refused", "not ordered")  # stopped at the gate (#20)
    assert [s["step"] for s in steps] == [1, 2, 3, 4]  # step 1 before the kill, the rest numbered on
    assert not any((s["url_after"] or "").endswith("agent_ordered.html") for s in steps), "the order was placed"
    place = steps[2]
    assert place["status"] == "refused" and place["risk"] == "irreversible"
    assert [(d["approved"], d["by"], d["message"], d["policy"]) for d in decisions] == \
        [(0, "human:ada", "not from here", "irreversible")]


@pytest.fixture
def made_clients(monkeypatch):
    """Every ModelClient the bridge makes (real ones; only remembered)."""
    made = []

    class Remembered(ModelClient):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self)
    monkeypatch.setattr(bridge_module, "ModelClient", Remembered)
    return made


@pytest.mark.parametrize("status", ["answered", "closed"])
def test_a_resume_that_cannot_go_on_closes_its_model_client(qtbot, window, made_clients, status):
    """The run cannot be resumed (it ended, or was given up on): the window says why, the run is left as it
    was, and the model client the bridge opened for it is closed."""
    with Store(window.store_root) as store:
        rid = store.new_run(NewRun("Read the page", "http://127.0.0.1:9/start.html", model="m",
                                   base_url="http://127.0.0.1:9/v1", approval_policy="irreversible",
                                   config={"model": {"base_url": "http://127.0.0.1:9/v1", "model": "m", "max_retries": 0},
                                           "agent": {"max_steps": 5, "approval_policy": "irreversible"}}))
        if status == "answered":
            store.finish_run(rid, "answered", answer="42")
        else:
            store.finish_run(rid, "interrupted", error="the process running it ended")
            liveness.close_run(store, rid)
    assert window.start_resume(rid)
    qtbot.waitUntil(lambda: not window.runs.running, timeout=LONG)
    assert window.live.error_banner.isVisible()
    assert "cannot be resumed" in window.live.error_banner.text() or "already ended" in window.live.error_banner.text()
    assert len(made_clients) == 1
    assert made_clients[0]._client.is_closed(), "the failed resume left its model client open"
    with Store(window.store_root) as store:
        assert store.run(rid)["status"] == status  # nothing changed by the failed resume


def test_a_window_branch_asks_at_least_as_its_parent_did(window, monkeypatch):
    """The toolbar says "never", the parent run asked before every action: the branch asks before every
    action, and the banner says so."""
    parent = window.store.new_run(NewRun("Read the page", "http://127.0.0.1:9/", model="m", approval_policy="every",
                                         config={"agent": {"approval_policy": "every"}}))
    window.store.finish_run(parent, "answered", answer="x")
    started = []
    monkeypatch.setattr(window.bridge, "start", lambda spec, paused=False: started.append(spec) or True)
    window.toolbar.policy.setCurrentText("never")
    assert window.start_branch(parent, 1)
    assert started[0].agent.approval_policy == "every" and (started[0].kind.run_id, started[0].kind.step) == (parent, 1)
    assert "approval policy: every" in window.live.banner.fullText()
