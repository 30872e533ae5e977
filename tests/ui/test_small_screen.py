"""The window on a 1024x700 screen (issue #20): every state fits without the window growing.

Real demo runs (offscreen Qt, real headless Chromium, real store). In each state — idle, running, the approval
gate, take-over, Review, Reports — the window is laid out at 1024x700 and we check what a user would notice:
the window did not grow past the screen, no shown widget lies outside it or is cut off by its panel, no
shown button has its text cut, and every toolbar action can be reached from the menu bar with the same shortcut.
The first window opens at a small screen's size, and a remembered size only when it fits.
"""
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QAbstractButton, QAbstractScrollArea, QApplication, QMenu, QToolBar, QToolButton, QWidget

from tests.ui.windowtools import LONG

SMALL = QSize(1024, 700)


def _scrolled(widget: QWidget, top: QWidget) -> bool:
    """Inside a scroll area's viewport: may lie beyond it, scrolled out of view."""
    p = widget.parentWidget()
    while p is not None and p is not top:
        if isinstance(p.parentWidget(), QAbstractScrollArea) and p is p.parentWidget().viewport():
            return True
        p = p.parentWidget()
    return False


def problems(w) -> list[str]:
    """What does not fit at 1024x700: the window grown, widgets outside it or cut off by their panel, buttons with
    their text cut."""
    QApplication.processEvents()
    QApplication.processEvents()
    found = []
    if w.width() > SMALL.width() or w.height() > SMALL.height():
        found.append(f"the window grew to {w.width()}x{w.height()}")
    box = w.rect()
    for child in w.findChildren(QWidget):
        if not child.isVisible() or child.isWindow() or _scrolled(child, w):
            continue
        r = QRect(child.mapTo(w, QPoint(0, 0)), child.size())
        parent = child.parentWidget()
        if not box.contains(r):
            found.append(f"{type(child).__name__} {child.objectName() or ''} {_text(child)!r} at {r.getRect()}")
        elif parent is not w and not parent.rect().contains(child.geometry()):  # cut off by its panel
            found.append(f"{type(child).__name__} {_text(child)!r} cut off by its {type(parent).__name__} "
                         f"{parent.objectName()}: {child.geometry().getRect()} in {parent.size().toTuple()}")
        elif isinstance(child, QAbstractButton) and not isinstance(child, QToolButton) and _text(child) \
                and child.width() < child.sizeHint().width():
            found.append(f"button {_text(child)!r} cut: {child.width()} < {child.sizeHint().width()} px")
    return found


def _text(widget) -> str:
    return widget.text() if hasattr(widget, "text") and callable(widget.text) else ""


def assert_fits(w, state: str) -> None:
    found = problems(w)
    assert not found, f"{state}: " + "; ".join(found[:8])


def test_idle_running_approval_review_and_reports_fit_1024x700(qtbot, small_window):
    w = small_window
    assert_fits(w, "idle")
    w.start_run()
    qtbot.waitUntil(lambda: w.runs.latest_step >= 2 and w.runs.running, timeout=LONG)
    assert_fits(w, "running")
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    qtbot.wait(200)
    assert_fits(w, "approval gate")
    for b in (w.live.approval.approve_btn, w.live.approval.reject_btn, w.live.approval.edit_btn):
        assert b.isVisible()
    w.live.approval.edit_btn.click()  # the edit field and its error line too
    assert_fits(w, "approval gate, editing")
    w.live.approval.reject_btn.click()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert_fits(w, "finished")
    w.modes.setCurrentWidget(w.review)
    w.review.browser.table.selectRow(0)
    qtbot.waitUntil(lambda: w.review.viewer.run is not None and w.review.viewer.view.has_screenshot(), timeout=LONG)
    w.review.go(3)
    assert_fits(w, "Review")
    # the step's screenshot gets the room: most of the tab's height, not a strip under the header and filmstrip
    assert w.review.viewer.view.height() >= 0.5 * w.review.height(), (w.review.viewer.view.height(), w.review.height())
    w.review.viewer.view.setFocus()
    qtbot.keyClick(w.review.viewer.view, Qt.Key_Z)  # one key: the screenshot alone, as large as the tab
    QApplication.processEvents()
    assert not w.review.browser.table.isVisible() and not w.review.label_bar.isVisible()
    view = w.review.viewer.view
    assert view.height() >= 0.95 * w.review.height() and view.width() >= 0.95 * w.width()
    qtbot.keyClick(w.review.viewer.view, Qt.Key_Right)  # the step keys still work there
    assert w.review.viewer.index == 4
    qtbot.keyClick(w.review.viewer.view, Qt.Key_Escape)  # and back
    assert w.review.browser.table.isVisible() and w.review.label_bar.isVisible()
    w.modes.setCurrentWidget(w.reports)
    assert_fits(w, "Reports")


def test_take_over_fits_1024x700(qtbot, small_window):
    w = small_window
    w.step_clicked()
    qtbot.waitUntil(lambda: bool(1 in w.live.log_panel.items and w.live.log_panel.items[1].text(4))
                    and w.bridge.state == "paused", timeout=LONG)
    w.toolbar.act_take.trigger()
    qtbot.waitUntil(lambda: w.live.takeover.isVisible() and "during take-over" in w.live.banner.fullText(), timeout=LONG)
    assert_fits(w, "take-over")
    assert w.live.takeover.hand_btn.isVisible()
    w.bridge.stop()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)


def test_every_toolbar_action_is_in_the_menu_bar_with_its_shortcut(small_window):
    w = small_window
    in_menus, by_text = {}, {}
    for menu in w.menuBar().findChildren(QMenu):
        for a in menu.actions():
            in_menus[a.text()] = a.shortcut().toString()
            by_text[a.text()] = a
    toolbar_actions = [a for tb in w.findChildren(QToolBar) for a in tb.actions()
                       if a.text() and not a.isSeparator() and tb.widgetForAction(a) is not None
                       and isinstance(tb.widgetForAction(a), QToolButton)]
    assert len(toolbar_actions) >= 10
    for a in toolbar_actions:
        assert a.text() in in_menus, f"{a.text()} is only on the toolbar"
        assert in_menus[a.text()] == a.shortcut().toString(), a.text()
    # the toolbar's check boxes and "Ask before", which hide behind "»" first, are in the Run menu too
    assert not w.toolbar.keep_browser_box.isChecked()
    by_text["Keep browser state"].trigger()
    assert w.toolbar.keep_browser_box.isChecked()
    by_text["every"].trigger()
    assert w.toolbar.policy.currentText() == "every"


def test_the_first_window_opens_at_a_small_screens_size_and_a_saved_size_only_if_it_fits(
        qtbot, window_factory, monkeypatch, tmp_path):
    from PySide6.QtGui import QScreen

    from cockpit.ui.placement import FRAME_GUESS
    monkeypatch.setenv("COCKPIT_HOME", str(tmp_path / "ui-home"))  # its own window.ini
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1024, 700))
    w = window_factory(demo=True)  # no window.ini yet: the first window
    # not 1280x800, with Reject off the screen; and room left for a window manager's title bar and borders
    assert w.geometry() == QRect(0, 0, 1024, 700).marginsRemoved(FRAME_GUESS)
    assert_fits(w, "the first window")
    w.close()
    (tmp_path / "home" / "window.ini").unlink()  # the data folder's window.ini (the layout is kept there)
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1600, 1000))
    big = window_factory(demo=True)
    assert big.size() == QSize(1280, 800)  # a large screen: the default size
    big.resize(760, 740)  # (Qt itself keeps a restored size within the offscreen screen's real 800x800)
    big.close()  # remembered in window.ini
    again = window_factory(demo=True)
    assert again.size() == QSize(760, 740)  # it fits this screen: used
    again.close()
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1024, 700))
    small = window_factory(demo=True)
    assert small.geometry() == QRect(0, 0, 1024, 700).marginsRemoved(FRAME_GUESS)  # 740 px high does not fit


def test_reviews_queue_guideline_blind_batch_and_adjudication_fit_1024x700(qtbot, window_factory):
    from cockpit.core.store import labels as L
    from cockpit.core.store.assignments import assign
    from testkit.fakeruns import make_run
    w = window_factory()
    w.resize(SMALL)
    runs = [make_run(w.store, steps=4, task=f"Find the cheapest item number {i} in the shop") for i in range(3)]
    assign(w.store, "pilot", runs, ["ada", "bob"], 2, "Success only when the final page shows the item. " * 8,
           blind=True)
    L.set_label(w.store, runs[0], "bob", "fail", category="Hallucination", comment="the price is not on the page")
    L.set_verdict(w.store, runs[0], "gpt-4o", 3, "v1", 1, reply="SUCCESS: the answer matches the page " * 10)
    w.modes.setCurrentWidget(w.review)
    w.review.refresh()
    w.review.next_unlabelled()
    w.review.label_bar.queue_bar.guideline_btn.click()
    assert w.review.label_bar.queue_bar.isVisible() and w.review.label_bar.queue_bar.guideline.isVisible()
    assert_fits(w, "Review with a batch queue and its guideline")
    w.review.label("success")  # ada and bob disagree, and so do bob and the judge
    w.review.adj_bar.adj_toggle.click()
    w.review.browser.table.selectRow(0)
    assert w.review.adjudication.isVisible() and w.review.adjudication.table.rowCount() == 3
    assert_fits(w, "Review in adjudication mode")
    assert w.review.viewer.view.height() >= 0.35 * w.review.height(), (w.review.viewer.view.height(), w.review.height())


def _extension(bar: QToolBar) -> QToolButton:
    """The toolbar's "»" button (Qt's own), shown when the toolbar cannot show all its items."""
    return bar.findChild(QToolButton, "qt_toolbar_ext_button")


def _below(a: QWidget, b: QWidget) -> bool:
    """`b` starts at or below `a`'s bottom edge, on the window."""
    return b.mapTo(b.window(), QPoint(0, 0)).y() >= a.mapTo(a.window(), QPoint(0, 0)).y() + a.height()


def test_the_toolbar_shows_every_item_at_1024_and_its_overflow_closes_with_esc(qtbot, small_window):
    """Issue #38: at 1024 the toolbar hid its last items behind "»", whose menu covered the tab bar and stayed
    open on Esc."""
    w = small_window
    w.modes.setCurrentWidget(w.live)  # (the window opens on the tab it was closed on)
    QApplication.processEvents()
    bars = [b for b in w.findChildren(QToolBar) if b.isVisible()]
    assert len(bars) == 2  # the commands, and on the Live tab the run's options
    assert bars and not any(_extension(b) is not None and _extension(b).isVisible() for b in bars)
    tab_bar = w.modes.tabBar()
    for b in bars:
        for a in b.actions():
            item = b.widgetForAction(a)
            if item is not None and not a.isSeparator():
                assert item.isVisible() and QRect(QPoint(0, 0), w.size()).contains(
                    QRect(item.mapTo(w, QPoint(0, 0)), item.size())), (a.text(), item.geometry())
        assert _below(b, tab_bar)  # nothing of the toolbars over the tabs
    # The narrowest window (its minimum keeps the Task field 200 px wide, #38 A13): every item still shown
    w.resize(600, 700)
    qtbot.wait(100)
    assert w.width() < 800 and not any(_extension(b).isVisible() for b in bars), w.width()
    # Narrower still (the task bar's fields let go of their minimum widths, as larger fonts would need): "»" opens
    # the hidden items; Esc closes them again.
    for field in (w.live.task_bar.task_edit, w.live.task_bar.url_edit, w.live.task_bar.domains_edit):
        field.setMinimumWidth(0)
    qtbot.wait(50)  # the window's minimum follows
    w.resize(600, 700)
    qtbot.waitUntil(lambda: any(_extension(b).isVisible() for b in bars), timeout=3000)
    bar = next(b for b in bars if _extension(b).isVisible())
    one_row = bar.height()
    w.activateWindow()
    _extension(bar).click()
    qtbot.waitUntil(lambda: bar.height() > one_row, timeout=3000)
    qtbot.wait(3000)
    assert bar.height() > one_row  # it stays open while the person looks
    qtbot.keyClick(QApplication.focusWidget() or w, Qt.Key_Escape)
    qtbot.waitUntil(lambda: bar.height() == one_row, timeout=500)
    assert _below(bar, tab_bar)
