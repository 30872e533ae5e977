"""The gate at 1024x700 as a new user meets it (#38): the step's details show the thought and the action (they
showed one line), the question's buttons stay in view, and a box number not on the screenshot is said under the
edit field as it is typed, Approve waiting until it is fixed (it was said only on Approve).

Real window (offscreen), real Chromium, the demo policy on the bundled Demo Shop.
"""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.ui.windowtools import LONG


def _wholly_seen(widget) -> bool:
    """All of `widget` is on screen: shown, not scrolled or clipped away, inside the window."""
    r = widget.visibleRegion().boundingRect()
    top = widget.mapTo(widget.window(), r.topLeft())
    return (widget.isVisible() and r.height() >= widget.height() - 1 and r.width() >= widget.width() - 1
            and widget.window().rect().contains(top) and top.y() + r.height() <= widget.window().height())


def _lines_shown(text_view) -> int:
    return text_view.viewport().height() // text_view.fontMetrics().lineSpacing()


def test_the_gate_at_1024x700_shows_the_thought_and_flags_a_bad_box_while_it_is_typed(qtbot, window_factory):
    w = window_factory(demo=True)
    w.resize(1024, 700)
    assert w.start_run()
    a = w.live.approval
    qtbot.waitUntil(lambda: a.isVisible(), timeout=LONG)
    qtbot.wait(300)  # the room keeper has given the panel its height
    assert w.height() <= 700 and w.width() <= 1024
    summary = w.live.details.summary
    # before the fix: 2 lines (one line of text and part of a second)
    thought = w.live.log_panel.row_facts(a.request.step)
    # before the fix: its page, thought and messages "show here once it is done", in one line and a part
    qtbot.waitUntil(lambda: "Thought" in summary.toPlainText() and a.request.display in summary.toPlainText(),
                    timeout=10_000)
    assert a.request.thought and a.request.thought[:60] in summary.toPlainText().replace("\n", " "), thought
    assert summary.isVisible() and _lines_shown(summary) >= 4, _lines_shown(summary)
    assert _wholly_seen(a.approve_btn) and _wholly_seen(a.reject_btn) and _wholly_seen(a.edit_btn)
    boxes = a.request.boxes
    assert boxes and boxes > 1
    a.edit_btn.click()
    a.edit.clear()
    qtbot.keyClicks(a.edit, f"Click [{boxes + 33}]")  # typed, no Enter, no Approve
    QApplication.processEvents()
    # before the fix: nothing said, Approve enabled, until Approve was pressed
    assert a.error.isVisible() and _wholly_seen(a.error)
    assert a.error.text() == f"there is no box [{boxes + 33}] on this screenshot: the boxes are [1] to [{boxes}]"
    assert not a.approve_btn.isEnabled() and "Fix the action first" in a.approve_btn.toolTip()
    assert _wholly_seen(a.approve_btn)  # the error under the field pushed nothing off the screen
    qtbot.keyClick(a.edit, Qt.Key_Backspace)
    qtbot.keyClick(a.edit, Qt.Key_Backspace)
    qtbot.keyClicks(a.edit, "]")  # Click [n]: a box that is there
    assert a.edit.text() == f"Click [{boxes + 33}]"[:-2] + "]"
    QApplication.processEvents()
    fixed = int(a.edit.text().split("[")[1].rstrip("]"))
    assert 0 < fixed <= boxes and not a.error.isVisible() and a.approve_btn.isEnabled()
    qtbot.keyClick(a.edit, Qt.Key_Escape)  # the agent's action again: nothing to fix
    assert not a.edit.isVisible() and a.approve_btn.isEnabled() and not a.error.isVisible()
    w.bridge.stop()


def test_the_gate_on_a_large_window_takes_what_it_holds_and_the_step_log_the_rest(qtbot, window_factory,
                                                                                   screen_size):
    """Walkthrough 4 and 5: at 1280x800 the gate was mostly blank below its reasons, and the step log showed three
    rows."""
    screen_size(1600, 1000)
    w = window_factory(demo=True)
    w.resize(1280, 800)
    assert w.start_run()
    a = w.live.approval
    qtbot.waitUntil(lambda: a.isVisible(), timeout=LONG)
    qtbot.wait(300)  # the room keeper has given the panel its height
    why = a.why.widget()
    blank = a.why.height() - why.layout().heightForWidth(a.why.viewport().width())
    assert blank <= 8, blank  # no empty band under the reasons
    log = w.live.log_panel
    assert log.viewport().height() >= 6 * log.sizeHintForRow(0), (log.viewport().height(), log.sizeHintForRow(0))
    assert _wholly_seen(a.approve_btn) and _wholly_seen(a.reject_btn)
