"""An action that ran but met an error page is a warning, not a success (issue #38, A10): a click on a form the
site answers with HTTP 404 shows amber in the step log with the reason, in the step's details and in
`cockpit runs`. Real window (offscreen), real Chromium on a local page, the real openai client on the scripted
model server."""
from PySide6.QtGui import QColor

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.ui.live.step_log import WARN_COLOR
from tests.clitools import cockpit, ok
from tests.models import by_page, mark_for
from tests.ui.windowtools import LONG, records, wait_idle


def test_a_click_the_site_answers_with_an_http_error_is_shown_as_a_warning(qtbot, window_factory, site):
    w = window_factory()
    w.resize(1024, 700)
    responder = by_page({"Notes": lambda b: f"Thought: I delete them.\nAction: Click [{mark_for(b, 'Delete all')}]",
                         "Error response": "Thought: that failed.\nAction: ANSWER; could not delete"})
    w.toolbar.policy.setCurrentText("never")
    w.live.task_bar.set_task("Delete all notes", site.url("refused_post.html"))
    with ModelServer(responder) as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model="test-model", max_retries=0, timeout=30)
        assert w.start_run()
        wait_idle(qtbot, w, timeout=LONG)
    run, steps, _ = records(w)
    assert run["status"] == "answered" and steps[0]["status"] == "ok"
    assert "the site answered HTTP 404 (Not Found)" in steps[0]["outcome"]
    row = w.live.log_panel.items[1]
    assert row.text(3).startswith("⚠ clicked")
    assert row.foreground(3).color() == QColor(WARN_COLOR)  # amber, not the success green
    assert "Warning: the site answered HTTP 404 (Not Found)" in row.toolTip(3)
    w.live.log_panel.select_step(1)
    qtbot.waitUntil(lambda: "⚠ the site answered HTTP 404" in w.live.details.summary.toPlainText(), timeout=5000)
    printed = ok(cockpit(w.store_root, "runs", run["id"]))
    assert "warning:  the site answered HTTP 404 (Not Found): the action may not have worked" in printed
    # the answer step after it, on the error page, is not warned about again
    assert not w.live.log_panel.items[2].text(3).startswith("⚠")
