"""Review as a batch's QA reviewer (#42): under their name, To adjudicate lists every run of the batch; each run
shows every annotator's key-point ticks side by side with the final ones, and the keyboard settles the verdict
(S, F, or D: not executable with its reason) and the final key points (Ctrl+N at the step shown)."""
from PySide6.QtCore import Qt

from cockpit.core.review.consensus import not_executable
from cockpit.core.store import key_points as KP
from cockpit.core.store import labels as L
from cockpit.core.store.adjudications import adjudications, final_key_points
from cockpit.core.store.assignments import assign
from cockpit.ui.review.runs_model import column
from testkit.fakeruns import make_run
from tests.ui.review.review_keys import key_in_review

TASK = "Set the Gamestop near 90028 as my home store"
POINTS = ["Open the store locator", "Search near 90028", "Set it as the home store"]



def cells_of(table, c):
    return [table.item(r, c).text() for r in range(table.rowCount())]


def qa_batch(store):
    blocked = make_run(store, steps=3, task=TASK, task_id="gs-1")
    agreed = make_run(store, steps=5, task=TASK, task_id="gs-1")
    KP.set_typed(store, "gs-1", POINTS, "cy")
    assign(store, "pilot", [blocked, agreed], ["ada", "bob"], 2, qa="cy")
    L.set_label(store, blocked, "ada", L.NOT_EXECUTABLE, category="CAPTCHA")
    L.set_label(store, blocked, "bob", "fail", category="Navigation stuck")
    for who in ("ada", "bob"):
        L.set_label(store, agreed, who, "success")
    KP.tick(store, agreed, "ada", 0, POINTS[0], 2)
    KP.tick(store, agreed, "ada", 1, POINTS[1], 3)
    KP.tick(store, agreed, "bob", 0, POINTS[0], 2)
    return blocked, agreed


def test_the_qa_reviewer_settles_every_run_with_ticks_side_by_side(qtbot, panel, store):
    blocked, agreed = qa_batch(store)
    p = panel("cy")
    p.adj_bar.adj_toggle.click()
    assert {p.browser.model.run_id(i) for i in range(p.browser.model.total)} == {blocked, agreed}
    assert p.adj_bar.qa_note.isVisible() and p.adj_bar.qa_note.text() == "QA reviewer of pilot: 0 of 2 runs adjudicated"
    p.show_run(agreed)
    view = p.adjudication
    t = view.points.table
    assert view.points.isVisible() and t.isVisible()
    assert [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())] == ["Key point", "ada", "bob", "Final"]
    assert cells_of(t, 1) == ["step 2", "step 3", "–"] and cells_of(t, 2) == ["step 2", "–", "–"]
    assert cells_of(t, 3) == ["✓ step 2", "not met", "not met"]  # the majority: only point 1 was ticked by both
    assert "QA review" in view.summary.text()
    p.go(3)  # step 4 on screen
    key_in_review(qtbot, p, Qt.Key_3, Qt.ControlModifier)
    assert cells_of(t, 3) == ["✓ step 2", "not met", "✓ step 4"]
    assert "Final: 2 of 3 key points met: suggests failure (A takes it)" in view.points.note.text()
    key_in_review(qtbot, p, Qt.Key_A)  # the final key points' suggestion
    assert view.fail.isChecked() and not view.why.isVisible()
    view.rationale.setText("the home store was never saved")
    view.record_btn.click()
    got = adjudications(store, agreed)[0]
    assert (got["verdict"], got["by"]) == ("fail", "cy")
    assert [x["step"] for x in final_key_points(got)] == [2, None, 4]
    assert p.adj_bar.qa_note.text() == "QA reviewer of pilot: 1 of 2 runs adjudicated"
    p.show_run(blocked)
    assert "annotators disagree" in view.summary.text()
    rows = [tuple(view.table.item(r, c).text() for c in range(2)) for r in range(view.table.rowCount())]
    assert rows == [("ada (annotator)", "not_executable"), ("bob (annotator)", "fail")]
    key_in_review(qtbot, p, Qt.Key_D)
    assert view.not_executable.isChecked() and view.why.isVisible()
    view.rationale.setText("step 2 is a CAPTCHA wall")
    view.record_btn.click()
    assert "why the task could not be attempted" in view.message.text() and not adjudications(store, blocked)
    view.why.setCurrentText("CAPTCHA")
    view.record_btn.click()
    assert adjudications(store, blocked)[0]["category"] == "CAPTCHA"
    assert not_executable(store) == {blocked: {"cy": "CAPTCHA"}}
    assert "adjudicated not executable" in view.message.text()
    p.adj_bar.adj_open.setChecked(False)  # all the batch's runs: the Human column says what was settled
    human = p.browser.model.data(p.browser.model.index(p.browser.model.row_of(blocked), column("human")))
    assert human.endswith("→ adjudicated not executable")
    assert p.adj_bar.qa_note.text() == "QA reviewer of pilot: 2 of 2 runs adjudicated"


def test_an_annotator_who_is_not_the_qa_reviewer_gets_only_the_disputed_runs(qtbot, panel, store):
    blocked, _agreed = qa_batch(store)
    p = panel("ada")
    p.adj_bar.adj_toggle.click()
    assert p.browser.model.total == 1 and p.browser.model.run_id(0) == blocked
    assert not p.adj_bar.qa_note.isVisible()
    p.label_bar.annotator.setCurrentText("cy")  # the QA reviewer takes the seat: the whole batch
    assert p.browser.model.total == 2 and p.adj_bar.qa_note.isVisible()
