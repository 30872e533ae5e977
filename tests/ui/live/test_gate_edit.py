"""An action edited at the approval gate (#38): a box number not on the screenshot is refused in the field, the
edit is rated again on its own element, and the window, the store and `cockpit runs` all say the same. (The demo's
run cannot be replayed up to its gate: it types a card number first; tests/core/agent/test_gate.py replays an edit.)

Real window (offscreen), real Chromium, the demo policy on the bundled Demo Shop; `cockpit runs` in a subprocess.
"""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.clitools import cockpit, ok
from tests.ui.windowtools import LONG, click_mark, records, wait_idle


def _gate(qtbot, w):
    """Start a run and wait for the gate's question (the demo asks before "Place order")."""
    assert w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    return w.live.approval, w.live.approval.request


def _text_field(w):
    """A text field's box on the screenshot (the order form's Name)."""
    return next(m for m in w.live.view.marks() if m.tag in ("input", "textarea"))


def _stored_edit(qtbot, w, step):
    """Stop the run once the edited step is stored; the run's (run, the step's row, its decision row)."""
    qtbot.waitUntil(lambda: any(s["step"] == step and s["status"] for s in records(w)[1]), timeout=LONG)
    w.bridge.stop()
    wait_idle(qtbot, w)
    run, steps, decisions = records(w)
    return run, next(s for s in steps if s["step"] == step), next(d for d in decisions if d["step"] == step)


def test_a_box_not_on_the_screenshot_is_refused_in_the_field_and_the_edit_is_recorded_as_one(qtbot, window_factory):
    w = window_factory(demo=True)
    w.resize(1024, 700)
    a, asked = _gate(qtbot, w)
    boxes = len(w.live.view.marks())
    assert boxes > 1
    a.edit_btn.click()
    a.edit.setText(f"Click [{boxes + 90}]")
    qtbot.keyClick(a.edit, Qt.Key_Return, Qt.ControlModifier)  # Ctrl+Enter: approve what is written
    QApplication.processEvents()
    # before the fix: no error; the click ran, failed ("there is no element") and spent a step
    assert a.isVisible() and a.request is asked and a.error.isVisible()
    assert a.error.text() == f"there is no box [{boxes + 90}] on this screenshot: the boxes are [1] to [{boxes}]"
    assert not any(s["step"] == asked.step for s in records(w)[1])  # nothing ran
    field = _text_field(w)
    a.edit.setText(f"Click [{field.id}]")
    qtbot.keyClick(a.edit, Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: not a.isVisible(), timeout=10_000)
    run, step, decision = _stored_edit(qtbot, w, asked.step)
    ran = f"Click [{field.id}]"
    assert step["status"] == "ok" and f"[{field.id}]" in step["outcome"]
    # one record: the step holds what ran, the decision says it was an edit, by whom, of what
    assert step["action"] == ran and step["decision"]["edited_action"] == ran
    assert step["decision"]["proposed_action"] == asked.display
    assert (decision["action"], decision["edited_action"], decision["by"]) == (asked.display, ran, "human:ada")
    row = w.live.log_panel.items[asked.step]  # before the fix: the agent's action, beside "edited by ada"
    assert (row.text(1), row.text(2)) == (ran, "edited by ada")
    assert any(row.child(i).text(0) == f"agent proposed: {asked.display}" for i in range(row.childCount()))
    said = ok(cockpit(w.store_root, "runs", run["id"]))  # before the fix: "approved by human:ada", no edit
    assert f"action:   {ran}" in said
    assert f"decision: edited by human:ada (the agent proposed {asked.display})" in said
    w.live.log_panel.select_step(asked.step)  # the step's details, as Review shows them too
    qtbot.waitUntil(lambda: f"edited by ada (the agent proposed {asked.display})"
                    in w.live.details.summary.toPlainText(), timeout=10_000)


def test_a_click_retargeted_from_place_order_to_a_field_is_rated_again_and_shown_as_edited(qtbot, window_factory):
    w = window_factory(demo=True)
    w.resize(1600, 1000)
    a, asked = _gate(qtbot, w)
    assert asked.risk.level == "irreversible" and "Place order" in asked.mark.label
    field = _text_field(w)
    a.edit_btn.click()
    click_mark(qtbot, w, field.id)  # aim the click at the Name field instead
    assert a.edit.text() == f"Click [{field.id}]"
    a.approve_btn.click()
    run, step, decision = _stored_edit(qtbot, w, asked.step)
    ran = f"Click [{field.id}]"
    # before the fix: "Click [n] [irreversible]", approved; the field's click kept the order button's risk
    assert step["action"] == ran and step["risk"] != "irreversible"
    assert not any("Place order" in e for e in step["evidence"])
    assert (decision["action"], decision["risk"], decision["edited_action"]) == (asked.display, "irreversible", ran)
    assert step["decision"]["proposed_risk"] == "irreversible"
    said = ok(cockpit(w.store_root, "runs", run["id"]))
    assert f"action:   {ran}   [{step['risk']}]" in said and "decision: edited by human:ada" in said
    assert w.live.log_panel.items[asked.step].text(1) == ran

