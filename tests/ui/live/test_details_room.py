"""The Live step-detail pane is tall enough to read a step (issue #38, A14): after a run that asked at the gate,
with many steps whose outcomes wrap, a selected step's details still show at least five lines, and the window
fits a 1024x700 screen with the step log in view. Real window (offscreen), real Chromium on a local page, the
real openai client on the scripted model server."""
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from tests.models import by_page, mark_for
from tests.ui.windowtools import LONG, records, wait_idle


def test_a_selected_steps_details_show_five_lines_after_a_gate_on_a_small_screen(qtbot, window_factory, site):
    w = window_factory()
    w.resize(1024, 700)
    # ten steps whose outcomes are long errors (rows of several lines), then an irreversible click: the gate
    responder = by_page({
        "Notes": [*["Thought: I click the delete button.\nAction: Click [999]"] * 10,
                  lambda b: f"Thought: now the right one.\nAction: Click [{mark_for(b, 'Delete all')}]"],
        "Error response": "Thought: done.\nAction: ANSWER; deleted"})
    w.toolbar.max_steps.setValue(20)
    w.live.task_bar.set_task("Delete all notes", site.url("refused_post.html"))
    with ModelServer(responder) as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model="test-model", max_retries=0, timeout=30)
        assert w.start_run()
        qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
        qtbot.wait(200)
        w.live.approval.approve()
        wait_idle(qtbot, w, timeout=LONG)
    assert len(records(w)[1]) == 12
    live = w.live
    live.log_panel.select_step(12)
    qtbot.wait(200)
    details = live.details
    for page in (details.summary, details.raw):
        details.setCurrentWidget(page)
        qtbot.wait(50)
        lines = page.viewport().height() / page.fontMetrics().lineSpacing()
        assert lines >= 5, (page, page.height(), live.right.sizes())
    assert live.log_panel.viewport().height() >= 3 * live.log_panel.fontMetrics().lineSpacing()  # the log stays
    assert w.width() <= 1024 and w.height() <= 700
