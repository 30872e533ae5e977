"""Reports' success charts say whose verdicts they show: people's labels, which judge (model and protocol) where
no one labelled a run, and the runs scored 0 for giving no answer (issue #38: the charts named no judge, so a rate
could not be told from another judge's).

A real store with labelled, judged and unanswered runs; the Reports panel offscreen, refreshed; what is read is
the line above the charts, as a person reads it.
"""
from cockpit.core.review.canary_audit import FOLDER, KNOWN
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.newrun import NewRun
from cockpit.ui.reports.panel import ReportsPanel
from testkit.fakeruns import make_run
from tests.clitools import cockpit, ok


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


def flag_judge(store, judge: str) -> None:
    """The canary store beside `store`, where `judge` said success on a canary that failed."""
    with Store(store.root / FOLDER) as canaries:
        rid = canaries.new_run(NewRun("What is the price?", "http://demo/", task_id="price-wrong"))
        canaries.finish_run(rid, "answered", answer="$14.99")
        L.set_label(canaries, rid, KNOWN, "fail")
        L.set_verdict(canaries, rid, judge, 3, "cockpit-judge-1", 1)


def test_a_flagged_judges_verdicts_are_left_out_of_the_charts_and_the_line_says_so(qtbot, store):
    """Walkthrough 8: a judge the canaries flagged still fed the success charts ("127.0.0.1 1/7" became "1/9")."""
    people = [make_run(store, steps=2, task=f"task {i}", site="shop") for i in range(2)]
    judged = [make_run(store, steps=2, task=f"task {i}", site="shop") for i in range(2, 4)]
    L.set_label(store, people[0], "ada", "success")
    L.set_label(store, people[1], "ada", "fail")
    for rid in judged:
        L.set_verdict(store, rid, "yes-judge", 3, "cockpit-judge-1", 1, reply="SUCCESS")
    flag_judge(store, "yes-judge")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    panel.show()
    qtbot.waitExposed(panel)
    assert [(label, value) for label, _rate, value in panel.by_site.bars] == [("shop", "1/2")]  # not 3/4
    assert panel.assisted.text().startswith("2 runs with a known outcome: 50.0% succeeded")
    assert panel.charts_source.text() == (
        "Success rates show people's labels (2 runs). No judge's verdict is counted. Left out: the verdicts of "
        "the judge yes-judge, WebVoyager's protocol, last 3 screenshots (2 runs), which the canary runs flagged; "
        "those runs count as if no judge had seen them. Failure categories are people's labels.")


def test_cockpit_agreement_leaves_the_flagged_judge_out_of_its_rates_and_says_so(store):
    people = make_run(store, steps=2, task="task 0", site="shop")
    judged = make_run(store, steps=2, task="task 1", site="shop")
    L.set_label(store, people, "ada", "fail")
    L.set_verdict(store, judged, "yes-judge", 3, "cockpit-judge-1", 1, reply="SUCCESS")
    flag_judge(store, "yes-judge")
    out = ok(cockpit(store.root, "agreement"))
    assert ("Left out of the success rates: the verdicts of judge yes-judge (k=3, cockpit-judge-1), which the "
            "canary runs flagged (1 run it would decide)") in out, out
    site_row = next(ln for ln in out.splitlines() if ln.strip().startswith("shop "))
    assert site_row.split()[1:4] == ["1", "0", "0.0%"], site_row  # people's fail alone: not 1 of 2
