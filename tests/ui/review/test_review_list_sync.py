"""Review's list and the run it shows agree (issue #38, B5), and the list follows another process's writes (B7).

A real store; the other writer is a second Store connection on another thread, as a `cockpit run` batch is."""
import threading
import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from cockpit.core.store import Store
from cockpit.core.store import labels as L
from testkit.fakeruns import make_run


def selected_run(p):
    idx = p.browser.table.currentIndex()
    return p.browser.model.run_id(idx.row()) if idx.isValid() else None


def test_showing_a_run_the_search_hides_selects_its_row_and_says_so(qtbot, panel, store):
    order = make_run(store, steps=2, task="Order one mug from the shop")
    other = make_run(store, steps=2, task="Find the price of tea")
    p = panel()
    p.browser.search.setText("Order one")
    p.browser.apply_filter()
    p.browser.table.selectRow(0)
    assert p.viewer.run["id"] == order and p.browser.model.total == 1
    p.show_run(other)  # as Import's "Show in Review" and Reports' "open run" do
    assert p.viewer.run["id"] == other and selected_run(p) == other  # the list highlights the run shown
    assert p.browser.search.text() == "" and p.browser.count.text() == "2 runs"
    assert "Order one" in p.label_bar.status.text() and other in p.label_bar.status.text()


def test_showing_a_run_a_filter_hides_clears_the_filter(qtbot, panel, store):
    done = make_run(store, steps=2, task="answered one")
    refused = make_run(store, steps=2, task="refused one", status="refused", answer=None)
    p = panel()
    f = p.browser.f_status
    f.setCurrentIndex(f.findData("refused"))
    assert p.browser.model.total == 1
    p.show_run(done)
    assert selected_run(p) == done and f.currentIndex() == 0
    assert "filter refused" in p.label_bar.status.text()
    p.show_run(refused)  # listed now: nothing cleared, nothing said about clearing
    assert selected_run(p) == refused


def test_a_filter_that_drops_the_shown_run_clears_the_pane_and_label_keys_do_nothing(qtbot, panel, store):
    shown = make_run(store, steps=2, task="answered one")
    make_run(store, steps=2, task="refused one", status="refused", answer=None)
    p = panel("ada")
    p.show_run(shown)
    assert selected_run(p) == shown
    f = p.browser.f_status
    f.setCurrentIndex(f.findData("refused"))  # the shown run is not in the list any more
    assert p.viewer.run is None and not p.viewer.view.has_screenshot()
    assert shown in p.viewer.view.message() and "not in the list" in p.viewer.view.message()
    assert shown not in p.viewer.header.text()
    p.activateWindow()
    p.viewer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is p.viewer.view, timeout=3000)
    qtbot.keyClick(p.viewer.view, Qt.Key_U)
    qtbot.keyClick(p.viewer.view, Qt.Key_S)
    assert L.labels(store, shown) == []  # no label went to the run the list hides
    assert "label keys do nothing" in p.label_bar.status.text()
    f.setCurrentIndex(0)  # the filter taken off: the run is listed, and shown, again (not "not in the list")
    assert p.viewer.run is not None and p.viewer.run["id"] == shown and selected_run(p) == shown
    assert "not in the list" not in p.viewer.view.message() and "again" in p.label_bar.status.text()


def test_the_list_follows_runs_another_process_writes(qtbot, panel, store):
    first = [make_run(store, steps=1, task=f"earlier {i}") for i in range(7)]
    p = panel()
    p.show_run(first[3])
    assert p.browser.count.text() == "7 runs"

    def batch():  # `cockpit run --tasks … --concurrency 2` in another process: its own connection
        with Store(store.root) as other:
            for i in range(3):
                make_run(other, steps=1, task=f"batch {i}")
                time.sleep(0.3)
    t = threading.Thread(target=batch)
    t.start()
    try:
        qtbot.waitUntil(lambda: p.browser.count.text() == "10 runs", timeout=15_000)  # no Enter, no tab switch
    finally:
        t.join()
    assert p.browser.model.total == 10 and p.browser.model.rowCount() == 10
    assert p.viewer.run["id"] == first[3] and selected_run(p) == first[3]  # the selection kept


def test_a_hidden_review_does_not_poll(qtbot, panel, store):
    make_run(store, steps=1)
    p = panel()
    assert p.watch.isActive()
    p.hide()
    assert not p.watch.isActive()
    with Store(store.root) as other:
        make_run(other, steps=1)
    qtbot.wait(2 * p.watch.interval())
    assert p.browser.count.text() == "1 run"
    p.show()
    qtbot.waitUntil(lambda: p.browser.count.text() == "2 runs", timeout=5_000)
