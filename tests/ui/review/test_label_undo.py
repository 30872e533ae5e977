"""Ctrl+Z in Review undoes label changes made by stray keys (walkthrough 3, A4: typing a URL into Review turned
"not executable (Site down)" into "fail (Navigation stuck)" and judged step 1 "harmful", and Ctrl+Z did nothing).

A real store, the Review panel offscreen, the keys pressed on the screenshot as a person presses them; what is
checked is the label stored (the whole row, as it was) and the status line.
"""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from cockpit.core.store import labels as L
from cockpit.ui.review.reason_dialog import ReasonDialog
from testkit.fakeruns import make_run
from tests.ui.review.driving import focus_view


def label_site_down(qtbot, p):
    asked: list[ReasonDialog] = []
    p.labeller.reasonAsked.connect(asked.append)
    qtbot.keyClick(p.viewer.view, Qt.Key_D)
    qtbot.waitUntil(lambda: bool(asked) and asked[0].isVisible(), timeout=3000)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is asked[0].choices, timeout=3000)
    qtbot.keyClick(asked[0].choices, Qt.Key_2)  # Site down
    qtbot.waitUntil(lambda: not asked[0].isVisible(), timeout=3000)
    focus_view(qtbot, p)


def undo(qtbot, p) -> str:
    qtbot.keyClick(p.viewer.view, Qt.Key_Z, Qt.ControlModifier)
    return p.label_bar.status.text()


def test_ctrl_z_takes_back_stray_keys_one_change_at_a_time(qtbot, panel, store):
    rid = make_run(store, steps=3, task="book a table for two")
    p = panel("ada")
    p.show_run(rid)
    focus_view(qtbot, p)
    label_site_down(qtbot, p)
    kept = L.labels(store, rid, "ada")[0]
    assert (kept["verdict"], kept["category"]) == (L.NOT_EXECUTABLE, "Site down")
    for key in (Qt.Key_F, Qt.Key_1, Qt.Key_X, Qt.Key_T):  # stray typing: fail, Navigation stuck, side effects, harmful
        qtbot.keyClick(p.viewer.view, key)
    now = L.labels(store, rid, "ada")[0]
    assert (now["verdict"], now["category"], now["side_effects"]) == ("fail", "Navigation stuck", "no")
    assert [s["judgement"] for s in L.step_labels(store, rid, "ada")] == ["harmful"]

    assert "step 1" in undo(qtbot, p) and "Undone" in p.label_bar.status.text()
    assert L.step_labels(store, rid, "ada") == []
    assert "fail (Navigation stuck)" in undo(qtbot, p)
    assert L.labels(store, rid, "ada")[0]["side_effects"] is None
    assert undo(qtbot, p).endswith("fail · 2 more to undo")
    assert "not executable (Site down)" in undo(qtbot, p)
    assert L.labels(store, rid, "ada")[0] == kept  # exactly as stored: reason, time taken, when
    assert p.label_bar.status.text().endswith("1 more to undo")
    assert f"ada:{L.NOT_EXECUTABLE}" in p.browser.model.rows[p.browser.model.row_of(rid)]["human"]
    assert "not labelled" in undo(qtbot, p)
    assert L.labels(store, rid, "ada") == []
    assert undo(qtbot, p) == "Nothing to undo on this run."


def test_ctrl_z_undoes_only_the_shown_runs_labels(qtbot, panel, store):
    a, b = make_run(store, steps=2, task="first"), make_run(store, steps=2, task="second")
    p = panel("ada")
    p.show_run(a)
    focus_view(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_S)
    p.show_run(b)
    focus_view(qtbot, p)
    qtbot.keyClick(p.viewer.view, Qt.Key_F)
    p.show_run(a)
    focus_view(qtbot, p)
    assert "not labelled" in undo(qtbot, p)
    assert L.labels(store, a, "ada") == [] and L.labels(store, b, "ada")[0]["verdict"] == "fail"
