"""Review mode: browsing runs, stepping through one, labelling from the keyboard."""
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from cockpit.core.store import corrections
from cockpit.core.store import labels as L
from cockpit.ui.review.runs_model import column
from testkit.fakeruns import make_run


def focus(qtbot, p):
    """Keys reach the panel's shortcuts only when its window is active and the view has focus."""
    p.activateWindow()
    p.viewer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is p.viewer.view, timeout=3000)


def shown_step(p):
    return p.viewer.steps[p.viewer.index]["step"]


def test_step_through_with_the_keyboard(qtbot, panel, store):
    rid = make_run(store, steps=6, answer="the answer is 42")
    p = panel()
    p.browser.table.selectRow(0)
    assert p.viewer.run["id"] == rid and shown_step(p) == 1
    assert "the answer is 42" in p.viewer.answer.text()  # the final answer is always visible
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)
    focus(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_Right)
    qtbot.keyClick(p.viewer.view, Qt.Key_Right)
    assert shown_step(p) == 3 and "Step 3/6" in p.viewer.step_info.text()
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot() and len(p.viewer.view.marks()) == 12, timeout=5000)
    assert p.viewer.view.highlighted() == 4  # the acted-on box (Click [4])
    qtbot.keyClick(p.viewer.view, Qt.Key_Left)
    assert shown_step(p) == 2
    qtbot.keyClick(p.viewer.view, Qt.Key_End)
    assert "ANSWER; the answer is 42" in p.viewer.step_info.text()
    qtbot.waitUntil(lambda: p.viewer.filmstrip.count() == 6, timeout=5000)


def test_keyboard_labelling_queue(qtbot, panel, store):
    ids = [make_run(store, steps=2, task=f"task {i}") for i in range(3)]
    p = panel("ada")
    p.next_unlabelled()
    first = p.viewer.run["id"]
    assert first in ids
    focus(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_S)  # success
    qtbot.keyClick(p.viewer.view, Qt.Key_N)  # next
    second = p.viewer.run["id"]
    assert second != first
    qtbot.keyClick(p.viewer.view, Qt.Key_2)  # category 2 = a failure with "Visual grounding issue"
    qtbot.keyClick(p.viewer.view, Qt.Key_N)
    third = p.viewer.run["id"]
    qtbot.keyClick(p.viewer.view, Qt.Key_U)
    qtbot.keyClick(p.viewer.view, Qt.Key_N)
    assert "Nothing left to label" in p.label_bar.status.text()
    got = {lab["run_id"]: lab for lab in L.labels(store, annotator="ada")}
    assert got[first]["verdict"] == "success"
    assert (got[second]["verdict"], got[second]["category"]) == ("fail", "Visual grounding issue")
    assert got[third]["verdict"] == "unsure"
    assert all(lab["seconds"] >= 0 for lab in got.values())
    assert "ada:fail" in p.browser.model.rows[p.browser.model.row_of(second)]["human"]


def test_f_then_3_then_s_leaves_no_stale_category_on_screen(qtbot, panel, store):
    """Issue #38: F, 3, S stored "success" with no category, but the Category field still showed category 3."""
    rid = make_run(store, steps=2, task="buy the cheapest headphones")
    p = panel("ada")
    p.show_run(rid)
    focus(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_F)
    qtbot.keyClick(p.viewer.view, Qt.Key_3)  # a failure with "Hallucination"
    assert p.label_bar.category.currentText() == L.CATEGORIES[2]
    assert p.label_bar.status.text() == f"your label: fail ({L.CATEGORIES[2]})"
    qtbot.keyClick(p.viewer.view, Qt.Key_S)
    stored = L.labels(store, rid, "ada")[0]
    assert (stored["verdict"], stored["category"]) == ("success", "")
    assert p.label_bar.status.text() == "your label: success"
    assert p.label_bar.category.currentText() == ""  # what is stored, not the earlier category
    qtbot.keyClick(p.viewer.view, Qt.Key_F)  # fail again: no category until one is picked
    assert L.labels(store, rid, "ada")[0]["category"] == "" and p.label_bar.status.text() == "your label: fail"


def test_a_category_digit_on_a_success_says_the_verdict_became_a_failure(qtbot, panel, store):
    """Walkthrough 9 (A1): S, then 3 by mistake, turned the verdict into "fail (Hallucination)" with no word of
    it; now the bar says what it was and how to undo it, and Ctrl+Z brings the success back."""
    rid = make_run(store, steps=2, task="buy the cheapest headphones")
    p = panel("ada")
    p.show_run(rid)
    focus(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_S)
    qtbot.keyClick(p.viewer.view, Qt.Key_3)
    assert L.labels(store, rid, "ada")[0]["verdict"] == "fail"
    said = p.label_bar.status.text()
    assert said.startswith(f"your label: fail ({L.CATEGORIES[2]}) — it was success") and "Ctrl+Z" in said
    qtbot.keyClick(p.viewer.view, Qt.Key_Z, Qt.ControlModifier)
    assert L.labels(store, rid, "ada")[0]["verdict"] == "success"
    qtbot.keyClick(p.viewer.view, Qt.Key_F)  # on a failure a digit only picks the category: nothing more to say
    qtbot.keyClick(p.viewer.view, Qt.Key_2)
    assert p.label_bar.status.text() == f"your label: fail ({L.CATEGORIES[1]})"


def test_step_judgement_with_a_corrected_target(qtbot, panel, store):
    rid = make_run(store, steps=3)
    p = panel("ada")
    p.browser.table.selectRow(0)
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)
    focus(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_W)  # wrong target: now click the right box
    assert "click the right box" in p.label_bar.status.text()
    p.viewer.view.markClicked.emit(7)
    qtbot.keyClick(p.viewer.view, Qt.Key_Right)
    qtbot.keyClick(p.viewer.view, Qt.Key_Q)
    rows = L.step_labels(store, rid, "ada")
    assert [(r["step"], r["judgement"], r["corrected_target"]) for r in rows] == [
        (1, "wrong_target", 7), (2, "correct", None)]


def test_blind_mode_hides_other_verdicts_until_labelled(qtbot, panel, store):
    rid = make_run(store, steps=2)
    L.set_label(store, rid, "bob", "fail", category="Loop")
    L.set_verdict(store, rid, "gpt-4o", 3, "v1", 1, reply="SUCCESS")
    p = panel("ada")
    p.label_bar.blind.setChecked(True)
    p.browser.table.selectRow(0)
    assert "bob" not in p.viewer.header.text() and "gpt-4o" not in p.viewer.header.text()
    assert p.browser.model.data(p.browser.model.index(0, column("human"))) == "(hidden)"
    p.label("success")
    assert "bob: fail" in p.viewer.header.text() and "gpt-4o k=3: success" in p.viewer.header.text()
    assert L.labels(store, rid, "ada")[0]["blind"] == 1


def test_the_list_follows_the_search_as_it_is_typed(qtbot, panel, store):
    """A walkthrough typed a search and saw nothing happen until Enter (nothing said so)."""
    make_run(store, steps=1, task="find lasagna recipes")
    make_run(store, steps=1, task="book a flight")
    p = panel()
    assert p.browser.model.total == 2
    qtbot.keyClicks(p.browser.search, "lasag")
    qtbot.waitUntil(lambda: p.browser.model.total == 1, timeout=3000)
    assert "lasagna" in p.browser.model.rows[0]["task"]


def test_filters_and_search(qtbot, panel, store):
    make_run(store, steps=1, task="find lasagna recipes", site="Allrecipes", model="m1")
    make_run(store, steps=1, task="book a flight", site="Booking", model="m2", answer=None, status="max_steps")
    rid = make_run(store, steps=1, task="cheap lasagna pans", site="Amazon", model="m1")
    L.set_label(store, rid, "ada", "fail", category="Loop")
    p = panel()
    assert p.browser.model.total == 3
    p.browser.search.setText("lasagna")
    p.browser.apply_filter()
    assert p.browser.model.total == 2
    p.browser.search.setText("")
    p.browser.f_status.setCurrentText("out of steps")  # max_steps, in words
    assert p.browser.model.total == 1 and "flight" in p.browser.model.rows[0]["task"]
    p.browser.f_status.setCurrentIndex(0)
    p.browser.f_human.setCurrentText("fail")
    assert p.browser.model.total == 1 and p.browser.model.rows[0]["id"] == rid
    p.browser.f_human.setCurrentText("unlabelled")
    assert p.browser.model.total == 2


def test_ten_thousand_runs_open_without_waiting(qtbot, panel, store):
    import json
    now = time.time()
    rows = [{"id": f"run-{i:05d}", "task": f"task number {i}", "url": "https://x", "status": "answered",
             "started": now - i, "steps": 3, "config": json.dumps({}), "site": f"site{i % 7}", "model": "m"}
            for i in range(10_000)]
    with store.atomic():
        store.db["runs"].insert_all(rows, batch_size=1000)
    t0 = time.perf_counter()
    p = panel()
    took = time.perf_counter() - t0
    assert p.browser.model.total == 10_000 and len(p.browser.model.rows) <= 400  # one page, more on scroll
    print(f"opened 10,000 runs in {took * 1000:.0f} ms")
    p.browser.table.scrollToBottom()
    qtbot.waitUntil(lambda: len(p.browser.model.rows) > 200, timeout=5000)


def test_compare_two_runs_of_the_same_task(qtbot, panel, store):
    a = make_run(store, steps=4, task="same task", model="m1")
    b = make_run(store, steps=3, task="same task", model="m2")
    make_run(store, steps=2, task="another task")
    p = panel()
    p.show_run(a)
    assert [r["id"] for r in p.other_runs()] == [b]
    dlg = p.compare(b)
    qtbot.addWidget(dlg)
    assert dlg.table.rowCount() >= 4
    assert dlg.views[0].has_screenshot() and dlg.views[1].has_screenshot()
    gaps = [i for i, (x, y) in enumerate(dlg.pairs) if x is None or y is None]
    assert gaps  # run b has fewer steps: a gap, not a shifted list
    dlg.show_pair(gaps[0])
    assert "no matching step" in (dlg.views[0].message() + dlg.views[1].message())


def test_n_skips_forward_through_the_queue(qtbot, panel, store):
    ids = [make_run(store, steps=1, task=f"task {i}") for i in range(3)]
    p = panel("ada")
    focus(qtbot, p)
    seen = []
    for _ in range(3):
        qtbot.keyClick(p.viewer.view, Qt.Key_N)  # skip without labelling
        seen.append(p.viewer.run["id"])
    assert seen == [ids[2], ids[1], ids[0]]  # down the list (newest first, #38), not ids[2], ids[1], ids[2], ...


def test_refresh_keeps_the_chosen_filters(qtbot, panel, store):
    make_run(store, steps=1, site="Allrecipes")
    make_run(store, steps=1, site="Booking")
    p = panel()
    p.browser.f_site.setCurrentText("Booking")
    assert p.browser.model.total == 1
    p.refresh()  # what switching to the Review tab does
    assert p.browser.f_site.currentText() == "Booking" and p.browser.model.total == 1


def test_a_missing_screenshot_file_is_reported_not_loading_for_ever(qtbot, panel, store):
    import shutil
    rid = make_run(store, steps=3)
    shutil.rmtree(store.step_dir(rid, 2))
    p = panel()
    p.browser.table.selectRow(0)
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)
    p.go(1)
    qtbot.waitUntil(lambda: "missing" in p.viewer.view.message(), timeout=5000)
    assert "Step 2/3" in p.viewer.step_info.text()
    p.go(2)
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)


def test_annotator_filter_applies_to_the_human_verdict(qtbot, panel, store):
    a = make_run(store, steps=1, task="alpha")
    b = make_run(store, steps=1, task="beta")
    L.set_label(store, a, "ada", "success")
    L.set_label(store, a, "bob", "fail")
    L.set_label(store, b, "bob", "success")
    p = panel()
    p.browser.f_annotator.setCurrentText("ada")
    p.browser.f_human.setCurrentText("fail")
    assert p.browser.model.total == 0  # ada called nothing a failure (bob did, on alpha)
    p.browser.f_human.setCurrentText("success")
    assert [r["id"] for r in p.browser.model.rows] == [a]
    p.browser.f_human.setCurrentText("unlabelled")
    assert [r["id"] for r in p.browser.model.rows] == [b]  # not labelled by ada


def test_judge_filter_agrees_with_the_judge_column(qtbot, panel, store):
    a = make_run(store, steps=1, task="alpha")
    b = make_run(store, steps=1, task="beta")
    L.set_verdict(store, a, "ref:must_include", 0, "cockpit-ref-1", 1)  # a reference check, not a judge
    L.set_verdict(store, b, "judge-x", 3, "v1", 1)
    store.db.execute("UPDATE verdicts SET created = 1 WHERE run_id = ?", [b])  # older ...
    L.set_verdict(store, b, "judge-x", 1, "v1", 0)  # ... than this one, which the column shows
    p = panel()
    p.browser.f_judge.setCurrentText("success")
    assert p.browser.model.total == 0
    p.browser.f_judge.setCurrentText("fail")
    assert [r["id"] for r in p.browser.model.rows] == [b] and p.browser.model.rows[0]["judge"] == "fail"
    p.browser.f_judge.setCurrentText("unjudged")
    assert [r["id"] for r in p.browser.model.rows] == [a]


@pytest.mark.parametrize("query, hits", [('a"b', 1), ("NOT", 1), ("*", 0), ("-x", 1), ("ünïcode", 1),
                                         ("unicode", 1), ('"', 0), ("(", 0)])
def test_search_with_odd_strings(qtbot, panel, store, query, hits):
    make_run(store, steps=1, task='look for a"b NOT -x ünïcode')
    make_run(store, steps=1, task="plain")
    make_run(store, steps=1, task="other")
    p = panel()
    p.browser.search.setText(query)
    p.browser.apply_filter()
    assert p.browser.model.total == hits


def test_switching_annotator_in_blind_mode_hides_the_others_again(qtbot, panel, store):
    rid = make_run(store, steps=2)
    L.set_label(store, rid, "bob", "fail", category="Loop")
    p = panel("ada")
    p.label_bar.blind.setChecked(True)
    p.browser.table.selectRow(0)
    p.label("success")
    assert "bob: fail" in p.viewer.header.text()
    p.label_bar.annotator.setCurrentText("cy")  # cy has not labelled this run
    assert "bob" not in p.viewer.header.text() and "ada" not in p.viewer.header.text()
    assert p.label_bar.status.text() == "not labelled by you"


def test_blind_mode_neither_filters_nor_sorts_by_the_hidden_verdicts(qtbot, panel, store):
    a = make_run(store, steps=1, task="alpha")
    b = make_run(store, steps=1, task="beta")
    store.db.execute("UPDATE runs SET started = started + 10 WHERE id = ?", [a])  # alpha is newer
    L.set_verdict(store, a, "judge-x", 3, "v1", 1)
    L.set_verdict(store, b, "judge-x", 3, "v1", 0)
    p = panel()
    p.browser.f_judge.setCurrentText("success")
    assert p.browser.model.total == 1
    p.label_bar.blind.setChecked(True)
    assert p.browser.model.total == 2 and not p.browser.f_judge.isEnabled()
    p.browser.table.sortByColumn(column("judge"), Qt.AscendingOrder)  # Judge: fail (beta) would come first
    assert [r["task"] for r in p.browser.model.rows] == ["beta", "alpha"]  # by start time instead
    p.browser.table.sortByColumn(column("judge"), Qt.DescendingOrder)
    assert [r["task"] for r in p.browser.model.rows] == ["alpha", "beta"]


def test_blind_flag_only_for_verdicts_given_blind(qtbot, panel, store):
    rid = make_run(store, steps=1)
    other = make_run(store, steps=1)
    L.set_label(store, rid, "bob", "fail")
    L.set_label(store, other, "bob", "fail")
    p = panel("ada")
    p.label_bar.blind.setChecked(True)
    p.show_run(rid)
    p.label("success")
    p.label_bar.comment.setText("saved again")
    p.label("success")  # the same verdict, saved again: still a blind one
    assert L.labels(store, rid, "ada")[0]["blind"] == 1
    p.label("fail")  # changed after seeing bob's fail
    assert L.labels(store, rid, "ada")[0]["blind"] == 0
    p.label_bar.blind.setChecked(False)
    p.show_run(other)  # bob's verdict on screen ...
    p.label_bar.blind.setChecked(True)
    p.label("fail")  # ... before this label
    assert L.labels(store, other, "ada")[0]["blind"] == 0


def test_labelling_under_the_unlabelled_filter_then_scrolling_loses_no_run(qtbot, panel, store):
    from cockpit.ui.review import runs_model
    ids = [make_run(store, steps=1, task=f"task {i}") for i in range(25)]
    old = runs_model.PAGE
    runs_model.PAGE = 10
    try:
        p = panel("ada")
        p.browser.f_human.setCurrentText("unlabelled")
        assert p.browser.model.total == 25 and len(p.browser.model.rows) == 10
        for rid in [r["id"] for r in p.browser.model.rows[:5]]:
            L.set_label(store, rid, "ada", "success")
        while p.browser.model.canFetchMore():
            p.browser.model.fetchMore()
        assert sorted(r["id"] for r in p.browser.model.rows) == sorted(ids)  # nothing skipped, nothing twice
        p.browser.f_human.setCurrentText("unlabelled")
        p.browser.apply_filter()
        assert p.browser.model.total == 20
        last = p.browser.model.ids[-1]
        p.show_run(last)  # a run far down the list is loaded and selected
        assert p.browser.table.currentIndex().row() == p.browser.model.row_of(last) >= 10
    finally:
        runs_model.PAGE = old


def test_a_pixel_steps_corrected_point_is_kept_after_w_and_a_click(qtbot, panel, store):
    from PySide6.QtCore import QPoint
    rid = make_run(store, steps=2)
    store.update_step(rid, 1, action="Click (300, 200)", target=None,
                      pointer={"mode": "pixels", "dialect": "uitars", "frame": {"viewport": [1024, 768],
                                                                                "image": [1024, 768]}})
    p = panel("ada")
    p.browser.table.selectRow(0)
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)
    assert p.viewer.view.pointer_marker() is not None and p.viewer.view.pointer_marker().pos().x() == 300
    focus(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_W)
    assert "or the point it should have hit" in p.label_bar.status.text()
    pos = p.viewer.view.mapFromScene(412, 318)
    qtbot.mouseClick(p.viewer.view.viewport(), Qt.LeftButton, Qt.AltModifier, QPoint(pos.x(), pos.y()))
    fixes = [c for c in corrections.of(store, rid) if c["kind"] == "point"]
    assert len(fixes) == 1 and fixes[0]["step"] == 1 and fixes[0]["by"] == "ada"
    assert abs(fixes[0]["point"][0] - 412) <= 1 and abs(fixes[0]["point"][1] - 318) <= 1
    assert "should have been at" in p.label_bar.status.text()
    assert L.step_labels(store, rid, "ada")[0]["judgement"] == "wrong_target"


def test_side_effects_and_repetition_from_the_keyboard(qtbot, panel, store):
    for i in range(2):
        make_run(store, steps=2, task=f"task {i}")
    p = panel("ada")
    p.next_unlabelled()
    first = p.viewer.run["id"]
    focus(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_X)  # before a verdict: kept for it
    assert p.label_bar.axes["side_effects"].currentText() == "no" and "press S, F or U" in p.label_bar.status.text()
    assert L.labels(store, first, "ada") == []
    qtbot.keyClick(p.viewer.view, Qt.Key_X)  # no -> yes
    qtbot.keyClick(p.viewer.view, Qt.Key_F)
    lab = L.labels(store, first, "ada")[0]
    assert (lab["verdict"], lab["side_effects"], lab["repetition"]) == ("fail", "yes", None)
    qtbot.keyClick(p.viewer.view, Qt.Key_L)  # on a labelled run: saved at once
    qtbot.keyClick(p.viewer.view, Qt.Key_L)
    qtbot.keyClick(p.viewer.view, Qt.Key_L)  # no -> yes -> unsure
    assert L.labels(store, first, "ada")[0]["repetition"] == "unsure"
    qtbot.keyClick(p.viewer.view, Qt.Key_S)  # a new verdict keeps the other two answers
    lab = L.labels(store, first, "ada")[0]
    assert (lab["verdict"], lab["side_effects"], lab["repetition"]) == ("success", "yes", "unsure")
    qtbot.keyClick(p.viewer.view, Qt.Key_N)
    axes = p.label_bar.axes
    assert p.viewer.run["id"] != first and axes["side_effects"].currentText() == "–"  # the next run starts blank
    p.show_run(first)
    assert (axes["side_effects"].currentText(), axes["repetition"].currentText()) == ("yes", "unsure")


def test_the_verdict_button_of_the_label_is_ticked(qtbot, panel, store):
    """Walkthrough 6: the Fail (F) button showed no sign of the label; only the footer said "your label: fail"."""
    rid, other = make_run(store, steps=2, task="one"), make_run(store, steps=2, task="two")
    p = panel("ada")
    p.show_run(rid)
    bar = p.label_bar
    assert not any(b.text().startswith("✓") for b in (bar.btn_success, bar.btn_fail, bar.btn_unsure))
    p.label("fail")
    assert bar.btn_fail.text() == "✓ Fail (F)" and bar.btn_success.text() == "Success (S)"
    p.label("success")
    assert bar.btn_success.text() == "✓ Success (S)" and bar.btn_fail.text() == "Fail (F)"
    p.show_run(other)  # another run, not labelled: no tick
    assert bar.btn_success.text() == "Success (S)"
    p.show_run(rid)  # back: its label's tick again
    assert bar.btn_success.text() == "✓ Success (S)"
