"""Compare runs on a run and a branch of it, and on pixel steps (issue #38's walkthrough).

A branch's steps are numbered from 1 (its step 1 is its parent's step k, asked again), so Compare lined them up by
what they did, and a branch's steps stood beside whichever of the parent's looked alike: the prelude both share
and the point where they part were not to be seen. Now they are paired by step number, the shared prelude rows
say "shared" and the row where they part is marked and selected. And a pixel step (`Click (600, 475)`) showed no
point on its screenshot, though Review's step view draws it: Compare draws it too.

A real store with recorded runs, the Compare dialog as Review opens it (offscreen); what is read is what a person
reads: the table's cells and row heads, the note above it, the crosshair on each screenshot.
"""
from __future__ import annotations

from cockpit.core.store.newrun import NewRun
from cockpit.ui.review.compare_dialog import CompareDialog
from testkit.fakeruns import screenshot

NOTES = "http://127.0.0.1/notes"


def notes_run(store, actions: list[str], parent: tuple[str, int] | None = None, pointer: dict | None = None) -> str:
    """A run of the notes task whose steps did `actions`; with `parent` (run id, step), a branch of that run."""
    run_id = store.new_run(NewRun("Open Note A", NOTES, model="som", parent_run=parent and parent[0],
                                  parent_step=parent and parent[1]))
    png, marks = screenshot(1)
    for k, action in enumerate(actions, 1):
        files = store.write_step_files(run_id, k, screenshot=png, marked=png, marks=marks)
        store.commit_step(run_id, dict(step=k, url=NOTES, title="Notes", action=action, action_text=action,
                                       pointer=pointer if "(" in action else None, status="ok", **files))
    store.finish_run(run_id, "stopped")
    return run_id


def rows_with_step_numbers(dlg) -> list[list[str]]:
    t = dlg.table
    return [[t.verticalHeaderItem(r).text() if t.verticalHeaderItem(r) else ""]
            + [t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


PARENT = ["Click [1]", "Scroll [WINDOW]; down", "Click [4]", "Click [2]", "Type [3]; hello"]
BRANCH = ["Click [5]", "Scroll [WINDOW]; down", "Click [2]", "Click [6]"]  # step 1 is the parent's step 3, asked again


def test_a_branch_is_lined_up_with_its_parent_at_the_branch_point(qtbot, store):
    parent = notes_run(store, PARENT)
    branch = notes_run(store, BRANCH, parent=(parent, 3))
    dlg = CompareDialog(store, parent, branch)
    qtbot.addWidget(dlg)
    got = rows_with_step_numbers(dlg)
    # the prelude both share: the parent's steps 1 and 2, the branch's side "shared"
    assert got[0][:5] == ["shared", "1", "Click [1]", "shared", "(as A: before the branch)"]
    assert got[1][:3] == ["shared", "2", "Scroll [WINDOW]; down"] and got[1][5:] == ["shared", "shared"]
    # where they part: the parent's step 3 beside the branch's step 1, marked, in bold and selected
    assert got[2][:5] == ["branch point", "3", "Click [4]", "1 (A's 3)", "Click [5]"]
    assert dlg.table.item(2, 0).font().bold() and dlg.table.currentRow() == 2 == dlg.branch_row()
    # then step by step at the same point; the branch's last step has no parent step beside it
    assert [r[1:5] for r in got[3:]] == [["4", "Click [2]", "2 (A's 4)", "Scroll [WINDOW]; down"],
                                                      ["5", "Type [3]; hello", "3 (A's 5)", "Click [2]"],
                                                      ["—", "", "4 (A's 6)", "Click [6]"]]
    note = dlg.branch_note.text()
    assert "B is a branch of A" in note and "step 3" in note and "1–2" in note
    dlg.show_pair(0)
    assert "shared with A" in dlg.views[1].message()


def test_the_branch_can_be_a(qtbot, store):
    parent = notes_run(store, PARENT)
    branch = notes_run(store, BRANCH, parent=(parent, 3))
    got = rows_with_step_numbers(CompareDialog(store, branch, parent))  # Review's open run is the branch
    assert got[0][:5] == ["shared", "shared", "(as B: before the branch)", "1", "Click [1]"]
    assert got[2][:5] == ["branch point", "1 (B's 3)", "Click [5]", "3", "Click [4]"]


def test_two_runs_that_are_not_a_branch_are_lined_up_by_what_they_did(qtbot, store):
    a = notes_run(store, PARENT)
    b = notes_run(store, BRANCH)
    dlg = CompareDialog(store, a, b)
    qtbot.addWidget(dlg)
    assert dlg.branch_row() is None and not hasattr(dlg, "branch_note")
    assert all(r[0] in ("", "1", "2", "3", "4", "5", "6", "7") for r in rows_with_step_numbers(dlg))


def test_a_pixel_step_s_point_is_drawn_on_both_screenshots(qtbot, store):
    frame = {"frame": {"viewport": [1024, 768]}}  # the screenshot's own width: one image pixel per CSS pixel
    a = notes_run(store, ["Click (600, 475)"], pointer=frame)
    b = notes_run(store, ["Click (120, 95)"], pointer=frame)
    dlg = CompareDialog(store, a, b)
    qtbot.addWidget(dlg)
    marks = [v.pointer_marker() for v in dlg.views]
    assert all(m is not None for m in marks)
    assert [(round(m.pos().x()), round(m.pos().y())) for m in marks] == [(600, 475), (120, 95)]
