"""Reports' judge audit: the figures with intervals computed off the GUI thread, in a table and a chart, split
as chosen, and a judge the canary runs flagged named with the canaries it missed."""
from cockpit.core.review.canary_audit import FOLDER, KNOWN
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.newrun import NewRun
from cockpit.ui.reports.judge_audit import JudgeAuditView
from cockpit.ui.reports.panel import ReportsPanel
from testkit.fakeruns import make_run


def two_judges_on_two_sites(store):
    """Ten labelled runs on two sites; a lenient judge (always success) and a strict one (right every time)."""
    for i in range(10):
        rid = make_run(store, steps=2, task=f"task {i}", site="shop-a" if i < 5 else "shop-b")
        truth = i % 2 == 0
        L.set_label(store, rid, "ada", "success" if truth else "fail")
        L.set_verdict(store, rid, "lenient", 3, "cockpit-judge-1", 1)
        L.set_verdict(store, rid, "strict", 3, "cockpit-judge-1", int(truth))
    with Store(store.root / FOLDER) as canaries:  # the lenient judge said success on a canary that failed
        rid = canaries.new_run(NewRun("What is the price?", "http://demo/", task_id="price-wrong"))
        canaries.finish_run(rid, "answered", answer="$14.99")
        L.set_label(canaries, rid, KNOWN, "fail")
        L.set_verdict(canaries, rid, "lenient", 3, "cockpit-judge-1", 1)
        L.set_verdict(canaries, rid, "strict", 3, "cockpit-judge-1", 0)


def cells(view, column):
    return [view.table.item(i, column).text() for i in range(view.table.rowCount())]


def test_the_audit_is_computed_in_the_background_and_shows_intervals_and_flags(qtbot, store):
    two_judges_on_two_sites(store)
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    view = panel.audit
    assert view.busy and "Computing" in view.status.text()
    qtbot.waitUntil(lambda: not view.busy, timeout=30000)
    assert cells(view, 1) == ["lenient", "strict"]
    fpr = cells(view, 9)
    assert fpr[0] == "100.0% [100.0, 100.0]" and fpr[1] == "0.0% [0.0, 0.0]"
    assert cells(view, 11) == ["FLAGGED by the canaries: missed price-wrong", "passed 1 of 1 canaries"]
    assert "lenient k=3 cockpit-judge-1: FLAGGED by the canaries: missed price-wrong" in view.status.text()
    judges_table = [panel.judges.item(i, 11).text() for i in range(panel.judges.rowCount())]
    assert judges_table[0].startswith("FLAGGED") and judges_table[1].startswith("passed")

    view.figure.setCurrentIndex(view.figure.findData("kappa"))
    assert view.chart.title.startswith("Cohen's κ") and view.chart.lo == -1.0
    lo, hi = view.chart.whisker(1)
    assert lo == hi == view.chart.x_of(1.0)  # the strict judge: kappa 1, every resample
    assert [r[4] for r in view.chart.rows] == [True, False]  # the flagged judge drawn apart

    view.split.setCurrentIndex(view.split.findData("site"))
    assert view.busy
    qtbot.waitUntil(lambda: not view.busy, timeout=30000)
    assert not view.table.isColumnHidden(0)
    assert list(zip(cells(view, 0), cells(view, 1))) == [("shop-a", "lenient"), ("shop-a", "strict"),
                                                         ("shop-b", "lenient"), ("shop-b", "strict")]
    assert cells(view, 4) == ["5", "5", "5", "5"]


def test_an_error_is_shown_in_the_panel(qtbot, tmp_path):
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("not a run store")
    view = JudgeAuditView(not_a_folder)
    qtbot.addWidget(view)
    view.refresh()
    qtbot.waitUntil(lambda: not view.busy, timeout=30000)
    assert view.status.text().startswith("The judges' figures could not be computed:")
