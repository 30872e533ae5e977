"""Branch from a Review step goes on with the run's own model, not silently with Model…'s (issue #38, B4).

The real window, real Chromium on the test site, real store; the models are scripted ModelServers."""
from PySide6.QtWidgets import QMessageBox

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from tests.ui.windowtools import LONG, records, wait_idle

TASK = "Scroll twice, then say done"


def som(body: dict) -> str:
    """A Set-of-Mark model: two scrolls, then the answer."""
    said = sum(1 for m in body["messages"] if m["role"] == "assistant")
    return "Thought: look\nAction: Scroll WINDOW; down" if said < 2 else "Thought: seen\nAction: ANSWER; done"


def uitars(body: dict) -> str:
    return "Thought: enough\nAction: finished(content='tars done')"


def parent_run(qtbot, w, srv, site) -> str:
    """A 3-step run made by the Set-of-Mark server; then Live's fields hold another task."""
    w.settings.model = ModelConfig(base_url=srv.base_url, model="som-7b", max_retries=0, timeout=30)
    w.live.task_bar.set_task(TASK, site.url("agent_start.html"))
    assert w.start_run()
    wait_idle(qtbot, w)
    run, steps, _ = records(w)
    assert run["status"] == "answered" and len(steps) == 3
    w.live.task_bar.set_task("Another task entirely", site.url("forms.html"))
    return run["id"]


def branch_from_step_3(qtbot, w, parent: str, tars_url: str):
    w.settings.model = ModelConfig(base_url=tars_url, model="UI-TARS-1.5-7B", dialect="uitars", coords="qwen",
                                   max_retries=0, timeout=30)
    w.modes.setCurrentWidget(w.review)
    w.review.show_run(parent)
    w.review.go(2)
    w.review.viewer.tools.branch_btn.click()
    box = w.branch_question
    qtbot.waitUntil(lambda: box is not None and box.isVisible())
    assert w.runs.run_id == parent  # nothing started before the person answered
    return box


def button(box, starts: str):
    found = [b for b in box.buttons() if b.text().startswith(starts)]
    return found[0] if found else None


def child_of(qtbot, w, parent: str) -> dict:
    qtbot.waitUntil(lambda: w.runs.run_id != parent, timeout=LONG)
    wait_idle(qtbot, w)
    with Store(w.store_root) as s:
        return s.run(w.runs.run_id)


def test_branch_asks_and_goes_on_with_the_runs_model(qtbot, window, site):
    w = window
    with ModelServer(som) as a, ModelServer(uitars) as b:
        parent = parent_run(qtbot, w, a, site)
        asked_before = len(a.requests)
        box = branch_from_step_3(qtbot, w, parent, b.base_url)
        assert "som-7b" in box.text() and "UI-TARS-1.5-7B" in box.text() and "Set-of-Mark" in box.text()
        assert button(box, "Branch with the current model (UI-TARS-1.5-7B)") is not None
        button(box, "Branch with the run's model (som-7b)").click()
        # the status bar names the model the branch calls (walkthrough 10: it named Model…'s the whole time)
        assert w.status.model.text() == "model: som-7b"
        child = child_of(qtbot, w, parent)
        qtbot.waitUntil(lambda: w.status.model.text() == "model: UI-TARS-1.5-7B")  # the next run's, once it ended
        assert (child["parent_run"], child["parent_step"]) == (parent, 3)
        model = child["config"]["model"]
        assert (model["model"], model["base_url"], model["dialect"]) == ("som-7b", a.base_url, "marks")
        assert child["status"] == "answered" and len(a.requests) > asked_before and not b.requests
        # the Live fields say what the branch ran, not the other task left there
        assert w.live.task_bar.task()[:2] == (TASK, site.url("agent_start.html"))


def test_branch_when_the_runs_server_is_gone_offers_the_current_model(qtbot, window, site):
    w = window
    with ModelServer(uitars) as b:
        with ModelServer(som) as a:
            parent = parent_run(qtbot, w, a, site)
        box = branch_from_step_3(qtbot, w, parent, b.base_url)
        assert "model server is gone" in box.text() and a.base_url in box.text()
        assert button(box, "Branch with the run's model") is None  # nothing answers there: not offered
        button(box, "Branch with the current model (UI-TARS-1.5-7B)").click()
        child = child_of(qtbot, w, parent)
        model = child["config"]["model"]
        assert (model["model"], model["dialect"], model["coords"]) == ("UI-TARS-1.5-7B", "uitars", "qwen")
        assert child["answer"] == "tars done" and b.requests


def test_branch_cancelled_starts_nothing(qtbot, window, site):
    w = window
    with ModelServer(som) as a, ModelServer(uitars) as b:
        parent = parent_run(qtbot, w, a, site)
        box = branch_from_step_3(qtbot, w, parent, b.base_url)
        box.button(QMessageBox.Cancel).click()
        qtbot.wait(300)
        assert w.runs.run_id == parent and not w.runs.running and not b.requests


def test_branch_with_the_model_set_now_asks_nothing(qtbot, window, site):
    w = window
    with ModelServer(som) as a:
        parent = parent_run(qtbot, w, a, site)  # Model… still says som-7b at a's address
        w.modes.setCurrentWidget(w.review)
        w.review.show_run(parent)
        w.review.go(2)
        w.review.viewer.tools.branch_btn.click()
        assert w.branch_question is None  # the same model: nothing to choose
        child = child_of(qtbot, w, parent)
        assert child["config"]["model"]["model"] == "som-7b" and child["parent_step"] == 3


def test_a_branch_says_which_run_and_step_it_continues(qtbot, window, site):
    """#38: a branch's steps are numbered from 1; its header in Live and Review says it continues run X at
    step k, and each of its steps says which step of that run it is."""
    w = window
    with ModelServer(som) as a:
        parent = parent_run(qtbot, w, a, site)
        w.modes.setCurrentWidget(w.review)
        w.review.show_run(parent)
        w.review.go(2)
        w.review.viewer.tools.branch_btn.click()
        child = child_of(qtbot, w, parent)
    said = f"continues run {parent} at step 3"
    live = w.live.banner.fullText()
    assert said in live, live  # Live's banner at the end of the branch
    w.modes.setCurrentWidget(w.review)
    w.review.show_run(child["id"])
    viewer = w.review.viewer
    assert said in viewer.header.text() and said in viewer.header_line.fullText()
    viewer.go(0)
    assert f"Step 1/{len(viewer.steps)}</b> (run {parent}&#x27;s step 3)" in viewer.step_info.text()
