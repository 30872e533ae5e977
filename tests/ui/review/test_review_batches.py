"""Review with annotation batches (issue #22): the annotator's queue, blind batches, and adjudication mode."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from cockpit.core.store import labels as L
from cockpit.core.store.adjudications import adjudications
from cockpit.core.store.assignments import assign
from cockpit.ui.review.runs_model import column
from testkit.fakeruns import make_run


def press(qtbot, p, key):
    p.activateWindow()
    p.viewer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is p.viewer.view, timeout=3000)
    qtbot.keyClick(p.viewer.view, key)


def cell(p, run_id, key):
    return p.browser.model.data(p.browser.model.index(p.browser.model.row_of(run_id), column(key)))


def test_the_queue_shows_progress_and_next_goes_through_the_batch_in_order(qtbot, panel, store):
    older = make_run(store, steps=1, task="not in the batch, and the oldest")
    r1, r2, r3 = (make_run(store, steps=2, task=f"batch task {i}") for i in (1, 2, 3))
    assign(store, "pilot", [r3, r1, r2], ["ada", "bob"], 1, "Success only when the cart shows the item.")
    ada_runs = [r3, r2]  # dealt in turn: r3 ada, r1 bob, r2 ada
    L.set_label(store, r2, "ada", "fail", seconds=30)
    p = panel("ada")
    assert p.label_bar.queue_bar.isVisible()
    assert p.label_bar.queue_bar.queue_label.text() == "Your queue: batch pilot — 1 / 2 done, median 30 s per run"
    assert p.label_bar.queue_bar.queue_next_btn.isVisible() and not p.label_bar.btn_next.isVisible()
    p.label_bar.queue_bar.guideline_btn.click()
    guideline = p.label_bar.queue_bar.guideline
    assert guideline.isVisible() and "cart shows the item" in guideline.toPlainText()
    press(qtbot, p, Qt.Key_N)  # her next unlabelled assigned run, not the oldest unlabelled one
    assert p.viewer.run["id"] == ada_runs[0] != older
    p.label("success")
    assert p.label_bar.queue_bar.queue_label.text().startswith("Your queue: batch pilot — 2 / 2 done, median")
    p.label_bar.queue_bar.queue_next_btn.click()
    assert "Nothing left to label" in p.label_bar.status.text() and p.viewer.run["id"] == r3


def test_without_assignments_there_is_no_queue_line(qtbot, panel, store):
    make_run(store, steps=1)
    p = panel("ada")
    assert not p.label_bar.queue_bar.isVisible() and p.label_bar.btn_next.isVisible()


def test_a_blind_batch_hides_the_answer_and_the_judge_until_labelled(qtbot, panel, store):
    rid = make_run(store, steps=3, answer="the answer is Xyzzy")
    L.set_verdict(store, rid, "gpt-4o", 3, "v1", 1, reply="SUCCESS")
    assign(store, "pilot", [rid], ["ada"], 1, "guide", blind=True)
    p = panel("ada")
    assert "blind" in p.label_bar.queue_bar.queue_label.text()
    assert not p.label_bar.blind.isChecked()  # the batch, not the Blind box, hides them
    assert cell(p, rid, "judge") == cell(p, rid, "answer") == cell(p, rid, "status") == "(hidden)"
    p.show_run(rid)
    p.go(2)  # the ANSWER step
    v = p.viewer
    seen = [v.header.text(), v.answer.text(), v.step_info.text(), v.details.summary.toPlainText(),
            v.details.raw.toPlainText(), v.filmstrip.item(2).text(), v.filmstrip.item(2).toolTip()]
    assert not any("Xyzzy" in t for t in seen), seen  # (not "42": a run id's time can hold it)
    assert "gpt-4o" not in p.viewer.header.text() and "answered" not in p.viewer.header.text()
    assert "hidden: blind until you have labelled this run" in p.viewer.answer.text()
    p.label("fail")
    assert "the answer is Xyzzy" in p.viewer.answer.text() and "gpt-4o" in p.viewer.header.text()
    assert "ANSWER; the answer is Xyzzy" in v.step_info.text() and "Xyzzy" in v.filmstrip.item(2).toolTip()
    assert cell(p, rid, "judge") == "success"
    assert L.labels(store, rid, "ada")[0]["blind"] == 1  # given before the claim was on screen


def test_filters_and_sorting_do_not_narrow_a_blind_batch_s_runs_by_what_it_hides(qtbot, panel, store):
    """Filtering by "judge: success" or a status, or sorting by status, would sort Ada's unlabelled blind runs by
    the verdicts and claims the batch hides from her (a search, by the answer): such a filter leaves them out;
    sorting goes by start."""
    hers_ok = make_run(store, steps=2, task="hers, judged a success", answer="the Xyzzy price")
    hers_bad = make_run(store, steps=2, task="hers, a failure", status="max_steps", answer=None)
    other = make_run(store, steps=2, task="not in the batch", status="failed", answer=None)
    for rid, v in ((hers_ok, 1), (hers_bad, 0), (other, 1)):
        L.set_verdict(store, rid, "gpt-4o", 3, "v1", v, reply="SUCCESS" if v else "NOT SUCCESS")
    assign(store, "pilot", [hers_ok, hers_bad], ["ada"], 1, blind=True)
    p = panel("ada")
    p.browser.f_judge.setCurrentText("success")
    p.browser.apply_filter()
    assert [p.browser.model.rows[i]["id"] for i in range(len(p.browser.model.rows))] == [other]
    p.browser.f_judge.setCurrentIndex(0)
    p.browser.apply_filter()
    assert {r["id"] for r in p.browser.model.rows} == {hers_ok, hers_bad, other}
    p.browser.model.sort(column("status"), Qt.AscendingOrder)
    assert [r["id"] for r in p.browser.model.rows] == [hers_ok, hers_bad, other]  # by start, oldest first, not status
    p.browser.search.setText("Xyzzy")  # the search reads the hidden answer too
    p.browser.apply_filter()
    assert p.browser.model.rows == []
    p.browser.search.setText("")
    p.show_run(hers_ok)
    p.label("success")  # hers now: she may filter by it
    p.browser.f_judge.setCurrentText("success")
    p.browser.apply_filter()
    assert {r["id"] for r in p.browser.model.rows} == {hers_ok, other}


def test_adjudication_mode_lists_shows_and_records(qtbot, panel, store):
    split = make_run(store, steps=2, task="split task")
    agreed = make_run(store, steps=2, task="agreed task")
    L.set_label(store, split, "ada", "success", comment="the item is listed")
    L.set_label(store, split, "bob", "fail", category="Hallucination", comment="cart is empty")
    L.set_verdict(store, split, "gpt-4o", 3, "v1", 0, reply="NOT SUCCESS: the cart is empty")
    for who in ("ada", "bob"):
        L.set_label(store, agreed, who, "success")
    p = panel("cy")
    assert p.browser.model.total == 2
    p.adj_bar.adj_toggle.click()
    assert p.adjudication.isVisible() and not p.label_bar.isVisible()
    assert p.browser.model.total == 1 and p.browser.model.run_id(0) == split
    p.browser.table.selectRow(0)
    t = p.adjudication.table
    rows = [tuple(t.item(r, c).text() for c in range(3)) for r in range(t.rowCount())]
    assert rows == [("ada (annotator)", "success", "the item is listed"),
                    ("bob (annotator)", "fail", "Hallucination — cart is empty"),
                    ("gpt-4o k=3 (judge)", "fail", "NOT SUCCESS: the cart is empty")]
    assert "annotators disagree" in p.adjudication.summary.text()
    assert "not adjudicated yet" in p.adjudication.summary.text()
    p.adjudication.fail.click()
    p.adjudication.rationale.setText("the last screenshot shows an empty cart")
    p.adjudication.record_btn.click()
    got = adjudications(store, split)
    assert [(a["verdict"], a["reason"], a["by"]) for a in got] == [
        ("fail", "the last screenshot shows an empty cart", "cy")]
    assert p.browser.model.total == 0  # it left the open list
    assert "adjudicated fail" in p.adjudication.message.text()
    p.adj_bar.adj_open.setChecked(False)  # all runs to adjudicate: it is there, marked as adjudicated
    assert p.browser.model.total == 1 and "→ adjudicated fail" in cell(p, split, "human")
    assert "adjudicated: fail by cy" in p.adjudication.summary.text()
    assert [lab["verdict"] for lab in L.labels(store, split)] == ["success", "fail"]  # theirs stay
    p.adj_bar.adj_toggle.click()
    assert p.browser.model.total == 2 and p.label_bar.isVisible() and not p.adjudication.isVisible()


def test_adjudication_needs_a_verdict_and_a_rationale(qtbot, panel, store):
    rid = make_run(store, steps=1)
    L.set_label(store, rid, "ada", "success")
    L.set_label(store, rid, "bob", "fail")
    p = panel("cy")
    p.adj_bar.adj_toggle.click()
    p.browser.table.selectRow(0)
    p.adjudication.record_btn.click()
    assert "Pick Success, Fail or Not executable" in p.adjudication.message.text()
    p.adjudication.success.click()
    p.adjudication.record_btn.click()
    assert "reason" in p.adjudication.message.text() and not adjudications(store, rid)


def test_adjudication_mode_follows_new_labels_on_refresh(qtbot, panel, store):
    rid = make_run(store, steps=1)
    L.set_label(store, rid, "ada", "success")
    p = panel("cy")
    p.adj_bar.adj_toggle.click()
    assert p.browser.model.total == 0
    L.set_label(store, rid, "bob", "fail")  # e.g. a bundle imported meanwhile
    p.refresh()
    assert p.browser.model.total == 1 and p.browser.model.run_id(0) == rid
