"""Review's D: a run labelled not executable (the task could not be attempted), with the reason asked for from
the keyboard; and Reports listing such runs apart, never as failures."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from cockpit.core.store import labels as L
from cockpit.ui.reports.panel import ReportsPanel
from cockpit.ui.review.reason_dialog import ReasonDialog
from testkit.fakeruns import make_run
from tests.ui.review.driving import focus_view

NE = L.NOT_EXECUTABLE


def press_d(qtbot, p) -> ReasonDialog:
    """D on the view; the question that opens."""
    asked = []
    p.labeller.reasonAsked.connect(asked.append)
    qtbot.keyClick(p.viewer.view, Qt.Key_D)
    qtbot.waitUntil(lambda: bool(asked) and asked[0].isVisible(), timeout=3000)
    dlg = asked[0]
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dlg.choices, timeout=3000)
    return dlg


def mine(store, rid):
    got = L.labels(store, rid, "ada")
    return (got[0]["verdict"], got[0]["category"]) if got else None


def test_d_then_a_digit_labels_the_run_not_executable_with_that_reason(qtbot, panel, store):
    rid = make_run(store, steps=2, task="book a table for two")
    p = panel("ada")
    helps = [lab.text() for lab in p.findChildren(QLabel) if lab.isVisible()]
    assert any("D not executable (asks why)" in t for t in helps), helps  # the keys' help, before a run is picked
    p.show_run(rid)
    assert p.label_bar.btn_not_executable.text() == "Not executable (D)" and p.label_bar.btn_not_executable.isVisible()
    focus_view(qtbot, p)
    dlg = press_d(qtbot, p)
    assert mine(store, rid) is None  # nothing stored before the reason is given
    qtbot.keyClick(dlg.choices, Qt.Key_1)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=3000)
    assert mine(store, rid) == (NE, "CAPTCHA")
    assert p.label_bar.status.text() == "your label: not executable (CAPTCHA)"
    assert p.label_bar.category.currentText() == ""  # the reason is no failure category
    assert f"ada:{NE}" in p.browser.model.rows[p.browser.model.row_of(rid)]["human"]


def test_own_words_or_details_are_typed_and_esc_labels_nothing(qtbot, panel, store):
    rid = make_run(store, steps=2, task="renew a library book")
    p = panel("ada")
    p.show_run(rid)
    focus_view(qtbot, p)
    dlg = press_d(qtbot, p)
    qtbot.keyClick(dlg, Qt.Key_Escape)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=3000)
    assert mine(store, rid) is None
    assert "not labelled" in p.label_bar.status.text()
    focus_view(qtbot, p)
    dlg = press_d(qtbot, p)
    qtbot.keyClick(dlg.choices, Qt.Key_Down)
    qtbot.keyClick(dlg.choices, Qt.Key_Down)  # Login wall (focus made CAPTCHA current, not chosen)
    qtbot.keyClick(dlg.choices, Qt.Key_Tab)
    assert QApplication.focusWidget() is dlg.text
    qtbot.keyClicks(dlg.text, "the library card number 12 is asked first")  # digits typed, not picked
    qtbot.keyClick(dlg.text, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=3000)
    assert mine(store, rid) == (NE, "Login wall: the library card number 12 is asked first")
    # D again: the reason as stored, to change; own words only
    focus_view(qtbot, p)
    dlg = press_d(qtbot, p)
    assert dlg.choices.selectedIndexes()[0].row() == 2 and dlg.text.text() == "the library card number 12 is asked first"
    dlg.choices.clearSelection()
    dlg.text.setText("the page is only in a language the agent was told not to use")
    qtbot.keyClick(dlg.text, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=3000)
    assert mine(store, rid) == (NE, "the page is only in a language the agent was told not to use")


def test_a_comment_keeps_the_reason_and_f_afterwards_keeps_no_reason_as_category(qtbot, panel, store):
    rid = make_run(store, steps=2, task="order a pizza")
    p = panel("ada")
    p.show_run(rid)
    focus_view(qtbot, p)
    dlg = press_d(qtbot, p)
    qtbot.keyClick(dlg.choices, Qt.Key_4)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=3000)
    p.label_bar.comment.setText("the shop says it does not deliver here")
    p.label_bar.comment.editingFinished.emit()
    assert mine(store, rid) == (NE, "Blocked region")
    assert L.labels(store, rid, "ada")[0]["comment"] == "the shop says it does not deliver here"
    focus_view(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_F)
    assert mine(store, rid) == ("fail", "")


def test_reports_list_not_executable_runs_apart(qtbot, store):
    done = make_run(store, steps=2, task="buy a lamp", answer="bought")
    blocked = make_run(store, steps=1, task="check the opening hours", answer="none")
    L.set_label(store, done, "ada", "success")
    L.set_label(store, blocked, "ada", NE, category="Site down")
    L.set_label(store, blocked, "bob", NE, category="CAPTCHA")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    assert "1 run the annotators found could not be attempted" in panel.not_executable.text()
    assert panel.not_executable_runs.count() == 1
    item = panel.not_executable_runs.item(0)
    assert item.text().startswith(f"{blocked} (ada: Site down; bob: CAPTCHA)")
    opened = []
    panel.openRun.connect(opened.append)
    panel.not_executable_runs.itemDoubleClicked.emit(item)
    assert opened == [blocked]
    assert "1 run with a known outcome" in panel.assisted.text()  # the blocked run is no failure
