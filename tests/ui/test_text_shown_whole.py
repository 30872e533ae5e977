"""Text the window shows whole (issue #20, "Text cut off or confusing"): real demo runs, offscreen Qt.

Each test asserts what a user reads: a column's text not cut, the full text a tooltip or an expanded row away.
"""
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication

from tests.ui.windowtools import LONG, cell_whole


def shown(tooltip: str) -> str:
    """A tooltip's text as the user reads it."""
    doc = QTextDocument()
    doc.setHtml(tooltip)
    return doc.toPlainText().replace("\xa0", " ")


def finish(qtbot, w):
    """Refuse at the gate and let the run end before the window closes."""
    if w.live.approval.isVisible():
        w.live.approval.reject_btn.click()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)


def at_gate(qtbot, w):
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    QApplication.processEvents()


def test_step_log_columns_show_their_text_whole_and_the_outcome_in_tooltip_and_expanded_row(qtbot, wide_window):
    w = wide_window
    at_gate(qtbot, w)
    log = w.live.log_panel
    h = log.header()
    for col in (4, 5):  # time, tokens: as wide as their longest text and their header
        assert h.sectionSize(col) >= log.sizeHintForColumn(col), (col, h.sectionSize(col))
        assert h.sectionSize(col) >= h.sectionSizeHint(col), (col, h.sectionSize(col))  # "Ti" was "Time"
    assert h.sectionSize(0) >= max(h.sectionSizeHint(0), log.indentation() + log.fontMetrics().horizontalAdvance("10"))
    assert h.sectionSize(2) >= h.sectionSizeHint(2) and h.sectionSize(2) >= log.sizeHintForColumn(2)  # "waiting…"
    for n, item in log.items.items():  # the action, the decision and the outcome: wrapped in their cells, whole
        assert all(cell_whole(log, item, c) for c in (1, 2, 3)), (n, [item.text(c) for c in (1, 2, 3)])
    row = log.items[4]  # a click: 'clicked [7] <a> "Go to cart"; the page is now http://…'
    assert row.text(3) == 'clicked [7] <a> "Go to cart"'  # its first clause, whole in its cell
    outcome = shown(row.toolTip(3))  # the whole outcome in the tooltip
    assert outcome.startswith(row.text(3) + "; the page is now http://")
    child = next(row.child(i) for i in range(row.childCount()) if row.child(i).text(0).startswith("outcome: "))
    assert child.text(0) == "outcome: " + outcome  # and whole in the expanded row,
    log.expandItem(row)
    QApplication.processEvents()
    rect = log.visualItemRect(child)
    assert rect.height() >= 2 * log.fontMetrics().height()  # wrapped over lines, not cut at the row's end
    finish(qtbot, w)


PRICE_TASK = "What is the price of the Glass French Press in the Demo Shop?"


def test_review_runs_list_rows_tell_runs_apart(qtbot, wide_window):
    import re
    w = wide_window
    runs = []
    for _ in range(2):
        w.live.task_bar.set_task(PRICE_TASK, "demo:index.html")
        assert w.start_run()
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
        runs.append(w.runs.run_id)
    w.modes.setCurrentWidget(w.review)
    QApplication.processEvents()
    m, table = w.review.browser.model, w.review.browser.table
    columns = {m.headerData(c, Qt.Horizontal): c for c in range(m.columnCount())}
    assert {"Started", "Run", "Status", "Steps", "Site"} <= set(columns)

    def column(key):
        return columns[{"started": "Started", "id": "Run", "status": "Status", "steps": "Steps", "site": "Site"}[key]]
    rows = [[m.data(m.index(r, c)) for c in range(m.columnCount())] for r in range(m.rowCount())]
    assert len(rows) == 2 and rows[0] != rows[1]
    for r, run_id in zip(rows, reversed(runs)):  # newest first
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", r[column("started")])  # to the second
        assert r[column("id")] == run_id
        assert r[column("status")] == "answered" and int(r[column("steps")]) >= 2
        assert r[column("site")] == "Demo Shop"  # was empty
    head = table.horizontalHeader()
    for key in ("started", "id", "status", "steps", "site"):  # shown whole, not "2026-11-24 …"
        assert head.sectionSize(column(key)) >= table.sizeHintForColumn(column(key)), key
    assert w.review.browser.f_site.findText("Demo Shop") > 0  # and the site filter offers it


def test_one_step_numbering_in_the_status_bar_and_the_approval_panel(qtbot, wide_window):
    w = wide_window
    w.step_clicked()  # the agent's step 1, then paused
    qtbot.waitUntil(lambda: bool(1 in w.live.log_panel.items and w.live.log_panel.items[1].text(4))
                    and w.bridge.state == "paused", timeout=LONG)
    w.toolbar.act_take.trigger()
    qtbot.waitUntil(lambda: w.live.takeover.isVisible() and w.live.takeover.down_btn.isEnabled(), timeout=LONG)
    w.live.takeover.down_btn.click()  # a human step: row 2, no agent budget used
    qtbot.waitUntil(lambda: 2 in w.live.log_panel.items and bool(w.live.log_panel.items[2].text(4)), timeout=LONG)
    w.toolbar.act_hand.trigger()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    row = w.live.approval.request.step
    label = f"row {row} · agent step {row - 1}/15"  # the human's row counts in the log, not in the budget
    assert w.status.steps.text() == label
    assert w.live.approval.title.text().startswith(f"<b>R{label[1:]}: the agent wants to run</b>")
    finish(qtbot, w)


def test_an_actions_effect_is_said_in_plain_words(qtbot, wide_window):
    import re
    w = wide_window
    w.live.task_bar.set_task(PRICE_TASK, "demo:index.html")
    assert w.start_run()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    row = w.live.log_panel.items[1]  # typed the search and pressed Enter: the results page
    effect = next(row.child(i).text(0) for i in range(row.childCount()) if row.child(i).text(0).startswith("effect:"))
    said = re.compile(r"effect: page changed (a little|in part|a lot) \((under 1%|\d+%) of pixels\), "
                      r"(new|same) address, (same marks|\d+ new marks?(, \d+ marks? gone)?|\d+ marks? gone)")
    assert said.match(effect), effect  # not "effect: URL changed, 13% pixels"
    assert "new address" in effect
    w.modes.setCurrentWidget(w.review)
    w.review.browser.table.selectRow(0)
    qtbot.waitUntil(lambda: w.review.viewer.run is not None, timeout=LONG)
    info = w.review.viewer.step_info
    assert said.search(shown(info.text())), info.text()  # Review says it alike


def test_review_footer_follows_the_step_and_plus_minus_zoom(qtbot, wide_window):
    w = wide_window
    w.live.task_bar.set_task(PRICE_TASK, "demo:index.html")
    assert w.start_run()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    w.modes.setCurrentWidget(w.review)
    r = w.review
    r.browser.table.setFocus()
    r.browser.table.selectRow(0)
    qtbot.waitUntil(lambda: r.viewer.run is not None and r.viewer.view.has_screenshot(), timeout=LONG)
    qtbot.keyClick(r.browser.table, Qt.Key_Q)  # step 1: correct
    assert r.label_bar.status.text() == "step 1: correct"
    qtbot.keyClick(r.browser.table, Qt.Key_Right)  # on to step 2: the footer no longer speaks of step 1
    assert r.viewer.index == 1 and "step 1" not in r.label_bar.status.text()
    assert r.label_bar.status.text() == "not labelled by you"
    qtbot.keyClick(r.browser.table, Qt.Key_Left)  # step 1's judgement is in its own line
    assert "you: correct" in r.viewer.step_info.text()
    fitted = r.viewer.view.zoom.zoom_factor()
    qtbot.keyClick(r.browser.table, Qt.Key_Plus)  # +/- zoom in Review too, with the focus in the runs list
    assert r.viewer.view.zoom.zoom_factor() > fitted
    qtbot.keyClick(r.browser.table, Qt.Key_Minus)
    qtbot.keyClick(r.browser.table, Qt.Key_Minus)
    assert r.viewer.view.zoom.zoom_factor() < fitted
    qtbot.keyClick(r.browser.table, Qt.Key_0)
    assert abs(r.viewer.view.zoom.zoom_factor() - fitted) < 1e-6
