"""Imported runs are told apart from the runs they were exported from (walkthrough 9, A2): a run exported as
WebVoyager and imported again showed the original's start time, status and task, the same row twice; only an
Online-Mind2Web import without times said "imported". Every imported run (WebVoyager, Online-Mind2Web,
browser-use, a bundle) now has "[imported]" before its task in Review's list, where it came from in the tooltip of
its first started_and_task_cells, and in the open run's header.

A real store, runs exported and imported as `cockpit export` / `cockpit import` do, Review offscreen; what is read
is the list's started_and_task_cells and tooltips, and the header, as a person sees them.
"""
import json

from PySide6.QtCore import Qt

from cockpit.core.review.importing import ImportRequest, run_import
from cockpit.core.store import Store
from cockpit.core.store.bundle import write_bundle
from cockpit.core.store.exchange import export_run
from cockpit.core.store.mind2web import export_mind2web
from cockpit.ui.review.runs_model import column
from testkit.fakeruns import make_run

TASK = "Delete Eggs from the shopping list"


def started_and_task_cells(p, role=Qt.DisplayRole) -> dict[str, tuple[str, str]]:
    """run id -> its (Started, Task) started_and_task_cells as the list shows them in `role`."""
    m = p.browser.model
    return {m.rows[r]["id"]: (m.data(m.index(r, column("started")), role), m.data(m.index(r, column("task")), role))
            for r in range(m.rowCount())}


def browser_use_history(folder) -> None:
    folder.mkdir()
    (folder / "AgentHistory.json").write_text(json.dumps({"history": [
        {"model_output": {"current_state": {"next_goal": "done"}, "action": [{"done": {"text": "done", "success": True}}]},
         "result": [{"is_done": True, "success": True, "extracted_content": "done"}],
         "state": {"screenshot": None, "url": "https://example.com/", "title": "Shop"}, "metadata": {"step_number": 1}}]}))


def test_every_imported_run_is_marked_in_the_list_and_says_where_it_came_from(qtbot, panel, store, tmp_path):
    original = make_run(store, steps=3, task=TASK, task_id="eggs")
    wv, m2w, bu = tmp_path / "wv", tmp_path / "m2w", tmp_path / "bu"
    export_run(store, original, wv)
    export_mind2web(store, original, m2w, [])
    browser_use_history(bu)
    with Store(tmp_path / "alice") as other:  # a colleague's run of the task, in her bundle
        write_bundle(other, [make_run(other, steps=2, task=TASK, task_id="eggs")], tmp_path / "alice.zip")
    got = {}
    for kind, path in (("webvoyager", wv), ("mind2web", m2w), ("browser-use", bu), ("bundle", tmp_path / "alice.zip")):
        (got[kind],) = run_import(store, ImportRequest(kind, path, task=TASK)).imported or [None]
    p = panel()
    shown, tips = started_and_task_cells(p), started_and_task_cells(p, Qt.ToolTipRole)
    assert shown[original][1] == TASK  # the run recorded here: as it was
    assert "imported" not in tips[original][0] + tips[original][1]
    where = {"webvoyager": f"WebVoyager {wv}", "mind2web": "Online-Mind2Web " + str(m2w),
             "browser-use": f"browser-use {bu}", "bundle": f"the bundle {tmp_path / 'alice.zip'}"}
    for kind, rid in got.items():
        assert shown[rid][1] == f"[imported] {TASK}", kind  # Task is in view at 1024 pixels; no scrolling right
        assert f"imported from {where[kind]}" in tips[rid][0], (kind, tips[rid][0])
        assert f"imported from {where[kind]}" in tips[rid][1], (kind, tips[rid][1])
    p.show_run(got["webvoyager"])
    qtbot.waitUntil(lambda: p.viewer.run is not None and p.viewer.run["id"] == got["webvoyager"], timeout=5000)
    assert f"imported from WebVoyager {wv}" in p.viewer.header_line.fullText()
    assert "imported from WebVoyager" in p.viewer.header.text()
