"""Your own attempt at a task (#42, Online-Mind2Web's human evaluation), driven through the real window:
Run ▸ Attempt it yourself… on the demo shop, the take-over panel's controls as the only way to act, the answer
or giving up; the stored run is a human run that Review lists and filters.

Real window (offscreen), real headless Chromium, the bundled demo shop; no model is asked.
"""
from cockpit.core.agent.human_run import HumanRun
from cockpit.core.store import Store
from tests.ui.windowtools import LONG, click_mark, records, wait_idle


def _ready(qtbot, w):
    """The attempt's first page is on the screenshot, the take-over's controls and the answer bar shown."""
    qtbot.waitUntil(lambda: w.live.takeover.isVisible() and w.live.attempt_bar.isVisible()
                    and bool(w.live.view.marks()), timeout=LONG)


def test_an_attempt_from_the_run_menu_records_human_steps_and_the_answer(qtbot, small_window):
    w = small_window
    run_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Run")
    assert w.attempt.action in run_menu.actions() and w.attempt.action.shortcut().toString() == "Ctrl+Shift+H"
    w.attempt.action.trigger()
    qtbot.waitUntil(w.live.attempt_bar.isVisible, timeout=LONG)  # not while the browser starts: nothing to end yet
    assert isinstance(w.bridge.agent, HumanRun) and w.bridge.state == "taken over"
    _ready(qtbot, w)
    # nothing hands the browser to an agent: no Hand back, no Run / Step / Take over
    assert not w.live.takeover.hand_btn.isVisible()
    qtbot.waitUntil(lambda: not w.toolbar.act_hand.isEnabled(), timeout=5000)
    assert not (w.toolbar.act_run.isEnabled() or w.toolbar.act_step.isEnabled() or w.toolbar.act_take.isEnabled())
    assert w.bridge.state == "taken over"

    w.live.takeover.down_btn.click()  # step 1: scroll
    qtbot.waitUntil(lambda: len(records(w)[1]) == 1 and w.live.takeover.down_btn.isEnabled(), timeout=LONG)
    link = next(m for m in w.live.view.marks() if m.tag == "a" and m.label.strip())
    click_mark(qtbot, w, link.id)
    assert w.live.takeover.click_btn.text() == f"Click [{link.id}]"
    w.live.takeover.click_btn.click()  # step 2: a click on a link
    qtbot.waitUntil(lambda: len(records(w)[1]) == 2 and w.live.takeover.down_btn.isEnabled(), timeout=LONG)
    qtbot.waitUntil(lambda: w.status.steps.text() == "row 2 · your attempt, 2 steps", timeout=5000)  # no agent

    w.live.attempt_bar.text.setText("The cheapest mug costs $4.99")
    w.live.attempt_bar.answer_btn.click()
    wait_idle(qtbot, w)
    run, steps, _ = records(w)
    assert run["status"] == "answered" and run["answer"] == "The cheapest mug costs $4.99"
    assert run["model"] == "human" and run["config"]["human"]["by"] == "human:ada"
    assert run["prompt_tokens"] == 0 and not any(s.get("request") for s in steps)  # no model was asked
    assert [s["actor"] for s in steps] == ["human"] * 3
    assert steps[0]["action"] == "Scroll [WINDOW]; down"
    assert steps[1]["action"] == f"Click [{link.id}]" and steps[1]["status"] == "ok"
    assert steps[2]["action"] == "ANSWER; The cheapest mug costs $4.99" and steps[2]["status"] == "answered"
    for s in steps:  # each step kept what the person saw: screenshot and marks
        assert s["screenshot"] and s["n_marks"] > 0
    assert "Your attempt is run" in w.status.current() and "3 steps" in w.status.current()
    assert not w.live.attempt_bar.isVisible() and w.attempt.action.isEnabled() and w.toolbar.act_run.isEnabled()
    assert w.live.takeover.hand_btn.isVisibleTo(w.live.takeover)  # an agent's take-over has it again

    # Review lists it with "human" as its model, and the model filter picks it out
    w.modes.setCurrentWidget(w.review)
    b = w.review.browser
    b.fill_filters()
    i = b.f_model.findText("human")
    assert i >= 0
    b.f_model.setCurrentIndex(i)
    qtbot.waitUntil(lambda: [r["id"] for r in b.model.rows] == [run["id"]], timeout=5000)


def test_an_attempt_from_review_takes_the_runs_task_and_can_be_given_up(qtbot, small_window):
    w = small_window
    w.toolbar.max_steps.setValue(2)
    w.toolbar.policy.setCurrentText("never")
    assert w.start_run()
    wait_idle(qtbot, w)
    agent_run = records(w)[0]
    w.open_in_review(agent_run["id"])
    tools = w.review.viewer.tools
    assert tools.attempt_btn.isVisible()
    tools.attempt_btn.click()
    _ready(qtbot, w)
    assert w.modes.currentWidget() is w.live
    w.live.attempt_bar.answer_btn.click()  # no answer typed: not ended, the bar says so
    assert "Type your answer first" in w.live.attempt_bar.info.text() and w.bridge.busy
    w.live.attempt_bar.text.setText("the shop asks me to log in")
    w.live.attempt_bar.give_up_btn.click()
    wait_idle(qtbot, w)
    run, steps, _ = records(w)
    assert run["id"] != agent_run["id"]
    assert (run["task"], run["url"], run["model"]) == (agent_run["task"], agent_run["url"], "human")
    assert run["status"] == "gave_up" and run["error"] == "the shop asks me to log in" and not run["answer"]
    assert steps == []
    with Store(w.store_root) as s:
        assert s.run(agent_run["id"])["model"] != "human"


def test_stop_ends_an_attempt_as_stopped(qtbot, small_window):
    w = small_window
    w.attempt.action.trigger()
    _ready(qtbot, w)
    assert w.toolbar.act_stop.isEnabled() and not w.attempt.action.isEnabled()  # one run at a time
    w.toolbar.act_stop.trigger()
    wait_idle(qtbot, w)
    run, steps, _ = records(w)
    assert (run["model"], run["status"], run["answer"], steps) == ("human", "stopped", None, [])
    assert not w.live.attempt_bar.isVisible() and not w.live.takeover.isVisible()


def test_the_agents_commands_stay_off_whatever_updates_the_controls_during_an_attempt(qtbot, small_window):
    """The attempt switched Run, Take over and Hand back off after each state change, and any other update of the
    window's controls (a run starting, a take-over, a run ending) switched them on again: F5 then "resumed" the
    attempt, which hid the take-over's controls, the only way to act in it. The toolbar now decides it itself."""
    from PySide6.QtCore import Qt
    w = small_window
    w.attempt.action.trigger()
    _ready(qtbot, w)
    tb = w.toolbar
    agents = (tb.act_run, tb.act_step, tb.act_pause, tb.act_take, tb.act_hand)
    w._update_controls()  # as the run's start (RunStarted), a take-over or a run's end update them, no state change
    assert not any(a.isEnabled() for a in agents), [a.text() for a in agents if a.isEnabled()]
    assert tb.act_stop.isEnabled() and not w.live.takeover.hand_btn.isVisible()
    qtbot.keyClick(w, Qt.Key_F5)
    qtbot.keyClick(w, Qt.Key_F9)
    qtbot.wait(300)
    assert w.live.takeover.isVisible() and w.live.attempt_bar.isVisible()  # still hers to act in
    assert w.bridge.state == "taken over" and w.bridge.busy
    w.live.takeover.down_btn.click()  # and it still acts
    qtbot.waitUntil(lambda: len(records(w)[1]) == 1 and w.live.takeover.down_btn.isEnabled(), timeout=LONG)
    w.live.attempt_bar.text.setText("done")
    w.live.attempt_bar.answer_btn.click()
    wait_idle(qtbot, w)
    assert "Your attempt is run" in w.status.current()
    w.modes.setCurrentWidget(w.review)  # the attempt's news is the Live tab's: not shown as Review's
    assert "Your attempt is run" not in w.status.current()
    assert tb.act_run.isEnabled() and tb.act_run.text() == "Run" and w.live.takeover.hand_btn.isVisibleTo(
        w.live.takeover)
