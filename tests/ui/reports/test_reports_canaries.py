"""Reports' Judge judges the canary runs first, as `cockpit judge` does (#42): a judge that says success to
everything is flagged under the bar, by name, with the canaries it missed; unticked, only the user's runs go."""
import re

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.review.canary_audit import KNOWN, canary_root
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.ui.reports.panel import ReportsPanel
from testkit.fakeruns import make_run

FAILS = "missed answer-without-doing, buy-refused, captcha-blocked, price-wrong"


def canary_task_of(body) -> str:
    content = body["messages"][-1]["content"]
    return re.search(r"Task: (.*)", content if isinstance(content, str) else content[0]["text"]).group(1)


def test_judge_runs_the_canaries_first_and_shows_a_flagged_judge(qtbot, store):
    ids = [make_run(store, steps=2, task=f"user task {i}") for i in range(2)]
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.j_canary.isChecked()
    with ModelServer(lambda body: "Looks done.\nSUCCESS") as srv:
        panel.j_url.setText(srv.base_url)
        panel.j_model.setText("yes-judge")
        panel.start_judging()
        assert "Judging the canary runs first, then 2 runs" in panel.j_status.text()
        qtbot.waitUntil(lambda: not panel.judging, timeout=240_000)  # the canaries made once, in Chromium
        tasks = [canary_task_of(b) for b in srv.requests]
    assert len(tasks) == 6 + 2 and all(t.startswith("user task") for t in tasks[6:])  # the canaries first
    line = panel.j_canary_result
    assert line.isVisible() and line.text() == (f"Canary runs: judge yes-judge is FLAGGED by the canaries: {FAILS}. "
                                                "Its verdicts are reported as flagged and left out of the "
                                                "success rates.")
    assert "b00020" in line.styleSheet()
    assert {v["run_id"] for v in L.verdicts(store, judge="yes-judge")} == set(ids)
    with Store(canary_root(store.root)) as canaries:  # the canaries' verdicts kept beside their known outcomes
        assert len(L.verdicts(canaries, judge="yes-judge")) == 6 and len(L.labels(canaries, annotator=KNOWN)) == 6
    canary_column = panel.judges.columnCount() - 1
    assert "FLAGGED" in panel.judges.item(0, canary_column).text()  # the table under it names it too
    judge = panel.judges.item(0, 0)  # and in its first column, seen without scrolling sideways (walkthrough B5)
    assert judge.text() == "⚠ yes-judge" and judge.foreground().color().name() == "#c0392b"


def test_unticked_only_the_users_runs_are_judged(qtbot, store):
    make_run(store, steps=2, task="user task 0")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    panel.j_canary.setChecked(False)
    with ModelServer(lambda body: "Looks done.\nSUCCESS") as srv:
        panel.j_url.setText(srv.base_url)
        panel.j_model.setText("yes-judge")
        panel.start_judging()
        qtbot.waitUntil(lambda: not panel.judging, timeout=60_000)
        assert [canary_task_of(b) for b in srv.requests] == ["user task 0"]
    assert not panel.j_canary_result.isVisible() and not canary_root(store.root).exists()
