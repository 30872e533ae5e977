"""Reports → Judge's result line tells the judge's verdicts from the rule's (walkthrough 9, A7): with a judge that
never answered SUCCESS / NOT SUCCESS, it said "success 0, not 12, undecided 11" when 11 of the "not" were runs
with no answer, scored not success by rule without asking the judge. A real store, the Reports panel offscreen,
a judge server on 127.0.0.1; what is read is the line under the Judge button, as a person reads it."""
from cockpit.core.llm.modelserver import ModelServer
from cockpit.ui.plaintext import shown_text
from cockpit.ui.reports.panel import ReportsPanel
from testkit.fakeruns import make_run


def judge_once(qtbot, panel, url: str) -> str:
    panel.j_url.setText(url)
    panel.j_model.setText("useless-judge")
    assert panel.start_judging() is not None
    qtbot.waitUntil(lambda: not panel.judging, timeout=60000)
    return shown_text(panel.j_status.text())


def test_the_result_line_says_which_verdicts_are_the_judges_and_which_the_rules(qtbot, store):
    make_run(store, steps=2, task="task judged wrong")
    for i in range(2):
        make_run(store, steps=2, task=f"task rambled {i}")
    for i in range(3):
        make_run(store, steps=2, task=f"task never answered {i}", answer=None, status="max_steps")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.j_canary.setChecked(False)  # (the canary runs: tests/ui/reports/test_reports_canaries.py)

    def respond(body):
        text = body["messages"][1]["content"][0]["text"]
        return "Wrong page.\nNOT SUCCESS" if "judged wrong" in text else "I think the agent tried its best."
    with ModelServer(respond) as srv:
        done = judge_once(qtbot, panel, srv.base_url)
        assert len(srv.requests) == 3  # the runs with no answer never went to the judge
        assert done.startswith("Done. judge: success 0, not success 1, undecided 2; "
                               "by rule (no answer): not success 3; errors 0"), done
        again = judge_once(qtbot, panel, srv.base_url)  # stored verdicts, not asked again: told apart the same
        assert len(srv.requests) == 3
    assert again.startswith("Done. judge: success 0, not success 1, undecided 2; "
                            "by rule (no answer): not success 3; errors 0"), again
