"""Review as a person uses it (issue #30): marks corrected in Review as in Live, and Review at 1024 and 1280 px.

The real window (offscreen Qt, a real store, runs made by testkit.fakeruns): a right-click on a box and
the M key act on the step shown; the filters read their whole text, the runs list shows its useful columns, the
count says "1 run", judgements read as words, and a long label or the W hint never widens the window.
"""
import pytest
from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtWidgets import QApplication, QComboBox, QInputDialog, QMenu, QStyle, QStyleOptionComboBox

from cockpit.core.store import corrections
from cockpit.core.store import labels as L
from cockpit.ui.review.runs_model import column
from testkit.fakeruns import make_run
from tests.ui.fits import fit_violations
from tests.ui.windowtools import right_click, when_shown

LONG_NAME = "Ada Lovelace-Byron, Countess of Lovelace (annotation team B, second pass)"
LONG_CATEGORY = "Unsafe action attempted while the page asked for confirmation of a payment"


def open_review(w, run_id=None):
    w.modes.setCurrentWidget(w.review)
    QApplication.processEvents()
    r = w.review
    if run_id:
        r.show_run(run_id)
    else:
        r.browser.table.selectRow(0)
    return r


def shown_mark(qtbot, r):
    """A box on the step's screenshot, and where it is on the screen (the viewport)."""
    qtbot.waitUntil(lambda: r.viewer.view.has_screenshot() and bool(r.viewer.view.marks()), timeout=5000)
    r.viewer.view.zoom.fit()
    mark = max(r.viewer.view.marks(), key=lambda m: m.bbox[2] * m.bbox[3])
    x, y, w, h = mark.bbox
    return mark, r.viewer.view.mapFromScene(x + w / 2, y + h / 2)


def pick_in_menu(text_start: str, seen: list):
    def act(menu: QMenu):
        seen.extend(a.text() for a in menu.actions())
        action = next(a for a in menu.actions() if a.text().startswith(text_start))
        menu.close()
        action.trigger()
    return (lambda: QApplication.activePopupWidget() if isinstance(QApplication.activePopupWidget(), QMenu)
            else None), act


def test_right_click_marks_a_box_spurious_in_review_and_undoes_it(qtbot, window):
    w = window
    rid = make_run(w.store, steps=3)
    r = open_review(w, rid)
    mark, pos = shown_mark(qtbot, r)
    seen = []
    when_shown(qtbot, *pick_in_menu(f"Mark [{mark.id}] as spurious", seen))
    right_click(r.viewer.view, pos)
    assert "Add a missing mark…" in seen
    fixes = [c for c in corrections.of(w.store, rid, 1) if c["kind"] == "spurious"]
    assert [(c["mark_id"], c["by"]) for c in fixes] == [(mark.id, "human:ada")]  # by, as Live stores it
    assert r.viewer.view.flagged() == {mark.id}  # drawn flagged (dashed grey)
    assert "spurious" in r.label_bar.status.text()
    r.go(1)
    r.go(0)  # back on the step: still shown flagged
    qtbot.waitUntil(lambda: r.viewer.view.flagged() == {mark.id}, timeout=5000)
    seen.clear()
    when_shown(qtbot, *pick_in_menu(f"Undo: [{mark.id}] is spurious", seen))
    right_click(r.viewer.view, pos)
    assert [c for c in corrections.of(w.store, rid, 1) if c["kind"] == "spurious"] == []
    assert r.viewer.view.flagged() == set()


def test_m_and_a_drawn_box_keep_a_missing_mark_in_review(qtbot, window):
    w = window
    rid = make_run(w.store, steps=3)
    r = open_review(w, rid)
    shown_mark(qtbot, r)
    r.activateWindow()
    r.viewer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is r.viewer.view, timeout=3000)
    qtbot.keyClick(r.viewer.view, Qt.Key_M)
    assert r.viewer.view.add_mode() and "Draw a box" in r.label_bar.status.text()
    a, b = r.viewer.view.mapFromScene(20, 20), r.viewer.view.mapFromScene(120, 60)

    def answer(dlg: QInputDialog):
        dlg.setTextValue("menu button")
        dlg.accept()
    when_shown(qtbot, lambda: QApplication.activeModalWidget() if isinstance(QApplication.activeModalWidget(),
                                                                             QInputDialog) else None, answer)
    qtbot.mousePress(r.viewer.view.viewport(), Qt.LeftButton, pos=a)
    qtbot.mouseMove(r.viewer.view.viewport(), b)
    qtbot.mouseRelease(r.viewer.view.viewport(), Qt.LeftButton, pos=b)
    missing = [c for c in corrections.of(w.store, rid, 1) if c["kind"] == "missing"]
    assert len(missing) == 1 and missing[0]["label"] == "menu button" and missing[0]["by"] == "human:ada"
    x, y, bw, bh = missing[0]["bbox"]
    assert abs(x - 20) <= 2 and abs(y - 20) <= 2 and abs(bw - 100) <= 3 and abs(bh - 40) <= 3
    assert r.viewer.view.extra_box_count() == 1 and not r.viewer.view.add_mode()
    assert "Added a missing mark on step 1" in r.label_bar.status.text()


def test_m_without_a_step_says_what_to_do(qtbot, window):
    w = window
    r = open_review(w)  # no run at all
    r.activateWindow()
    r.viewer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is r.viewer.view, timeout=3000)
    qtbot.keyClick(r.viewer.view, Qt.Key_M)
    assert not r.viewer.view.add_mode() and "Open a step first" in r.label_bar.status.text()
    right_click(r.viewer.view, QPoint(50, 50))  # no menu (nothing to correct), the same hint
    assert QApplication.activePopupWidget() is None and "Open a step first" in r.label_bar.status.text()


def _text_fits(combo: QComboBox) -> bool:
    opt = QStyleOptionComboBox()
    combo.initStyleOption(opt)
    field = combo.style().subControlRect(QStyle.CC_ComboBox, opt, QStyle.SC_ComboBoxEditField, combo)
    return combo.fontMetrics().horizontalAdvance(combo.currentText()) <= field.width()


@pytest.mark.parametrize("width", [1024, 1280])
def test_review_at_1024_and_1280_reads_whole_filters_columns_and_words(qtbot, window_factory, width):
    w = window_factory()
    w.resize(width, 700 if width == 1024 else 800)
    rid = make_run(w.store, steps=4, task="Find the cheapest item " * 12)
    r = open_review(w, rid)
    qtbot.waitUntil(lambda: r.viewer.view.has_screenshot(), timeout=5000)
    r.label_bar.annotator.setCurrentText(LONG_NAME)
    r.label_bar.category.setCurrentText(LONG_CATEGORY)
    assert r.label("fail")
    assert r.label_bar.status.text() == f"your label: fail ({LONG_CATEGORY})"
    r.activateWindow()
    r.viewer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is r.viewer.view, timeout=3000)
    qtbot.keyClick(r.viewer.view, Qt.Key_W)
    QApplication.processEvents()
    QApplication.processEvents()
    assert r.label_bar.status.text() == "step 1: wrong target — click the right box on the screenshot"
    assert "you: wrong target" in r.viewer.step_info.text() and "wrong_target" not in r.viewer.step_info.text()
    assert w.width() <= width, w.width()  # the hint and the long label did not widen the window
    assert r.label_bar.status.isVisible() and r.label_bar.status.width() <= r.width()
    comment = r.label_bar.comment
    assert comment.width() >= comment.fontMetrics().horizontalAdvance(comment.placeholderText()), comment.width()
    if r.browser.filters_btn.isVisible():  # a small screen: the filter boxes fold behind Filters (#38, A2)
        r.browser.filters_btn.click()
    for combo in r.browser.filters():
        assert combo.isVisible() and _text_fits(combo), (combo.currentText(), combo.width())
    assert r.browser.count.text() == "1 run"
    make_run(w.store, steps=1)
    r.refresh()
    assert r.browser.count.text() == "2 runs"
    head, vp = r.browser.table.horizontalHeader(), r.browser.table.viewport().width()
    for key in ("started", "status"):  # whole, in view (the run's id comes after the task)
        c = column(key)
        assert not head.isSectionHidden(c) and head.sectionViewportPosition(c) + head.sectionSize(c) <= vp, key
    task = column("task")
    assert vp - head.sectionViewportPosition(task) >= 60, (vp, head.sectionViewportPosition(task))  # Task too
    assert w.width() <= width
    L.set_step_label(w.store, rid, 2, LONG_NAME, "no_progress")
    r.go(1)
    assert "you: no progress" in r.viewer.step_info.text()
    assert fit_violations(w, QSize(width, w.height())) == []


def test_statuses_and_judgements_read_as_words_in_review(qtbot, window):
    w = window
    rid = make_run(w.store, steps=2, answer=None, status="max_steps")
    L.set_step_label(w.store, rid, 1, "ada", "wrong_action")
    r = open_review(w, rid)
    statuses = [r.browser.f_status.itemText(i) for i in range(r.browser.f_status.count())]
    assert "out of steps" in statuses and not any("_" in s for s in statuses), statuses
    r.browser.f_status.setCurrentText("out of steps")
    assert r.browser.model.total == 1 and r.browser.count.text() == "1 run"
    assert r.browser.model.data(r.browser.model.index(0, column("status"))) == "out of steps"
    assert "out of steps" in r.viewer.header.text() and "max_steps" not in r.viewer.header.text()
    assert "you: wrong action" in r.viewer.step_info.text()
    r.labeller.judge_step("no_progress")
    assert r.label_bar.status.text() == "step 1: no progress" and "you: no progress" in r.viewer.step_info.text()
