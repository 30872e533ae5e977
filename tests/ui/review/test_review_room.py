"""Review gives its runs list and the step's screenshot the room (issue #38, walkthrough A2 and A13).

The walkthrough saw 3 runs and a 320x240 screenshot on a 1024x700 screen, 5-6 runs on a 1600x1000 one, and at the
window's minimum size a 25-px Task field, one run row and a 50-px screenshot. A real store of 25 runs, the window as
it opens on each screen; what is measured is what a person sees: rows wholly in view, the screenshot's drawn size.
"""
import pytest
from PySide6.QtCore import QMargins
from PySide6.QtWidgets import QApplication

from cockpit.core.store import Store
from testkit.fakeruns import make_run

LONG = 30_000
FRAME = QMargins(4, 20, 4, 4)  # a window manager's title bar and borders (openbox)


def _window_on_runs(qtbot, window_factory, tmp_path, screen_size, width, height):
    screen_size(width, height)  # (the window opens as on a first start: no window.ini remembered, see monkeypatch)
    with Store(tmp_path / "home") as s:
        ids = [make_run(s, steps=3, task=f"Open note {i} on my research notes page and tell me what it says")
               for i in range(25)]
    w = window_factory()
    w.modes.setCurrentWidget(w.review)
    w.review.refresh()
    w.review.show_run(ids[-1])
    qtbot.waitUntil(lambda: w.review.viewer.view.has_screenshot(), timeout=LONG)
    qtbot.wait(100)
    return w


@pytest.fixture
def first_start(monkeypatch, tmp_path):
    """Cockpit's home of this test alone: no window size remembered by another test."""
    monkeypatch.setenv("COCKPIT_HOME", str(tmp_path / "ui-home"))


def runs_in_view(w) -> int:
    """Rows of the runs list wholly in view."""
    t = w.review.browser.table
    h = t.viewport().height()
    return sum(1 for i in range(t.model().rowCount())
               if t.rowViewportPosition(i) >= 0 and t.rowViewportPosition(i) + t.rowHeight(i) <= h)


def screenshot_drawn(w) -> tuple[int, int]:
    v = w.review.viewer.view
    iw, ih = v.image_size()
    scale = v.transform().m11()
    return round(iw * scale), round(ih * scale)


def test_on_a_1024x700_screen_review_shows_eight_runs_and_a_screenshot_480_px_wide(
        qtbot, first_start, window_factory, tmp_path, screen_size):
    w = _window_on_runs(qtbot, window_factory, tmp_path, screen_size, 1024, 700)
    assert w.geometry().marginsAdded(FRAME).height() <= 700
    assert runs_in_view(w) >= 8, runs_in_view(w)  # was 3
    width, height = screenshot_drawn(w)
    assert width >= 470 and height >= 350, (width, height)  # was about 356x267 (1024x768 pages)
    # the filter boxes fold behind Filters, which says how many runs are listed; open, they show whole
    b = w.review.browser
    assert b.filters_btn.isVisible() and not b.f_site.isVisible() and "25 runs" in b.filters_btn.text()
    b.filters_btn.click()
    assert b.f_site.isVisible() and b.f_status.isVisible() and b.count.text() == "25 runs"
    b.f_model.setCurrentIndex(1)
    b.filters_btn.click()
    assert not b.f_site.isVisible() and "1 set" in b.filters_btn.text()  # a filter set is not hidden silently
    # Z: the screenshot alone, as large as the tab
    w.review.viewer.view.setFocus()
    qtbot.keyClick(w.review.viewer.view, "z")
    qtbot.wait(100)
    big = screenshot_drawn(w)
    assert big[0] > width * 1.5 and not b.table.isVisible(), big
    qtbot.keyClick(w.review.viewer.view, "z")


def test_on_a_1600x1000_screen_review_shows_fifteen_runs(qtbot, first_start, window_factory, tmp_path, screen_size):
    w = _window_on_runs(qtbot, window_factory, tmp_path, screen_size, 1600, 1000)
    assert runs_in_view(w) >= 15, (w.size(), runs_in_view(w))  # the window as it opens (1280x800): was 5
    opened = screenshot_drawn(w)
    w.resize(1600 - 8, 1000 - 28)  # filling the screen: Review's full layout (header, answer, filmstrip)
    qtbot.wait(200)
    QApplication.processEvents()
    assert w.review.viewer.filmstrip.isVisible()
    assert runs_in_view(w) >= 15, runs_in_view(w)
    width, height = screenshot_drawn(w)
    assert width >= 600 and height >= 450, (opened, width, height)  # the details were under it: 405x304


def test_at_the_window_minimum_the_task_field_and_review_stay_usable(qtbot, first_start, window_factory, tmp_path, screen_size):
    w = _window_on_runs(qtbot, window_factory, tmp_path, screen_size, 1024, 700)
    for _ in range(4):  # as a person drags the corner in (a window manager clamps to the minimum)
        w.resize(w.minimumSizeHint().expandedTo(w.minimumSize()))
        qtbot.wait(50)
    small = w.size()
    assert small.width() + FRAME.left() + FRAME.right() <= 1024, small
    assert small.height() + FRAME.top() + FRAME.bottom() <= 700, small
    assert runs_in_view(w) >= 4, (small, runs_in_view(w))  # was 1
    assert w.review.viewer.view.height() >= 140, w.review.viewer.view.height()  # was 50
    w.modes.setCurrentWidget(w.live)
    for _ in range(4):
        w.resize(w.minimumSizeHint().expandedTo(w.minimumSize()))
        qtbot.wait(50)
    assert w.live.task_bar.task_edit.width() >= 200, (w.size(), w.live.task_bar.task_edit.width())  # was 25
