"""Review's list as a person reads it (#38): the Started header's arrow says the order the rows are in, the columns
keep their widths when a filter leaves no run, and N goes to the next unlabelled run after the one shown, in the
list's order (not back to the oldest run). A real store, the real panel offscreen."""
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from cockpit.core.store import labels as L
from cockpit.ui.review.runs_browser import WHOLE
from cockpit.ui.review.runs_model import column
from testkit.fakeruns import make_run


def runs_at(store, tasks: list[str]) -> list[str]:
    """One run per task, a minute apart, oldest first."""
    ids = []
    for i, task in enumerate(tasks):
        rid = make_run(store, steps=2, task=task)
        store.set_run(rid, started=1_700_000_000 + 60 * i)
        ids.append(rid)
    return ids


def arrow_points(header, section: int) -> str:
    """"up" or "down": the sort arrow as drawn at the right end of the section (its dark pixels, row by row)."""
    img = header.grab().toImage()
    x0, w = header.sectionViewportPosition(section), header.sectionSize(section)
    widths = [n for y in range(img.height())
              if (n := sum(1 for x in range(x0 + 3 * w // 4, x0 + w - 1) if QColor(img.pixel(x, y)).lightness() < 150))]
    assert len(widths) >= 2, "no sort arrow drawn"
    return "up" if widths[0] < widths[-1] else "down"  # ▲ is narrow at its top


def listed(p) -> list[str]:
    return [p.browser.model.run_id(r) for r in range(p.browser.model.rowCount())]


def test_the_started_arrow_says_the_order_of_the_rows(qtbot, panel, store):
    oldest, middle, newest = runs_at(store, ["first", "second", "third"])
    p = panel()
    head = p.browser.table.horizontalHeader()
    assert listed(p) == [newest, middle, oldest]  # newest first: descending
    assert arrow_points(head, column("started")) == "down"
    qtbot.mouseClick(head.viewport(), Qt.LeftButton, pos=head.rect().topLeft() + _centre(head, column("started")))
    assert listed(p) == [oldest, middle, newest]
    assert arrow_points(head, column("started")) == "up"


def _centre(head, section):
    from PySide6.QtCore import QPoint
    return QPoint(head.sectionViewportPosition(section) + head.sectionSize(section) // 2, head.height() // 2)


def test_the_columns_keep_their_widths_when_a_filter_matches_nothing(qtbot, panel, store):
    runs_at(store, ["Order a mug from the demo shop", "Find the price of green tea"])
    p = panel()
    head = p.browser.table.horizontalHeader()
    before = {k: head.sectionSize(column(k)) for k in WHOLE}
    p.browser.search.setText("zanzibar")
    p.browser.apply_filter()
    assert p.browser.model.rowCount() == 0
    assert {k: head.sectionSize(column(k)) for k in WHOLE} == before
    p.browser.search.setText("")
    p.browser.apply_filter()
    assert p.browser.model.rowCount() == 2 and {k: head.sectionSize(column(k)) for k in WHOLE} == before


def test_n_goes_to_the_next_unlabelled_run_after_this_one_in_the_lists_order(qtbot, panel, store):
    a, b, c, d = runs_at(store, ["run a", "run b", "run c", "run d"])  # listed d, c, b, a (newest first)
    p = panel()
    p.show_run(c)
    p.label("success")  # C labelled: N goes on down the list, to B (not to A, the oldest)
    assert L.labels(store, c)
    p.next_unlabelled()
    assert p.viewer.run["id"] == b
    p.next_unlabelled()  # B skipped: A is next
    assert p.viewer.run["id"] == a
    p.next_unlabelled()  # the end of the list: round to the top, D
    assert p.viewer.run["id"] == d
