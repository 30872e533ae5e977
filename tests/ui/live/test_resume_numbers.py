"""After Resume (Review → Resume) the Live tab numbers the run as it is recorded (#38: the step log started at the
first new step, "row 2", and the budget read "agent step 1/15", the toolbar's, of a run of 6 with one step spent).
Real parts: `cockpit run` killed with SIGKILL, real Chromium, the real store, the scripted model server, the window."""
import threading

from cockpit.core.llm.modelserver import ModelServer, Reply
from tests.clitools import kill_leftovers, kill_when, text_of
from tests.lookahead_helpers import mark_in
from tests.ui.windowtools import LONG, wait_idle


class OrderModel:
    """Before the kill: open the details page, then hang (the test kills the run). After the resume: "Order a
    copy", then "Place order", which the gate asks about."""

    def __init__(self):
        self.stuck = threading.Event()

    def __call__(self, body):
        text = text_of(body["messages"][-1])
        if "refused by the human supervisor" in text:
            return "Thought: refused.\nAction: ANSWER; not ordered"
        if "The page is 'Order'" in text:
            return f"Thought: place it.\nAction: Click [{mark_in(text, 'Place order')}]"
        if "has been resumed" in text:
            return f"Thought: order a copy.\nAction: Click [{mark_in(text, 'Order a copy')}]"
        if "The page is 'Agent start'" in text:
            return f"Thought: open the details.\nAction: Click [{mark_in(text, 'Open the details page')}]"
        self.stuck.set()
        return Reply(text="Thought: hmm\nAction: Wait", delay=60)


def test_a_resumed_run_is_numbered_as_recorded(qtbot, window_factory, site, tmp_path):
    model = OrderModel()
    w = window_factory()
    home = w.store_root
    w.close()
    with ModelServer(model) as srv:
        try:
            kill_when(home, ["run", "--task", "Order a copy of the book", "--url", site.url("agent_start.html"),
                             "--base-url", srv.base_url, "--model", "m", "--max-steps", "6",
                             "--ask-before", "irreversible"], model.stuck, "step 2")
        finally:
            kill_leftovers(home)
        w = window_factory()
        try:
            (run,) = w.store.runs()
            (first,) = w.store.steps(run["id"])  # step 1, committed before the kill
            assert w.toolbar.max_steps.value() != 6  # the toolbar's budget is not the run's
            assert w.start_resume(run["id"])
            qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)  # step 3: "Place order"
            log = w.live.log_panel
            assert sorted(log.items) == [1, 2, 3]  # from row 1, as the run is recorded
            assert log.items[1].text(1) == first["action"] and log.items[1].text(3).startswith("clicked")
            assert log.items[2].text(1).startswith("Click [") and log.items[2].text(3).startswith("clicked")
            assert w.status.steps.text() == "row 3 · agent step 3/6"  # step 1 spent before, of the run's 6
            w.live.approval.reject_btn.click()
            wait_idle(qtbot, w)
        finally:
            w.close()
            kill_leftovers(home)
