""""To adjudicate" narrows the runs list; the pane beside it then shows a run of that list, never one it left
out (walkthrough 3, B4: the list held one run while the pane said "Nothing to adjudicate on this run" about
another). A real store, labels written as annotators write them, the Review panel offscreen.
"""
from cockpit.core.store import labels as L
from testkit.fakeruns import make_run


def test_to_adjudicate_shows_the_first_run_to_settle_in_place_of_one_left_out(qtbot, panel, store):
    split = make_run(store, steps=2, task="split task")
    other = make_run(store, steps=2, task="agreed task")
    L.set_label(store, split, "root", "fail")
    L.set_label(store, split, "alice", "success")
    p = panel("root")
    p.show_run(other)
    assert p.viewer.run["id"] == other
    p.adj_bar.adj_toggle.click()
    assert p.browser.model.ids == [split]
    assert p.viewer.run["id"] == split  # the pane shows the run the list holds
    assert p.browser.table.currentIndex().row() == 0  # and its row is the selected one
    assert "Nothing to adjudicate" not in p.adjudication.summary.text()
    assert "annotators disagree" in p.adjudication.summary.text()
    assert f"Run {other} is not in this list" in p.adjudication.message.text()
    p.adj_bar.adj_toggle.click()  # out again: the whole list, the run still open
    assert p.viewer.run["id"] == split and p.browser.model.total == 2


def test_to_adjudicate_with_nothing_to_settle_closes_the_run_and_says_so(qtbot, panel, store):
    rid = make_run(store, steps=1)
    p = panel("root")
    p.show_run(rid)
    p.adj_bar.adj_toggle.click()
    assert p.browser.model.total == 0
    assert p.viewer.run is None
    assert "Nothing to adjudicate on this run" not in p.adjudication.summary.text()
    assert "No run open" in p.adjudication.summary.text()
    p.adj_bar.adj_toggle.click()  # the run comes back when the list shows it again
    assert p.viewer.run is not None and p.viewer.run["id"] == rid
