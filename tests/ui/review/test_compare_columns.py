"""Compare runs says, beside each pair of steps, whether they did the same action and whether they were on the
same page (walkthrough 3, B1: "same? yes" stood beside `Click [13]` / `Click [5]`, and "differs" beside two
"(no action)" steps).

A real store with two recorded runs of one task, the Compare dialog as Review opens it (offscreen); what is read is
the table's cells and header tooltips, as a person reads them.
"""
from __future__ import annotations

from cockpit.core.store.newrun import NewRun
from cockpit.ui.review.compare_dialog import CompareDialog
from testkit.fakeruns import screenshot


def record(store, actions: list[tuple[str | None, str]]) -> str:
    """A run of the notes task whose steps did `actions` (action text or None, page address)."""
    run_id = store.new_run(NewRun("Open Note A", "http://127.0.0.1/notes", model="som"))
    png, marks = screenshot(1)
    for k, (action, url) in enumerate(actions, 1):
        files = store.write_step_files(run_id, k, screenshot=png, marked=png, marks=marks)
        store.commit_step(run_id, dict(step=k, url=url, title="Notes", action=action, action_text=action,
                                       status="ok" if action else "error", **files))
    store.finish_run(run_id, "stopped")
    return run_id


def rows(dlg) -> list[list[str]]:
    t = dlg.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def test_same_columns_say_whether_the_actions_and_the_pages_are_the_same(qtbot, store):
    notes, note_a = "http://127.0.0.1/notes", "http://127.0.0.1/notes/a"
    a = record(store, [("Click [13]", notes), ("Click [1]", notes), (None, note_a), ("Click [2]", note_a)])
    b = record(store, [("Click [5]", notes), ("Click [5]", notes), (None, note_a), ("Click [2]", note_a + "#top")])
    dlg = CompareDialog(store, a, b)
    qtbot.addWidget(dlg)
    head = [dlg.table.horizontalHeaderItem(c).text() for c in range(dlg.table.columnCount())]
    assert head[4:] == ["same action?", "same page?"]
    assert "Click [13]" in dlg.table.horizontalHeaderItem(4).toolTip()  # says what "same" means
    assert "page" in dlg.table.horizontalHeaderItem(5).toolTip()
    got = rows(dlg)
    assert got[0][1] == "Click [13]" and got[0][3] == "Click [5]"
    assert got[0][4:] == ["differs", "yes"]  # different targets on one page
    assert got[1][4:] == ["differs", "yes"]
    assert got[2][1] == got[2][3] == "(no action)"
    assert got[2][4:] == ["yes", "yes"]  # neither acted, both on Note A
    assert got[3][4:] == ["yes", "yes"]  # the #part is not another page
    assert dlg.table.item(0, 4).background().color().name() != dlg.table.item(3, 4).background().color().name()


def test_a_step_only_one_run_has_is_neither_same_nor_differing(qtbot, store):
    notes = "http://127.0.0.1/notes"
    a = record(store, [("Click [1]", notes), ("Scroll [WINDOW]; down", notes), ("Click [2]", notes)])
    b = record(store, [("Click [1]", notes), ("Click [2]", notes + "?page=2")])
    dlg = CompareDialog(store, a, b)
    qtbot.addWidget(dlg)
    got = rows(dlg)
    lone = next(r for r in got if r[2] == "—")  # the scroll B does not have
    assert lone[4:] == ["—", "—"]
    last = next(r for r in got if r[1] == "Click [2]")
    assert last[4:] == ["yes", "differs"]


def record_marked(store, steps: list[tuple[str, int | None, list[dict], dict | None]]) -> str:
    """A run whose steps did (action, target box, the page's marks, the pixel step's pointer) on one page."""
    run_id = store.new_run(NewRun("Open Note A", "http://127.0.0.1/notes", model="som"))
    png, _ = screenshot(1)
    for k, (action, target, marks, pointer) in enumerate(steps, 1):
        files = store.write_step_files(run_id, k, screenshot=png, marked=png, marks=marks)
        store.commit_step(run_id, dict(step=k, url="http://127.0.0.1/notes", title="Notes", action=action,
                                       action_text=action, target=target, pointer=pointer, status="ok", **files))
    store.finish_run(run_id, "stopped")
    return run_id


def link(i: int, text: str) -> dict:
    return {"id": i, "bbox": [10, 30 * i, 200, 20], "tag": "a", "text": text}


def test_same_action_is_judged_by_the_element_not_its_box_number(qtbot, store):
    """Walkthroughs 5 and 6: `Click [4]` on two different notes read "yes", and a pixel click and `Click [4]` on the
    same link read "differs"."""
    before = [link(1, "Settings"), link(4, "Call Alice about the report"), link(5, "Renew passport")]
    after = [link(1, "Settings"), link(3, "Call Alice about the report"), link(4, "Renew passport")]
    on_alice = {"resolved": {"tag": "a", "text": "Call Alice about the report", "desc": '<a> "Call Alice…"'}}
    a = record_marked(store, [("Click [4]", 4, before, None), ("Click [4]", 4, before, None),
                              ("Click [1]", 1, before, None)])
    b = record_marked(store, [("Click [4]", 4, after, None), ("Click [3]", 3, after, None),
                              ("Click (120, 95)", None, after, on_alice)])
    dlg = CompareDialog(store, a, b)
    qtbot.addWidget(dlg)
    got = rows(dlg)
    assert got[0][4] == "differs"  # box 4 was Alice's note in A, the passport in B
    assert got[1][4] == "yes"  # Alice's note, box 4 in A and box 3 in B
    assert got[2][1:4:2] == ["Click [1]", "Click (120, 95)"] and got[2][4] == "differs"  # Settings vs Alice
    c = record_marked(store, [("Click (120, 95)", None, after, on_alice)])
    d = record_marked(store, [("Click [4]", 4, before, None)])
    assert rows(CompareDialog(store, c, d))[0][4] == "yes"  # a point and a box on the same link
