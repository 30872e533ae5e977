"""The window at its smallest, and where it goes on the screen with a window manager's frame (issue #38: B1, B8).

A window manager puts a title bar and borders around the window (openbox: 20 px and 4); on a 1024x700 screen the
window's minimum must leave room for them, the first window and a remembered one must be placed so that the frame
too is on the screen (the title bar is what a person drags), and at its minimum size nothing in it may overlap.
The offscreen platform has no frame: the placement is checked with a frame passed in, and the real window under
Xvfb and openbox in tests/ui/test_real_window.py where those are installed.
"""
from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize
from PySide6.QtWidgets import QApplication

from cockpit.core.store import Store
from cockpit.ui.placement import FRAME_GUESS, keep_on_screen, within
from testkit.fakeruns import make_run
from tests.ui.fits import FRAME, fit_violations, frame_violations, overlaps

LONG = 60_000
OPENBOX = QMargins(4, 20, 4, 4)  # openbox's title bar and borders


def at_minimum(qtbot, w) -> QSize:
    """The window shrunk to its minimum, as a person drags its corner: its minimum may grow as its rows wrap."""
    for _ in range(4):
        w.resize(w.minimumSizeHint())
        qtbot.wait(50)
        QApplication.processEvents()
    return w.size()


def test_the_frame_of_a_window_placed_on_a_small_screen_is_on_the_screen():
    free = QRect(0, 0, 1024, 700)
    first = within(QRect(0, 0, 1280, 800), free, OPENBOX)  # the size it opens at, on a 1024x700 screen
    assert first == QRect(4, 20, 1016, 676)  # its title bar at the screen's top, its bottom border at the bottom
    assert first.marginsAdded(OPENBOX) == free
    restored = within(QRect(300, 200, 900, 600), free, OPENBOX)  # remembered lower down: moved up, not cut
    assert restored.marginsAdded(OPENBOX).bottom() == free.bottom() and restored.size() == QSize(900, 600)
    above = within(QRect(50, -30, 800, 500), free, OPENBOX)  # its title bar above the screen: moved down
    assert above.top() - OPENBOX.top() == 0
    panel = QRect(0, 28, 1024, 672)  # a panel at the top: the title bar goes under it
    assert within(QRect(0, 0, 1024, 700), panel, OPENBOX).marginsAdded(OPENBOX) == panel
    # a window whose minimum is larger than the screen keeps its minimum, title bar on the screen
    big = within(QRect(0, 0, 1024, 700), free, OPENBOX, QSize(700, 691))
    assert big.size() == QSize(1016, 691) and big.top() == 20


def test_the_first_window_leaves_room_for_a_frame_and_a_remembered_one_is_put_back_on_the_screen(
        qtbot, window_factory, monkeypatch, tmp_path, screen_size):
    monkeypatch.setenv("COCKPIT_HOME", str(tmp_path / "ui-home"))
    screen_size(1024, 700)
    w = window_factory(demo=True)  # no window.ini: the first window
    g = w.geometry()
    assert g.marginsAdded(FRAME_GUESS).height() <= 700 and g.top() >= FRAME_GUESS.top(), g
    assert not frame_violations(w), frame_violations(w)
    w.setGeometry(QRect(200, 300, 1000, 690))  # dragged down and grown: its bottom off the screen
    w.close()  # remembered in window.ini
    again = window_factory(demo=True)
    frame = again.geometry().marginsAdded(FRAME_GUESS)
    assert QRect(0, 0, 1024, 700).contains(frame), again.geometry()  # the status bar on the screen
    again.setGeometry(QRect(10, -25, 900, 500))  # its title bar above the screen, as the old first window was
    keep_on_screen(again, OPENBOX)
    assert again.geometry().top() == OPENBOX.top(), again.geometry()


def test_at_its_minimum_size_the_window_leaves_room_for_a_frame_and_nothing_overlaps(
        qtbot, window_factory, screen_size):
    screen_size(1024, 700)
    w = window_factory(demo=True)
    found = frame_violations(w)  # the first window, on Live: Review, a tab not shown yet, counts too
    assert not found, found
    states = []
    with Store(w.store_root) as s:
        rid = make_run(s, steps=3, task="Find the account settings page and read about closing it " * 3)
    for tab in (w.review, w.reports, w.live):
        w.modes.setCurrentWidget(tab)
        if tab is w.review:
            w.review.refresh()
            w.review.show_run(rid)
            qtbot.waitUntil(lambda: w.review.viewer.view.has_screenshot(), timeout=LONG)
        size = at_minimum(qtbot, w)
        states.append((type(tab).__name__, size))
        found = frame_violations(w) + overlaps(w) + fit_violations(w, size)
        assert not found, f"{type(tab).__name__} at {size.toTuple()}:\n" + "\n".join(found)
        tools = w.review.viewer.tools
        if tab is w.review:  # B8: the step page button and the step's header beside each other, not on top
            page = QRect(tools.step_page_btn.mapTo(w, tools.step_page_btn.rect().topLeft()),
                         tools.step_page_btn.size())
            info = w.review.viewer.step_info
            assert not page.intersects(QRect(info.mapTo(w, info.rect().topLeft()), info.size()))
    _long_step_at_the_smallest_review(qtbot, w)
    w.modes.setCurrentWidget(w.live)
    w.start_run()  # the demo run, to its gate before Place order
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    size = at_minimum(qtbot, w)
    found = frame_violations(w) + overlaps(w) + fit_violations(w, size)
    assert not found, f"the gate at {size.toTuple()}:\n" + "\n".join(found)
    assert size.height() <= 700 - FRAME.height(), states
    w.live.approval.reject_btn.click()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)


def _long_step_at_the_smallest_review(qtbot, w) -> None:
    """B8: Review at its smallest, then a run opened whose step says a lot (a long thought and address): the step's
    text takes the lines it needs, below the run's tools ("Open this step's page" on their last line), not over."""
    from cockpit.core.store.newrun import NewRun
    from testkit.fakeruns import screenshot
    with Store(w.store_root) as s:
        rid = s.new_run(NewRun("Buy the cheapest pair of headphones in the Demo Shop and ship it to Ada Lovelace",
                               "https://shop.example/index.html", model="demo"))
        for k in (1, 2):
            png, marks = screenshot(k)
            files = s.write_step_files(rid, k, screenshot=png, marked=png, marks=marks)
            s.commit_step(rid, dict(step=k, thought="I need to find the cheapest headphones in the Demo Shop. " * 4,
                                    action="Type [2]; headphones", action_text="Type [2]; headphones",
                                    url="https://shop.example/search?q=" + "headphones-" * 8, **files))
        s.finish_run(rid, "stopped")
    w.modes.setCurrentWidget(w.review)
    w.review.refresh()
    at_minimum(qtbot, w)
    w.review.show_run(rid)
    qtbot.waitUntil(lambda: w.review.viewer.view.has_screenshot(), timeout=LONG)
    qtbot.wait(200)
    tools, info = w.review.viewer.tools, w.review.viewer.step_info
    page = QRect(tools.step_page_btn.mapTo(w, tools.step_page_btn.rect().topLeft()), tools.step_page_btn.size())
    assert info.height() >= info.heightForWidth(info.width()), (info.height(), info.heightForWidth(info.width()))
    assert not page.intersects(QRect(info.mapTo(w, info.rect().topLeft()), info.size())), "the step's text over it"
    found = overlaps(w) + fit_violations(w, w.size())
    assert not found, "\n".join(found)
