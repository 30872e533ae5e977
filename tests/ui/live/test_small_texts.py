"""Small things a new user tripped over in the Live tab (issue #38, A20), at 1024x700: the empty view names the
demo box by its label; the breakpoint value's placeholder is an obvious example; the breakpoint help is read
whole; at the gate, Raw reply shows the reply the question is about; a page with no title is captioned
"(no title)", not "— —". Real window (offscreen), real Chromium, the scripted model server."""
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from tests.models import mark_for
from tests.ui.windowtools import LONG, wait_idle


def test_the_empty_view_and_the_breakpoint_form_say_what_the_window_shows(qtbot, window_factory):
    w = window_factory()
    w.resize(1024, 700)
    assert w.toolbar.demo_box.text() in w.live.view.message()  # "tick Demo policy (offline)", the box's label
    bp = w.live.bp_panel
    w.live.log_tabs.setCurrentWidget(bp)
    bp.kind.setCurrentIndex(bp.kind.findData("action"))
    qtbot.wait(50)
    assert bp.value.placeholderText().startswith("action kind, e.g. click")  # an example, not a value
    assert bp.help.isVisible() and not bp.help.isElided(), bp.help.text()  # whole at 1024 px
    assert w.width() <= 1024 and w.height() <= 700


def test_at_the_gate_raw_reply_shows_the_reply_and_an_untitled_page_says_so(qtbot, window_factory, site):
    w = window_factory()
    w.resize(1024, 700)
    reply = {}

    def delete(body):
        reply["text"] = f"Thought: I delete the notes as asked.\nAction: Click [{mark_for(body, 'Delete all')}]"
        return reply["text"]
    w.live.task_bar.set_task("Delete all notes", site.url("untitled_notes.html"))
    with ModelServer(delete) as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model="test-model", max_retries=0, timeout=30)
        assert w.start_run()
        qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
        caption = w.live.banner.fullText()
        assert "(no title) — http://" in caption and "— —" not in caption
        w.live.log_panel.select_step(1)
        qtbot.waitUntil(lambda: w.live.details.raw.toPlainText() == reply["text"], timeout=5000)
        w.toolbar.act_stop.trigger()
        wait_idle(qtbot, w)
