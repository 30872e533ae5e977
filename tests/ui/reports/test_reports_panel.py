"""Reports mode: the judge in the background, agreement tables, charts, disagreements."""
import time

from PySide6.QtWidgets import QApplication

from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.store import labels as L
from cockpit.ui.plaintext import shown_text
from cockpit.ui.reports.panel import ReportsPanel
from testkit.fakeruns import make_run


def judged(qtbot, panel, seconds: float = 30) -> None:
    """Wait (the Qt event loop turning) until the judge's outcome is shown."""
    qtbot.waitUntil(lambda: not panel.judging, timeout=int(seconds * 1000))


def test_judge_runs_in_the_background_without_blocking_the_gui_thread(qtbot, store):
    ids = [make_run(store, steps=3, task=f"task {i}") for i in range(4)]
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    ticks, arrived = [], []

    def respond(body):
        arrived.append(time.monotonic())
        text = body["messages"][1]["content"][0]["text"]
        return Reply(text="Looks done.\nNOT SUCCESS" if "task 1" in text else "All good.\nSUCCESS", delay=0.4)
    with ModelServer(respond) as srv:
        panel.j_url.setText(srv.base_url)
        panel.j_model.setText("judge-model")
        panel.j_k.setCurrentText("2")
        panel.j_conc.setValue(4)
        from PySide6.QtCore import QTimer
        timer = QTimer(interval=20)
        timer.timeout.connect(lambda: ticks.append(time.monotonic()))
        timer.start()
        panel.j_canary.setChecked(False)  # (the canary runs first: tests/ui/reports/test_reports_canaries.py)
        assert panel.start_judging() is not None
        judged(qtbot, panel)
        timer.stop()
    # 4 runs at once: each was asked before any answer (0.4 s each) could have come back
    assert len(arrived) == 4 and max(arrived) - min(arrived) < 0.4, arrived
    # the GUI thread's event loop kept turning while the model calls were out (a blocking call would hold it for the whole
    # 0.4 s: no tick at all in that window); ticks counted, not timed, so a busy machine still passes
    start, end = min(arrived), max(arrived) + 0.4
    assert sum(start < t < end for t in ticks) >= 3, (arrived, ticks)
    assert panel.j_progress.value() == 4 and "Done." in panel.j_status.text()
    got = {v["run_id"]: v["verdict"] for v in L.verdicts(store, judge="judge-model")}
    assert got == {ids[0]: 1, ids[1]: 0, ids[2]: 1, ids[3]: 1}
    assert all(v["k"] == 2 for v in L.verdicts(store))


def webjudge_says_success(body) -> str:
    """A WebJudge judge: one key point, every screenshot scored 4, the outcome a success."""
    system = body["messages"][0]["content"]
    if "list the key points" in system:
        return "**Key Points**:\n1. Do the task"
    if "one screenshot" in system:
        return "**Reasoning**: the result.\n\n**Score**: 4"
    return 'Thoughts: done.\nStatus: "success"'


def test_webjudge_is_picked_in_the_panel_and_k_does_not_apply(qtbot, store):
    from cockpit.core.review import webjudge_prompt as W
    from cockpit.core.store import judge_stages
    ids = [make_run(store, steps=2, task=f"task {i}") for i in range(2)]
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    assert panel.j_k.isEnabled()
    panel.j_protocol.setCurrentIndex(panel.j_protocol.findData("webjudge"))
    assert not panel.j_k.isEnabled()  # WebJudge looks at every screenshot

    with ModelServer(webjudge_says_success) as srv:
        panel.j_url.setText(srv.base_url)
        panel.j_model.setText("judge-model")
        panel.j_canary.setChecked(False)  # (the canary runs first: tests/ui/reports/test_reports_canaries.py)
        assert panel.start_judging() is not None
        judged(qtbot, panel)
    assert "Done." in panel.j_status.text()
    got = {(v["run_id"], v["k"], v["prompt_version"]): v["verdict"] for v in L.verdicts(store)}
    assert got == {(i, 0, W.PROMPT_VERSION): 1 for i in ids}
    assert [s["stage"] for s in judge_stages.of(store, ids[0])] == ["key_points", "image", "image", "outcome"]
    panel.refresh()
    cells = [[panel.judges.item(r, c).text() for c in range(3)] for r in range(panel.judges.rowCount())]
    assert cells == [["judge-model", "all", W.PROMPT_VERSION]]


def test_success_is_split_into_autonomous_and_assisted(qtbot, store):
    ids = [make_run(store, steps=2, task=f"task {i}") for i in range(4)]
    store.db["decisions"].insert({"run_id": ids[0], "step": 1, "approved": 0, "by": "human:ada", "message": "no"})
    for rid, verdict in zip(ids, ["success", "success", "success", "fail"]):
        L.set_label(store, rid, "ada", verdict)
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    assert panel.assisted.text() == ("4 runs with a known outcome: 75.0% succeeded counting people's help, "
                                     "50.0% without it. 1 had interventions, 1 of them succeeded.")
    assert panel.assisted_runs.count() == 1
    item = panel.assisted_runs.item(0)
    assert item.text().startswith(f"{ids[0]} (success): 1 rejection — task 0")
    opened = []
    panel.openRun.connect(opened.append)
    panel.assisted_runs.itemDoubleClicked.emit(item)
    assert opened == [ids[0]]


def test_cancel_stops_the_judge(qtbot, store):
    for i in range(6):
        make_run(store, steps=1, task=f"task {i}")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    with ModelServer(lambda b: Reply(text="SUCCESS", delay=5)) as srv:
        panel.j_url.setText(srv.base_url)
        panel.j_conc.setValue(2)
        panel.j_canary.setChecked(False)  # (the canary runs first: tests/ui/reports/test_reports_canaries.py)
        assert panel.start_judging() is not None
        from PySide6.QtCore import QTimer
        QTimer.singleShot(500, panel.cancel_judging)
        t0 = time.monotonic()
        judged(qtbot, panel)
        assert time.monotonic() - t0 < 3
    assert "Cancelled" in panel.j_status.text()
    assert L.verdicts(store) == []


def test_tables_charts_and_disagreements(qtbot, store):
    ids = [make_run(store, steps=2 + i, task=f"task {i}", site="A" if i < 2 else "B") for i in range(4)]
    for rid, a, b in zip(ids, ["success", "fail", "success", "fail"], ["success", "fail", "fail", "fail"]):
        L.set_label(store, rid, "ada", a, category="Loop" if a == "fail" else "")
        L.set_label(store, rid, "bob", b, category="Hallucination" if b == "fail" else "")
    L.set_label(store, ids[0], "cy", "success")
    L.set_label(store, ids[1], "cy", "fail", category="Loop")
    L.set_label(store, ids[2], "cy", "success")
    L.set_label(store, ids[3], "cy", "fail", category="Loop")
    L.set_verdict(store, ids[0], "judge-x", 3, "cockpit-judge-1", 0, reply="NOT SUCCESS")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    opened = []
    panel.openRun.connect(opened.append)
    panel.refresh()
    assert panel.pairs.rowCount() == 3  # ada-bob, ada-cy, bob-cy
    assert "Fleiss' κ" in panel.fleiss.text()
    assert panel.judges.rowCount() == 1 and panel.judges.item(0, 0).text() == "judge-x"
    assert panel.by_site.bars and {b[0] for b in panel.by_site.bars} == {"A", "B"}
    assert panel.categories.bars[0][0] == "Loop"
    assert panel.disagree.count() >= 1
    item = panel.disagree.item(0)
    panel.disagree.itemDoubleClicked.emit(item)
    assert opened == [item.data(0x0100)]
    panel.show()
    qtbot.waitExposed(panel)
    panel.grab()  # the charts paint without errors


def test_a_blind_batch_s_unlabelled_runs_are_left_out_of_the_disagreements_for_their_annotator(qtbot, store):
    """The disagreement lines name the judge's verdict and the other annotators' ("judge-x (k=3) says fail,
    humans say success"): for Dee, who has not labelled her blind batch's run yet, it is left out and counted."""
    from cockpit.core.store import assignments as A
    ids = [make_run(store, steps=2, task=f"task {i}") for i in range(2)]
    for rid in ids:
        L.set_label(store, rid, "ada", "success")
        L.set_label(store, rid, "bob", "success")
        L.set_verdict(store, rid, "judge-x", 3, "cockpit-judge-1", 0, reply="NOT SUCCESS")
    A.assign(store, "round-1", [ids[0]], ["dee"], 1, blind=True)
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    opened = []
    panel.openRun.connect(opened.append)
    shown = lambda: [panel.disagree.item(i).text() for i in range(panel.disagree.count())]  # noqa: E731
    panel.refresh()  # nobody named: everything
    assert sum(ids[0] in t for t in shown()) == 1 and sum(ids[1] in t for t in shown()) == 1
    panel.annotator = lambda: "dee"
    panel.refresh()
    assert not any(ids[0] in t for t in shown()) and any(ids[1] in t for t in shown()), shown()
    assert shown()[-1] == "1 run of your blind batch left out until you label them"
    panel.disagree.itemDoubleClicked.emit(panel.disagree.item(panel.disagree.count() - 1))
    assert opened == []  # the note opens nothing
    L.set_label(store, ids[0], "dee", "fail")
    panel.refresh()  # labelled: now she may see what the others said
    assert any(ids[0] in t for t in shown()) and "left out" not in " ".join(shown())


def test_judge_needs_a_model_name(qtbot, store):
    make_run(store, steps=1)
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.j_model.setText("  ")
    assert panel.start_judging() is None  # verdicts would be stored under a nameless judge
    assert "judge model" in panel.j_status.text() and panel.j_start.isEnabled()
    assert L.verdicts(store) == []


def bar_lengths(chart) -> list[int]:
    """The bars' drawn lengths in pixels, measured on the rendered chart (the bar colour along each bar's row)."""
    BAR, ROW, TOP = "#4a79c4", 22, 26  # the bar colour; rows of 22 px under a 26 px title
    img = chart.grab().toImage()
    lengths = []
    for i in range(len(chart.bars)):
        y = TOP + i * ROW + ROW // 2 - 1
        lengths.append(sum(img.pixelColor(x, y).name() == BAR for x in range(img.width())))
    return lengths


def test_rate_charts_share_one_0_to_100_percent_axis(qtbot, store):
    ids = [make_run(store, steps=2, site="A", model="a-rather-long-model-name-v2") for _ in range(2)]
    ids += [make_run(store, steps=2, site="A much longer site name", model="m") for _ in range(4)]
    for rid, verdict in zip(ids, ["success", "fail", "success", "fail", "success", "success"]):
        L.set_label(store, rid, "ada", verdict, category="Loop" if verdict == "fail" else "")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.resize(1280, 900)
    panel.show()
    qtbot.waitExposed(panel)
    panel.refresh()
    QApplication.processEvents()
    site, model = panel.by_site, panel.by_model
    assert site.width() == model.width()
    rates = {label: text for label, _, text in site.bars + model.bars}
    assert rates["A"] == "1/2" and rates["a-rather-long-model-name-v2"] == "1/2" and rates["m"] == "3/4"
    half = {label: n for chart in (site, model) for (label, _, _), n in zip(chart.bars, bar_lengths(chart))}
    assert abs(half["A"] - half["a-rather-long-model-name-v2"]) <= 1  # one 1/2, one length: was 200 and 163 px
    full = model.x_of(1.0) - model.x_of(0.0)
    assert abs(half["A"] - full / 2) <= 2 and abs(half["m"] - full * 3 / 4) <= 2  # on the chart's own axis
    for chart in (site, model):  # the axis the bars are read against, labelled
        assert [chart.tick_label(t) for t in chart.ticks] == ["0%", "25%", "50%", "75%", "100%"]
        assert chart.x_of(1.0) == model.x_of(1.0)  # 100% at the same place in both charts
    ticks = panel.histogram.ticks  # counts of runs (6 in one bin): whole-number ticks from 0, not 0, 0.5, 1
    assert ticks[0] == 0 and ticks[-1] >= 6 and all(float(t).is_integer() for t in ticks)


def test_steps_per_run_bins_do_not_share_a_number(qtbot, store):
    """Issue #30: bins of two steps were labelled "11–12", "12–13"; each number is now in one bin's label."""
    for steps in (1, 12, 20):
        make_run(store, steps=steps)
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    labels = [label for label, _, _ in panel.histogram.bars]
    assert labels == ["1–2", "3–4", "5–6", "7–8", "9–10", "11–12", "13–14", "15–16", "17–18", "19–20"]
    counts = {label: text for label, _, text in panel.histogram.bars}
    assert (counts["1–2"], counts["11–12"], counts["19–20"], counts["13–14"]) == ("1", "1", "1", "0")


def test_bins_of_one_step_are_labelled_with_that_number(qtbot, store):
    for steps in (2, 3, 3, 4):
        make_run(store, steps=steps)
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    assert [(label, text) for label, _, text in panel.histogram.bars] == [("2", "1"), ("3", "2"), ("4", "1")]


def test_runs_that_hit_the_step_limit_unlabelled_are_said_to_count_as_failures(qtbot, store):
    """Issue #30: an unlabelled run that hit the step limit was counted as a failure without a word. It still
    counts (a run with no answer scores 0, as WebVoyager scores it; leaving it out would raise the rate by every
    run the agent could not finish), and Reports now says so, how many and why."""
    ids = [make_run(store, steps=3, answer=None, status="max_steps") for _ in range(2)]
    ids.append(make_run(store, steps=2, answer=None, status="stopped"))
    ids.append(make_run(store, steps=2))
    L.set_label(store, ids[3], "ada", "success")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.resize(1024, 700)
    panel.show()
    qtbot.waitExposed(panel)
    panel.refresh()
    QApplication.processEvents()
    assert panel.assisted.text().startswith("4 runs with a known outcome: 25.0% succeeded")
    note = panel.no_answer_note
    assert note.isVisible() and note.text() == (
        "2 runs that hit the step limit and 1 run that was stopped ended without an answer and have no label or "
        "judge's verdict: they are counted as failures (a run with no answer scores 0, as in WebVoyager). "
        "Label them in Review to decide otherwise.")
    assert note.height() >= note.heightForWidth(note.width())  # wrapped, whole
    assert {b[0]: b[2] for b in panel.by_site.bars} == {"Example": "1/4"}
    for rid in ids[:2]:  # labelled: a person decided, nothing left to say about those
        L.set_label(store, rid, "ada", "fail")
    panel.refresh()
    assert note.text().startswith("1 run that was stopped ended without an answer and has no label")
    L.set_label(store, ids[2], "ada", "fail")
    panel.refresh()
    assert not note.isVisible()


def test_long_names_are_whole_in_tooltips_of_tables_and_charts(qtbot, store):
    long_name = "Bartholomew Octavian Montgomery-Smythe-Vanderbilt (second annotator)"
    category = "Misread a confirmation dialog as a success page after an irreversible action"
    ids = [make_run(store, steps=2, task=f"task {i}") for i in range(2)]
    for rid in ids:
        L.set_label(store, rid, "ada", "fail", category=category)
        L.set_label(store, rid, long_name, "fail", category=category)
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    cells = {panel.pairs.item(0, c).text(): panel.pairs.item(0, c).toolTip() for c in range(2)}
    assert cells[long_name] == long_name
    row = next(i for i, b in enumerate(panel.categories.bars) if b[0] == category)
    assert panel.categories.bar_tip(row) == f"{category}: 2 (100%)"
    assert panel.categories.row_at(26 + 22 * row + 5) == row and panel.categories.row_at(3) is None


def test_reports_with_long_names_fit_1024x700(qtbot, store):
    """Long tasks, sites, models, annotators and categories: nothing cut without "…" and a tooltip, nothing
    outside the tab, no sideways scrolling for the lists, and the tab asks for no more than a small screen."""
    from PySide6.QtCore import QSize

    from tests.ui.fit_driving import ANNOTATOR, CATEGORY, MODEL, OTHER, TASK
    from tests.ui.fits import fit_violations
    site = "A very long site name for a shop that sells everything under the sun " * 2
    ids = [make_run(store, steps=2 + i, task=TASK, site=site, model=MODEL) for i in range(4)]
    ids += [make_run(store, steps=3, answer=None, status="max_steps", task=TASK) for _ in range(2)]
    for rid in ids[:4]:
        L.set_label(store, rid, ANNOTATOR, "fail", category=CATEGORY)
        L.set_label(store, rid, OTHER, "success")
        L.set_label(store, rid, "cy", "fail", category=CATEGORY)
        L.set_verdict(store, rid, MODEL, 3, "cockpit-judge-1", 1, reply="SUCCESS")
    store.db["decisions"].insert({"run_id": ids[0], "step": 1, "approved": 0, "by": "human:ada", "message": "no"})
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.resize(1024, 640)
    panel.show()
    qtbot.waitExposed(panel)
    panel.refresh()
    assert fit_violations(panel, QSize(1024, 700)) == []
    assert panel.minimumSizeHint().width() <= 1024
    line = panel.assisted_runs.item(0)
    assert line.text().endswith("…") and TASK in shown_text(line.toolTip())
    assert panel.assisted_runs.horizontalScrollBar().maximum() == 0
    site_row = next(i for i, b in enumerate(panel.by_site.bars) if b[0] == site)
    assert shown_text(panel.by_site.bar_tip(site_row)) == f"{site}: 0/4"


def test_one_run_is_one_run(qtbot, store):
    rid = make_run(store, steps=2, task="task 0")
    L.set_label(store, rid, "ada", "fail")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    assert panel.assisted.text().startswith("1 run with a known outcome: 0.0% succeeded")


def test_webjudge_shows_each_runs_stages_and_why_a_verdict_is_undecided(qtbot, store):
    """#38: a WebJudge run is three stages and a request per screenshot; the panel says which, as they go, and
    an undecided verdict says why."""
    (rid,) = [make_run(store, steps=3, task="task undecided")]
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.j_protocol.setCurrentIndex(panel.j_protocol.findData("webjudge"))
    panel.j_canary.setChecked(False)  # the canaries are tested in test_reports_canaries.py
    shown = []
    panel.j_status.setText = lambda text, _set=panel.j_status.setText: (shown.append(shown_text(text)), _set(text))

    def respond(body):
        system = body["messages"][0]["content"]
        if "list the key points" in system:
            return "**Key Points**:\n1. Do the task"
        if "one screenshot" in system:
            return Reply(text="**Reasoning**: the result.\n\n**Score**: 4", delay=0.1)
        return "Thoughts: it seems done."  # no Status: line
    with ModelServer(respond) as srv:
        panel.j_url.setText(srv.base_url)
        panel.j_model.setText("judge-model")
        assert panel.start_judging() is not None
        judged(qtbot, panel)
    stages = [s.split(f"{rid}: ", 1)[1] for s in shown if f"{rid}: " in s and s.startswith("Judging")]
    assert stages[0] == "key points" and "screenshots 3/3 scored" in stages and stages[-2].startswith("outcome")
    assert "no 'Status:' line" in stages[-1]
    assert stages.index("screenshots 1/3 scored") < stages.index("screenshots 3/3 scored")
    done = shown_text(panel.j_status.text())
    assert "undecided 1" in done and f"Undecided: {rid}: the outcome reply has no 'Status:' line" in done, done


def test_the_judge_is_remembered_across_restarts(qtbot, store):
    """Walkthrough 4: after a restart Reports was back to gpt-4o on OpenAI: Judge pressed without looking would
    send the runs to another, paid judge. The judge a run was started with comes back."""
    make_run(store, steps=2, task="task to judge")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.j_canary.setChecked(False)
    with ModelServer(lambda body: "Looks done.\nSUCCESS") as srv:
        panel.j_url.setText(srv.base_url)
        panel.j_model.setText("my-local-judge")
        assert panel.start_judging() is not None
        judged(qtbot, panel)
    again = ReportsPanel(store)  # the window opened again on the same data folder
    qtbot.addWidget(again)
    assert (again.j_url.text(), again.j_model.text()) == (srv.base_url, "my-local-judge")


def test_a_webjudge_pass_counts_the_runs_judged(qtbot, store):
    """Walkthrough 5: a WebJudge pass over 23 runs took 5 minutes and the panel never said how many were done."""
    for i in range(2):
        make_run(store, steps=2, task=f"task {i}")
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.j_protocol.setCurrentIndex(panel.j_protocol.findData("webjudge"))
    panel.j_canary.setChecked(False)
    shown = []
    panel.j_status.setText = lambda text, _set=panel.j_status.setText: (shown.append(shown_text(text)), _set(text))

    with ModelServer(webjudge_says_success) as srv:
        panel.j_url.setText(srv.base_url)
        panel.j_model.setText("judge-model")
        assert panel.start_judging() is not None
        judged(qtbot, panel)
    counted = [s for s in shown if s.startswith("Judging")]
    assert any("0 of 2 judged." in s and "key points" in s for s in counted), counted
    assert any("1 of 2 judged." in s for s in counted), counted  # counted as each run is judged
    assert panel.j_progress.maximum() == 2 and panel.j_progress.value() == 2
    assert "Done." in shown_text(panel.j_status.text())
