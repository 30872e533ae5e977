"""Reports' success charts say whose verdicts they show: people's labels, which judge (model and protocol) where
no one labelled a run, and the runs scored 0 for giving no answer (issue #38: the charts named no judge, so a rate
could not be told from another judge's).

A real store with labelled, judged and unanswered runs; the Reports panel offscreen, refreshed; what is read is
the line above the charts, as a person reads it.
"""
from cockpit.core.store import labels as L
from cockpit.ui.reports.panel import ReportsPanel
from testkit.fakeruns import make_run


def test_the_charts_say_which_judge_and_protocol_their_verdicts_are_from(qtbot, store):
    ids = [make_run(store, steps=2, task=f"task {i}", site="shop") for i in range(4)]
    unanswered = make_run(store, steps=2, task="task 4", site="shop", answer=None, status="max_steps")
    L.set_label(store, ids[0], "ada", "success")
    L.set_verdict(store, ids[0], "judge-x", 3, "cockpit-judge-1", 0, reply="NOT SUCCESS")  # ada's label decides
    L.set_verdict(store, ids[1], "judge-x", 3, "cockpit-judge-1", 1, reply="SUCCESS")
    L.set_verdict(store, ids[2], "judge-x", 3, "cockpit-judge-1", 0, reply="NOT SUCCESS")
    L.set_verdict(store, ids[3], "judge-w", 0, "webjudge-cockpit-1", 1, reply='Status: "success"')
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    panel.show()
    qtbot.waitExposed(panel)
    said = panel.charts_source.text()
    assert said == ("Success rates show people's labels (1 run), where no one labelled a run, the judges "
                    "judge-x, WebVoyager's protocol, last 3 screenshots (2 runs); judge-w, WebJudge (1 run), "
                    "runs that gave no answer, scored 0 (1 run). Failure categories are people's labels."), said
    assert unanswered and panel.charts_source.isVisible()
    above = panel.charts_source.mapTo(panel, panel.charts_source.rect().bottomLeft()).y()
    assert above <= panel.by_site.mapTo(panel, panel.by_site.rect().topLeft()).y()  # above the charts it explains


def test_with_no_judge_counted_the_charts_say_so(qtbot, store):
    rid = make_run(store, steps=2, task="task 0")
    L.set_label(store, rid, "ada", "fail", category="Loop")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    assert panel.charts_source.text() == ("Success rates show people's labels (1 run). No judge's verdict is "
                                          "counted. Failure categories are people's labels.")
