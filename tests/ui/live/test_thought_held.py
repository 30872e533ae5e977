"""Walkthrough 9 (A6): while the model wrote on a page with a password field, the thought strip showed the
tokens counting and no thought at all, with no word why. It now says the thought shows once the reply is in."""
from cockpit.core.agent import events as ev
from cockpit.ui.live.thought_strip import ThoughtStrip


def test_a_held_back_thought_is_said_to_be_held_back(qtbot):
    strip = ThoughtStrip()
    qtbot.addWidget(strip)
    strip.on_event(ev.ModelStreaming("r", 1, "", "Type [3]", 8, 4.0, 2.0, 0.5, thought_held=True))
    assert "this page has a secret field" in strip.thought.text()
    assert strip.action.text() == "Action: Type [3]"
    strip.on_event(ev.ModelStreaming("r", 2, "", "", 0, 1.0, None, None, thought_held=True))  # nothing written yet
    assert strip.thought.text() == "" and "waiting for the model" in strip.head.text()
    strip.on_event(ev.ModelStreaming("r", 3, "I look for the price", "", 5, 1.0, 5.0, 0.2))  # no secret field
    assert strip.thought.text() == "Thought: I look for the price"


def test_one_token_is_one_token(qtbot):
    """Walkthrough 10: "1 tokens"."""
    strip = ThoughtStrip()
    qtbot.addWidget(strip)
    strip.on_event(ev.ModelStreaming("r", 4, "I", "", 1, 1.0, None, 0.3))
    assert "the model is writing — 1 token, 1 s" in strip.head.text()


def test_a_reply_cut_off_by_stop_shows_no_action_in_its_row(qtbot):
    """Walkthrough 10: Stop while the action was being written left "ANSWER; done:" in the row while the step's
    details (the record) said Action "(none)": the row says none too, what was written so far below it."""
    from cockpit.ui.live.step_log import StepLogPanel
    log = StepLogPanel()
    qtbot.addWidget(log)
    log.add_event(ev.StepStarted("r", 1))
    log.add_event(ev.ModelStreaming("r", 1, "I am done", "ANSWER; done:", 12, 3.0, 4.0, 0.5))
    assert log.items[1].text(1) == "ANSWER; done:"
    log.add_event(ev.RunFinished("r", "stopped"))
    row = log.items[1]
    assert row.text(1) == "(none: the reply was cut off)" and row.text(3) == "stopped"
    assert "written so far: ANSWER; done:" in [row.child(i).text(0) for i in range(row.childCount())]
