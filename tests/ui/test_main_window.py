"""The cockpit window driving real runs (offscreen Qt, real Chromium, real store)."""
import time

import pytest
from PySide6.QtCore import Qt

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.store import Store, corrections
from tests.ui.windowtools import LONG, click_mark, records, wait_idle, wait_paused_after


@pytest.mark.parametrize("key, modifiers", [(Qt.Key_Return, Qt.ControlModifier),  # the keypad's Enter too
                                            (Qt.Key_Enter, Qt.ControlModifier | Qt.KeypadModifier)])
def test_demo_runs_to_the_approval_and_approve_places_the_order(qtbot, demo_window, key, modifiers):
    w = demo_window
    assert w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    assert "Place order" in w.live.approval.title.text() and "irreversible" in w.live.approval.title.text()
    assert 'matches &quot;place order&quot;' in w.live.approval.evidence.text()  # escaped: page text is inert
    assert w.live.view.highlighted() == w.live.approval.request.mark.id  # the target box is highlighted
    assert w.status.state.text() == "waiting for you"
    assert w.live.log_panel.topLevelItemCount() == 10
    qtbot.keyClick(w, key, modifiers)  # approve from the keyboard
    wait_idle(qtbot, w)
    run, steps, decisions = records(w)
    assert run["status"] == "answered" and "Kids Headphones" in run["answer"]
    assert steps[9]["url_after"].endswith("order-placed.html")
    assert (decisions[0]["approved"], decisions[0]["by"]) == (1, "human:ada")
    assert "finished: answered" in w.live.banner.fullText()


def test_reject_with_a_message_is_told_to_the_agent(qtbot, demo_window):
    w = demo_window
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.approval.message.setText("not with my card")
    w.live.approval.reject_btn.click()
    wait_idle(qtbot, w)
    run, steps, decisions = records(w)
    assert (decisions[0]["approved"], decisions[0]["message"]) == (0, "not with my card")
    assert "placing it was refused" in run["answer"] and "not with my card" in run["answer"]
    assert not steps[9]["url_after"]


def test_retarget_by_clicking_a_box_records_the_correction(qtbot, demo_window):
    w = demo_window
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    cart = next(m for m in w.live.view.marks() if m.text.startswith("Cart"))
    click_mark(qtbot, w, cart.id)
    assert w.live.approval.edit.isVisible() and w.live.approval.edit.text() == f"Click [{cart.id}]"
    w.live.approval.approve_btn.click()
    qtbot.waitUntil(lambda: any(s["step"] == 10 for s in records(w)[1]), timeout=LONG)
    w.bridge.stop()
    wait_idle(qtbot, w)
    run, steps, decisions = records(w)
    d = decisions[0]
    assert d["action"].startswith("Click [") and d["edited_action"] == f"Click [{cart.id}]"
    assert steps[9]["action"] == f"Click [{cart.id}]" and steps[9]["url_after"].endswith("cart.html")


def test_step_mode_pause_and_stop(qtbot, demo_window):
    w = demo_window
    w.step_clicked()  # start paused and run exactly one step
    wait_paused_after(qtbot, w, 1)
    time.sleep(0.5)
    qtbot.wait(300)
    assert w.live.log_panel.topLevelItemCount() == 1
    assert w.toolbar.act_run.text() == "Resume" and w.toolbar.act_step.isEnabled()
    w.step_clicked()
    wait_paused_after(qtbot, w, 2)
    w.toolbar.act_stop.trigger()
    wait_idle(qtbot, w)
    run, steps, _ = records(w)
    assert run["status"] == "stopped" and len(steps) == 2
    assert w.toolbar.act_run.text() == "Run" and w.toolbar.act_run.isEnabled()


def test_stop_during_a_slow_model_reply(qtbot, demo_window, site):
    w = demo_window
    with ModelServer(lambda b: Reply(text="Thought: x\nAction: Wait", delay=30)) as srv:
        w.toolbar.demo_box.setChecked(False)
        w.settings.model = ModelConfig(base_url=srv.base_url, model="slow", max_retries=0, timeout=60)
        w.live.task_bar.set_task("Wait forever", site.url("agent_start.html"))
        w.start_run()
        qtbot.waitUntil(lambda: w.bridge.state == "waiting for the model", timeout=LONG)
        qtbot.wait(500)
        t0 = time.monotonic()
        w.toolbar.act_stop.trigger()
        wait_idle(qtbot, w, timeout=10_000)
        took = time.monotonic() - t0
    assert took < 5
    run, steps, _ = records(w)
    assert run["status"] == "stopped" and steps[0]["status"] == "stopped"


def test_model_errors_show_in_the_window_and_a_new_run_starts(qtbot, demo_window, site):
    w = demo_window
    w.toolbar.demo_box.setChecked(False)
    w.settings.model = ModelConfig(base_url="http://127.0.0.1:9/v1", model="nobody", max_retries=0, timeout=5)
    w.live.task_bar.set_task("Anything", site.url("agent_start.html"))
    w.start_run()
    wait_idle(qtbot, w)
    assert w.live.error_banner.isVisible() and "failed" in w.live.error_banner.text()
    assert "127.0.0.1:9" in w.live.error_banner.text()
    w.toolbar.demo_box.setChecked(True)
    w.live.task_bar.set_task("What is the price of the Glass French Press in the Demo Shop?", "demo:index.html")
    assert w.start_run()
    wait_idle(qtbot, w)
    assert not w.live.error_banner.isVisible()
    assert "$22.50" in records(w)[0]["answer"]


def test_take_over_and_hand_back(qtbot, demo_window):
    w = demo_window
    w.step_clicked()
    wait_paused_after(qtbot, w, 1)
    w.toolbar.act_take.trigger()
    qtbot.waitUntil(lambda: w.live.takeover.isVisible() and "during take-over" in w.live.banner.fullText(), timeout=LONG)
    w.live.takeover.down_btn.click()
    qtbot.waitUntil(lambda: any(s["actor"] == "human" for s in records(w)[1]), timeout=LONG)
    qtbot.waitUntil(lambda: w.live.takeover.down_btn.isEnabled(), timeout=LONG)
    first = next(m for m in w.live.view.marks() if m.tag == "a" and not m.text.startswith(("Demo", "Cart")))
    click_mark(qtbot, w, first.id)
    assert w.live.takeover.target == first.id
    w.live.takeover.click_btn.click()
    qtbot.waitUntil(lambda: len([s for s in records(w)[1] if s["actor"] == "human"]) == 2, timeout=LONG)
    w.live.takeover.note.setText("I opened a product for you")
    w.toolbar.act_hand.trigger()
    qtbot.waitUntil(lambda: w.live.approval.isVisible() or not w.bridge.busy, timeout=LONG)
    w.bridge.stop()
    wait_idle(qtbot, w)
    run, steps, _ = records(w)
    human = [s for s in steps if s["actor"] == "human"]
    assert [s["action"].split()[0] for s in human] == ["Scroll", "Click"]
    assert human[1]["url_after"].endswith(f"id={first.href.split('id=')[-1]}") or "product" in human[1]["url_after"]
    agent_after = [s for s in steps if s["actor"] == "agent" and s["step"] > human[1]["step"]]
    assert agent_after and "I opened a product for you" in str(agent_after[0]["request"])


def test_add_a_missing_mark_and_reject_a_spurious_one(qtbot, demo_window, monkeypatch):
    w = demo_window
    w.step_clicked()
    wait_paused_after(qtbot, w, 1)
    # paused: the pane shows the page as step 1's action left it, which step 2 will see
    qtbot.waitUntil(lambda: w.live.banner.fullText().startswith("live page now (paused)"), timeout=LONG)
    monkeypatch.setattr("cockpit.ui.screenshot.corrector.QInputDialog.getText", lambda *a, **k: ("shop logo", True))
    w.toolbar.act_add.setChecked(True)
    w.live.view.rectDrawn.emit((30, 60, 120, 40))  # what a drag on the screenshot emits
    qtbot.waitUntil(lambda: w.live.view.extra_box_count() == 1, timeout=10_000)
    mark = w.live.view.marks()[0]
    w.live.corrector.toggle_spurious(w.runs.run_id, 2, mark, True)
    assert mark.id in w.live.view.flagged()
    with Store(w.store_root) as s:
        cs = corrections.of(s, w.runs.run_id, 2)
    kinds = {c["kind"]: c for c in cs}
    assert kinds["missing"]["label"] == "shop logo" and kinds["missing"]["bbox"] == [30, 60, 120, 40]
    assert kinds["missing"]["element"]["tag"]  # looked up in the live page
    assert kinds["spurious"]["mark_id"] == mark.id and kinds["spurious"]["by"] == "human:ada"
    w.live.corrector.toggle_spurious(w.runs.run_id, 2, mark, False)
    assert mark.id not in w.live.view.flagged()
    w.bridge.stop()
    wait_idle(qtbot, w)


def test_selecting_a_step_shows_what_the_model_saw(qtbot, demo_window):
    w = demo_window
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.log_panel.select_step(2)
    assert w.live.shown_step == 2
    assert "step 2" in w.live.banner.fullText()
    assert "Messages sent" in [w.live.details.tabText(i) for i in range(w.live.details.count())]
    w.live.details.setCurrentWidget(w.live.details.messages)  # rendered when opened
    assert "Now given a task:" in w.live.details.messages.toPlainText()
    assert "screenshot of step 2" in w.live.details.messages.toPlainText()
    assert "Thought:" in w.live.details.raw.toPlainText()
    assert w.live.approval.isVisible()  # looking back does not drop the pending question
    w.live.approval.reject_btn.click()
    wait_idle(qtbot, w)


def test_a_breakpoint_set_in_the_window_pauses_the_demo(qtbot, demo_window):
    w = demo_window
    w.live.log_tabs.setCurrentWidget(w.live.bp_panel)
    w.live.bp_panel.kind.setCurrentText("text")
    w.live.bp_panel.value.setText("add to cart")
    w.live.bp_panel.add_btn.click()
    w.live.bp_panel.kind.setCurrentText("step")
    w.live.bp_panel.value.setText("not a number")
    w.live.bp_panel.add_btn.click()
    assert "Not added" in w.live.bp_panel.error.text() and len(w.live.breakpoints) == 1
    w.start_run()
    qtbot.waitUntil(lambda: w.bridge.state == "paused" and "breakpoint" in w.status.current(),
                    timeout=LONG)
    assert "Add to cart" in w.status.current() or "add to cart" in w.status.current()
    step = max(w.live.log_panel.items)
    texts = [w.live.log_panel.items[step].child(i).text(0) for i in range(w.live.log_panel.items[step].childCount())]
    assert any(t.startswith("⏸ breakpoint") for t in texts)
    assert "hit 1×" in w.live.bp_panel.list.item(0).text()
    w.live.bp_panel.list.item(0).setCheckState(Qt.Unchecked)  # clear it and go on
    w.run_clicked()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.approval.reject_btn.click()
    wait_idle(qtbot, w)
    flags = [s["flags"] for s in records(w)[1] if s["flags"]]
    assert any(any(f.startswith("breakpoint: text") for f in fl) for fl in flags)


def test_branch_and_replay_a_demo_run_from_the_review_tab(qtbot, demo_window):
    w = demo_window
    w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.live.approval.reject_btn.click()
    wait_idle(qtbot, w)
    parent = w.runs.run_id
    w.modes.setCurrentWidget(w.review)
    w.review.show_run(parent)
    w.review.go(4)  # step 5: the agent opens the checkout
    w.review.viewer.tools.branch_btn.click()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)  # replayed 1-4, the agent went on to the gate
    assert w.modes.currentWidget() is w.live and w.runs.run_id != parent
    w.live.approval.reject_btn.click()
    wait_idle(qtbot, w)
    with Store(w.store_root) as s:
        child = s.run(w.runs.run_id)
        assert (child["parent_run"], child["parent_step"]) == (parent, 5)
        assert s.steps(w.runs.run_id)[0]["url"].endswith("cart.html")
    assert w.start_replay(parent, speed=None)
    wait_idle(qtbot, w)
    # the demo types a card number at step 9: its text is never stored, so the replay stops there, saying so
    assert w.live.banner.fullText().startswith("replayed step 8:")
    assert w.live.error_banner.isVisible() and "step 9 typed into a secret field" in w.live.error_banner.text()
    with Store(w.store_root) as s:  # the shop never got the placeholder: the replay typed nothing at step 9
        assert s.steps(parent)[8]["action"] == "Type [8]; (secret)"


def test_stop_at_the_gate_is_said_as_a_stop_not_a_refusal(qtbot, demo_window):
    """Walkthrough 5: Stop while the gate asked recorded and showed the step as "refused by policy"; it was the person
    stopping the run."""
    w = demo_window
    assert w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
    w.toolbar.act_stop.trigger()
    wait_idle(qtbot, w)
    run, steps, decisions = records(w)
    assert run["status"] == "stopped" and decisions[-1]["by"] == "policy:stopped"
    row = w.live.log_panel.items[steps[-1]["step"]]
    assert row.text(2) == "stopped before anyone decided"
    w.live.log_panel.setCurrentItem(row)
    assert "stopped before anyone decided" in w.live.details.summary.toPlainText()
    assert "refused by policy" not in w.live.details.summary.toPlainText()
