"""Review's label bar keeps its height as one labels (issue #38: the screenshot above it jumped when S ticked
"✓ Success (S)" or a task's key points showed their suggestion, and the row of fields wrapped onto another line).

A real store, two runs (one whose task has key points), the Review panel offscreen at widths where the row used to
wrap differently; labelled from the keyboard as a person does, the bar's height read after every key.
"""
from PySide6.QtCore import Qt

from cockpit.core.store import judge_stages
from testkit.fakeruns import make_run
from tests.ui.review.review_keys import key_in_review

REPLY = "**Key Points**:\n1. Gamestop store near 90028\n2. Set it as the home store"
KEYS = [("S", Qt.NoModifier), ("Right", Qt.NoModifier), ("E", Qt.NoModifier), ("F", Qt.NoModifier),
        ("1", Qt.NoModifier), ("N", Qt.NoModifier), ("1", Qt.ControlModifier), ("U", Qt.NoModifier),
        ("2", Qt.ControlModifier), ("A", Qt.NoModifier)]


def test_the_label_bar_keeps_its_height_as_one_labels(qtbot, panel, store):
    plain = make_run(store, steps=3, task="Find the closest Gamestop")
    pointed = make_run(store, steps=3, task="Find the closest Gamestop to 90028 and set it as the home store")
    judge_stages.save(store, pointed, "judge-x", "webjudge-cockpit-1", 1, [{"stage": "key_points", "reply": REPLY}],
                      reply="Status: success")
    p = panel("ada")
    bar = p.label_bar
    for width, who in ((860, "ada"), (900, "bob"), (1340, "cyd")):  # where "✓ " or the suggestion wrapped the row
        bar.annotator.setCurrentText(who)  # each width labelled afresh
        p.resize(width, 800)
        p.show_run(plain)
        qtbot.wait(50)
        heights = {"not labelled": bar.height()}
        for key, mod in KEYS:
            key_in_review(qtbot, p, getattr(Qt, f"Key_{key}"), mod)
            qtbot.wait(30)
            heights[f"{'Ctrl+' if mod else ''}{key} → {bar.status.text()}"] = bar.height()
        assert p.viewer.run["id"] == pointed and bar.btn_suggestion.isVisible()  # N went on to the key points' run
        assert len(set(heights.values())) == 1, (width, heights)
