"""Review's key points: WebJudge's (or typed ones) as checkboxes, each tick the annotator's and bound to the step
shown, from the keyboard (Ctrl+1…9, K to type them)."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog

from cockpit.core.store import judge_stages
from cockpit.core.store import key_points as KP
from testkit.fakeruns import make_run
from tests.ui.windowtools import when_shown

REPLY = "**Key Points**:\n1. Gamestop store near 90028\n2. Set it as the home store"


def view_focused(qtbot, p):
    p.activateWindow()
    p.viewer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is p.viewer.view, timeout=3000)


def ticks(store, rid, who):
    return [(t["position"], t["step"]) for t in KP.ticks(store, rid, who)]


def test_alt_digit_ticks_a_key_point_at_the_step_shown(qtbot, panel, store):
    rid = make_run(store, steps=4, task="Find the closest Gamestop to 90028 and set it as the home store")
    judge_stages.save(store, rid, "judge-x", "webjudge-cockpit-1", 1, [{"stage": "key_points", "reply": REPLY}],
                      reply="Status: success")
    p = panel("ada")
    p.show_run(rid)
    kp = p.key_points
    assert [b.text() for b in kp.boxes] == ["1. Gamestop store near 90028", "2. Set it as the home store"]
    assert kp.summary.text() == "Key points (WebJudge (judge-x)): 0 of 2 met"
    tabs = p.viewer.details
    assert tabs.tabText(tabs.indexOf(p.key_points_tab)) == "Key points 0/2"
    view_focused(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_Right)
    qtbot.keyClick(p.viewer.view, Qt.Key_Right)
    qtbot.keyClick(p.viewer.view, Qt.Key_1, Qt.ControlModifier)
    assert ticks(store, rid, "ada") == [(0, 3)]
    assert kp.boxes[0].isChecked() and kp.boxes[0].text() == "1. Gamestop store near 90028 (step 3)"
    assert kp.summary.text().endswith("1 of 2 met")
    assert tabs.currentWidget() is p.key_points_tab and all(b.isVisible() for b in kp.boxes)  # the tick shows them
    assert tabs.tabText(tabs.indexOf(p.key_points_tab)) == "Key points 1/2"
    assert p.label_bar.status.text() == "key point 1 met at step 3"
    qtbot.keyClick(p.viewer.view, Qt.Key_Right)
    qtbot.mouseClick(kp.boxes[1], Qt.LeftButton)  # a click ticks it too, at the step shown
    assert ticks(store, rid, "ada") == [(0, 3), (1, 4)]
    qtbot.keyClick(p.viewer.view, Qt.Key_1, Qt.ControlModifier)  # again: unticked
    assert ticks(store, rid, "ada") == [(1, 4)] and not kp.boxes[0].isChecked()
    p.label_bar.annotator.setCurrentText("bob")  # another annotator: their own ticks (none)
    assert not any(b.isChecked() for b in kp.boxes) and kp.summary.text().endswith("0 of 2 met")


def test_k_types_the_tasks_key_points_for_every_run_of_it(qtbot, panel, store):
    task = "Book a table for two at 7 pm"
    rid = make_run(store, steps=2, task=task)
    other = make_run(store, steps=2, task=task)
    p = panel("ada")
    p.show_run(rid)
    kp = p.key_points
    assert kp.boxes == [] and kp.summary.text() == "Key points: none yet"
    asked = []

    def answer(dlg):
        asked.append(dlg.labelText())
        dlg.setTextValue("A table for two\n\n7 pm\n")
        dlg.accept()
    when_shown(qtbot, lambda: next((w for w in QApplication.topLevelWidgets()
                                    if isinstance(w, QInputDialog) and w.isVisible()), None), answer)
    view_focused(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_K)
    qtbot.waitUntil(lambda: len(kp.boxes) == 2, timeout=5000)
    assert "one a line" in asked[0]
    assert [b.text() for b in kp.boxes] == ["1. A table for two", "2. 7 pm"]
    assert kp.summary.text() == "Key points (typed): 0 of 2 met"
    assert p.label_bar.status.text() == "2 key points for this task"
    p.show_run(other)
    assert [b.text() for b in p.key_points.boxes] == ["1. A table for two", "2. 7 pm"]


def test_key_points_go_with_a_run_that_leaves_the_list(qtbot, panel, store):
    """Walkthrough 5: a search took the open run out of the list and its key points, and "1 of 2 key points met:
    suggests failure (A)" beside the label buttons, stayed while the pane said no run was open."""
    rid = make_run(store, steps=3, task="Find the closest Gamestop to 90028 and set it as the home store")
    make_run(store, steps=2, task="another task")
    judge_stages.save(store, rid, "judge-x", "webjudge-cockpit-1", 1, [{"stage": "key_points", "reply": REPLY}],
                      reply="Status: success")
    p = panel("ada")
    p.show_run(rid)
    p.key_points.set_tick(0, True)
    assert p.label_bar.btn_suggestion.isVisibleTo(p) and "1 of 2" in p.label_bar.btn_suggestion.text()
    p.browser.search.setText("another")
    p.browser.apply_filter()
    assert p.viewer.run is None
    assert p.key_points.boxes == [] and p.key_points.summary.text() == "Key points:"
    assert not p.label_bar.btn_suggestion.isVisibleTo(p)
    tabs = p.viewer.details
    assert tabs.tabText(tabs.indexOf(p.key_points_tab)) == "Key points"
    p.browser.search.setText("")
    p.browser.apply_filter()  # back in the list: its key points and ticks again
    assert p.viewer.run["id"] == rid and [b.isChecked() for b in p.key_points.boxes] == [True, False]


def test_a_judge_reply_with_no_key_points_list_is_said_to_be_used_whole(qtbot, panel, store):
    """Walkthrough 6: a WebJudge reply with no Key Points list ("The screenshots show what the agent did. NOT
    SUCCESS") became key point 1 without a word."""
    rid = make_run(store, steps=2, task="Delete the spam ticket")
    judge_stages.save(store, rid, "judge-x", "webjudge-cockpit-1", 1,
                      [{"stage": "key_points", "reply": "The screenshots show what the agent did. NOT SUCCESS"}],
                      reply="Status: failure")
    p = panel("ada")
    p.show_run(rid)
    assert p.key_points.boxes[0].text().startswith("1. The screenshots show what the agent did.")  # cut with …
    assert "no 'Key Points' heading in its reply, used whole: K types better ones" in p.key_points.summary.text()
