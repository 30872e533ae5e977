"""The verdict suggests itself from the key points' ticks (#42): beside the verdict buttons, "1 of 2 key points
met: suggests failure"; A (or a click) takes the suggestion; the annotator still decides."""
from PySide6.QtCore import Qt

from cockpit.core.review.key_points import suggestion_text
from cockpit.core.store import key_points as KP
from cockpit.core.store import labels as L
from testkit.fakeruns import make_run
from tests.ui.review.review_keys import key_in_review


def verdict(store, rid, who="ada"):
    mine = L.labels(store, rid, who)
    return mine[0]["verdict"] if mine else None


def test_the_ticks_suggest_the_verdict_and_a_takes_it(qtbot, panel, store):
    rid = make_run(store, steps=3, task="Book a table for two at 7 pm", task_id="book-1")
    KP.set_typed(store, "book-1", ["Restaurant picked", "Two people at 7 pm"], "ada")
    p = panel("ada")
    p.show_run(rid)
    s = p.label_bar.btn_suggestion
    assert s.isVisible() and s.text() == "0 of 2 key points met: suggests failure (A)"
    key_in_review(qtbot, p, Qt.Key_1, Qt.ControlModifier)
    assert s.text() == "1 of 2 key points met: suggests failure (A)"
    assert verdict(store, rid) is None  # a suggestion, not a label
    key_in_review(qtbot, p, Qt.Key_Right)
    key_in_review(qtbot, p, Qt.Key_2, Qt.ControlModifier)
    assert s.text() == "2 of 2 key points met: suggests success (A)"
    key_in_review(qtbot, p, Qt.Key_A)
    assert verdict(store, rid) == "success" and p.label_bar.status.text() == "your label: success"
    key_in_review(qtbot, p, Qt.Key_2, Qt.ControlModifier)  # unticked: the suggestion changes, the label stays
    assert s.text() == "1 of 2 key points met: suggests failure (A)" and verdict(store, rid) == "success"
    qtbot.mouseClick(s, Qt.LeftButton)  # a click takes it too
    assert verdict(store, rid) == "fail"


def test_without_key_points_there_is_no_suggestion(qtbot, panel, store):
    rid = make_run(store, steps=2, task="Find the opening hours")
    p = panel("ada")
    p.show_run(rid)
    assert not p.label_bar.btn_suggestion.isVisible()
    key_in_review(qtbot, p, Qt.Key_A)
    assert verdict(store, rid) is None and "no key points" in p.label_bar.status.text()


def test_the_wording():
    assert suggestion_text(3, 4) == "3 of 4 key points met: suggests failure"
    assert suggestion_text(4, 4) == "4 of 4 key points met: suggests success"
    assert suggestion_text(0, 0) == ""
