"""Review says why a run has no answer (#38): not "Final answer: none (stopped: )" or "(out of steps: )".
Real window (offscreen), real Chromium, the demo policy: the runs are real runs ended those ways."""
from tests.ui.windowtools import records, wait_idle, wait_paused_after


def test_a_run_without_an_answer_says_why_in_review(qtbot, demo_window):
    w = demo_window
    w.toolbar.max_steps.setValue(2)  # the demo's purchase needs more: out of steps
    w.toolbar.policy.setCurrentText("never")
    assert w.start_run()
    wait_idle(qtbot, w)
    out_of_steps = records(w)[0]
    assert out_of_steps["status"] == "max_steps"
    w.step_clicked()  # one step, then paused; then Stop
    wait_paused_after(qtbot, w, 1)
    w.bridge.stop()
    wait_idle(qtbot, w)
    stopped = records(w)[0]
    assert stopped["status"] == "stopped"
    for run, why in ((out_of_steps, "out of steps: the agent did not answer within its 2 steps"),
                     (stopped, "stopped: stopped by the user before the agent answered")):
        w.open_in_review(run["id"])
        viewer = w.review.viewer
        assert viewer.run is not None and viewer.run["id"] == run["id"]
        assert f"none ({why})" in viewer.answer.text(), viewer.answer.text()
        assert viewer.answer_line.text().startswith("Final answer: none (") and ": )" not in viewer.answer_line.text()
