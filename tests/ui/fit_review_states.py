"""The fit test's Review, Import, Export training data and Reports states (tests/ui/test_window_fits.py)."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QInputDialog,
    QMenu,
    QMessageBox,
    QScrollArea,
)

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.assignments import assign
from cockpit.ui.review.reason_dialog import ReasonDialog
from testkit.fakeruns import make_run
from tests.ui.fit_driving import (
    ANNOTATOR,
    CATEGORY,
    LONG,
    MODEL,
    OTHER,
    TASK,
    THOUGHT,
    States,
    active,
    has_button,
    key,
    shortcut,
    shown_button,
    shows,
    tab,
)
from tests.ui.windowtools import right_click


def import_and_export(qtbot, w, states: States, tmp_path) -> None:
    """File → Import runs… (Ctrl+I) with a path that is not there, as WebVoyager folders, each Browse… opened
    and cancelled; File → Export training data… (Ctrl+Shift+E) with a date that is none, its Browse… too."""
    active(qtbot, w)
    shortcut(qtbot, w, "Ctrl+I")
    dlg = w._import_dialog
    qtbot.waitUntil(lambda: dlg is not None and dlg.isVisible(), timeout=5000)
    dlg.kind.setCurrentIndex(dlg.kind.findData("webvoyager"))
    dlg.path.setText(str(tmp_path / ("results-of-the-overnight-webvoyager-run-on-643-tasks-" + "y" * 80)))
    qtbot.waitUntil(lambda: bool(dlg.found.fullText()), timeout=10_000)
    states.check("Import runs, WebVoyager folders, a path that is not there")
    for pick in (dlg.folder_btn, dlg.file_btn, dlg.tasks_btn, dlg.answers_btn):
        seen = states.look_at(qtbot, QFileDialog, f"Import runs, {pick.text().replace('&', '')}",
                              lambda d: d.reject())
        pick.click()
        states.reached(f"Import runs, {pick.text().replace('&', '')}", bool(seen), "the file dialog")
    dlg.kind.setCurrentIndex(dlg.kind.findData("browser-use"))
    states.reached("Import runs, browser-use histories", dlg.agent.isVisible() and dlg.task.isVisible(),
                   "the Agent and Task rows")
    states.check("Import runs, browser-use histories")
    _import_a_bundle(qtbot, w, states, dlg, tmp_path)
    dlg.close()

    def use(dlg):
        qtbot.waitUntil(lambda: "selected" in dlg.counts.fullText(), timeout=LONG)
        dlg.runs.since.setText("2026-13-45")
        qtbot.waitUntil(lambda: "YYYY-MM-DD" in dlg.error.fullText(), timeout=5000)
        states.check("Export training data, a date that is none")
        # the progress bar as a count or an export shows it: on this small store the background job is done
        # before a check could see it, so it is shown as they show it
        dlg.progress.setRange(0, 643)
        dlg.progress.setValue(212)
        dlg.progress.setVisible(True)
        states.check("Export training data, counting")
        dlg.progress.setVisible(False)
        seen = states.look_at(qtbot, QFileDialog, "Export training data, Browse…", lambda d: d.reject())
        dlg.browse.click()
        states.reached("Export training data, Browse…", bool(seen), "the folder dialog")
        dlg.reject()
    from cockpit.ui.export_training import ExportTrainingDialog
    seen = states.look_at(qtbot, ExportTrainingDialog, "Export training data", use)
    shortcut(qtbot, w, "Ctrl+Shift+E")
    states.reached("Export training data", bool(seen), "the dialog")


def _import_a_bundle(qtbot, w, states: States, dlg, tmp_path) -> None:
    """A bundle of the store's own runs imported while another program holds the store's write lock (the
    dialog busy: its progress and Cancel), then the lock let go: the report, every run already there."""
    import sqlite3

    from cockpit.core.store.bundle import write_bundle
    with Store(w.store_root) as s:
        bundle = write_bundle(s, [r["id"] for r in s.run_summaries()], tmp_path / ("night-shift-" + "z" * 90 + ".zip"))
    dlg.kind.setCurrentIndex(dlg.kind.findData("bundle"))
    dlg.path.setText(str(bundle))
    other = sqlite3.connect(w.store_root / "cockpit.db", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program writing: the import waits for it
    try:
        dlg.import_btn.click()
        states.reached("Import runs, importing", dlg.progress.isVisible(), "the progress bar")
        states.check("Import runs, importing")
    finally:
        other.execute("ROLLBACK")
        other.close()
    qtbot.waitUntil(lambda: not dlg.busy and dlg.message.isVisible(), timeout=LONG)
    states.reached("Import runs, the report", bool(dlg.report.toPlainText()), "the report")
    states.check("Import runs, the report")


def review(qtbot, w, states: States, srv: ModelServer) -> None:
    tab(w, "Review")
    with Store(w.store_root) as s:  # another run of the task, by another model, to compare with
        model_run = next(r["id"] for r in s.run_summaries() if r["task"] == TASK)
        make_run(s, steps=3, task=TASK, model=MODEL + "-second", answer="The account is gone. " * 12)
    w.review.refresh()
    w.review.show_run(model_run)
    qtbot.wait(1500)  # the run's steps and screenshots load in the background
    states.check("Review, a run selected")
    w.review.browser.filters_btn.click()  # a small screen: the filter boxes fold behind Filters; open them
    states.reached("Review, the filter boxes open", w.review.browser.f_site.isVisible(), "the filter boxes")
    states.check("Review, the filter boxes open")
    w.review.browser.filters_btn.click()
    _labels(qtbot, w, states)
    _corrections(qtbot, w, states)
    _compare(qtbot, w, states)
    _reask(qtbot, w, states, model_run, srv)
    _queue_and_adjudication(qtbot, w, states)
    _interrupted_run(qtbot, w, states)




def _labels(qtbot, w, states: States) -> None:
    active(qtbot, w)
    table = w.review.browser.table
    table.setFocus()
    seen = states.look_at(qtbot, ReasonDialog, "Review, why is the run not executable?",
                          lambda d: key(qtbot, d.choices, Qt.Key_1))
    key(qtbot, table, Qt.Key_D)  # not executable: asks why; 1 picks CAPTCHA
    states.reached("Review, why is the run not executable?", bool(seen), "the question")
    qtbot.waitUntil(lambda: not any(t.isVisible() for t in seen), timeout=5000)
    active(qtbot, w)
    states.reached("Review, a run not executable", shows(w, "not executable (CAPTCHA)"), "the label")
    states.check("Review, a run not executable")
    _key_points(qtbot, w, states)
    category = next(c for c in w.findChildren(QComboBox) if c.isVisible() and c.toolTip().startswith("Failure cat"))
    category.setEditText(CATEGORY)
    table.setFocus()
    key(qtbot, table, Qt.Key_F)
    states.reached("Review, a label given", shows(w, "fail"), "the label (fail)")
    states.check("Review, a label given")
    key(qtbot, table, Qt.Key_W)
    states.reached("Review, the W correction hint", shows(w, "wrong target"), "the wrong-target hint")
    states.check("Review, the W correction hint")
    key(qtbot, table, Qt.Key_Q)
    states.reached("Review, the Q judgement", shows(w, "correct"), "the step's judgement (correct)")
    states.check("Review, the Q judgement")


def _key_points(qtbot, w, states: States) -> None:
    """K: the task's key points typed (long ones), then one ticked at the step shown (Ctrl+1)."""
    table = w.review.browser.table

    def typed(d):
        d.setTextValue("\n".join(f"{n}. {CATEGORY} ({TASK[:80]})" for n in range(1, 7)))
        d.accept()
    seen = states.look_at(qtbot, QInputDialog, "Review, the task's key points typed", typed)
    table.setFocus()
    key(qtbot, table, Qt.Key_K)
    states.reached("Review, the task's key points typed", bool(seen), "the question")
    qtbot.waitUntil(lambda: len(w.review.key_points.boxes) == 6, timeout=5000)
    active(qtbot, w)
    table.setFocus()
    key(qtbot, table, Qt.Key_1, Qt.ControlModifier)
    states.reached("Review, a key point ticked", shows(w, "1 of 6 met"),
                   f"the count of ticks (the footer said {w.review.label_bar.status.text()!r}, the box "
                   f"{w.review.key_points.summary.text()!r})")
    states.check("Review, a key point ticked")


def _corrections(qtbot, w, states: States) -> None:
    """A right-click on a box (its menu), then M and a box drawn (what is it?)."""
    active(qtbot, w)
    view = w.review.viewer.view
    qtbot.waitUntil(view.has_screenshot, timeout=LONG)
    mark = view.marks()[0]
    x, y, bw, bh = mark.bbox
    at = view.mapFromScene(x + bw / 2, y + bh / 2)
    seen = states.look_at(qtbot, QMenu, "Review, a box's right-click menu", lambda m: m.hide())
    right_click(view, QPoint(at.x(), at.y()))
    states.reached("Review, a box's right-click menu", bool(seen), "the menu")
    seen = states.look_at(qtbot, QInputDialog, "Review, what is the missing mark?", lambda d: d.reject())
    view.setFocus()
    key(qtbot, view, Qt.Key_M)
    a, b = view.mapFromScene(20, 20), view.mapFromScene(160, 70)
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=a)
    qtbot.mouseMove(view.viewport(), b)
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=b)
    states.reached("Review, what is the missing mark?", bool(seen), "the question")


def _compare(qtbot, w, states: States) -> None:
    """Compare with… -> the picker -> OK -> the two runs side by side, then Close."""
    seen = states.look_at(qtbot, QInputDialog, "Review, the Compare with picker", lambda d: d.accept())
    shown_button(w, "Compare with").click()
    states.reached("Compare runs", bool(seen), "the picker")
    dlg = next(t for t in QApplication.topLevelWidgets() if type(t).__name__ == "CompareDialog" and t.isVisible())
    qtbot.wait(300)
    states.check("Compare runs")
    shown_button(dlg, "Close").click()


def _reask(qtbot, w, states: States, model_run: str, srv: ModelServer) -> None:
    """Re-ask at step 1 of the model's run: the reply; then, its server gone, the failed call and one click for
    today's model; and a human's step, which cannot be re-asked (a message box says why)."""
    def dialog():
        return next(t for t in QApplication.topLevelWidgets() if type(t).__name__ == "ReaskDialog" and t.isVisible())
    w.review.go(0)
    shown_button(w, "Re-ask this step").click()
    dlg = dialog()
    qtbot.wait(300)
    states.check("Re-ask")
    shown_button(dlg, "Send").click()
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=LONG)
    states.check("Re-ask, the new reply")
    dlg.close()
    srv.stop()  # the run's model server is gone
    shown_button(w, "Re-ask this step").click()
    dlg = dialog()
    shown_button(dlg, "Send").click()
    qtbot.waitUntil(lambda: has_button(dlg, "Re-ask with the current"), timeout=LONG)
    states.check("Re-ask after a failed call: the run's model server is gone")
    shown_button(dlg, "Re-ask with the current").click()
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=LONG)
    states.check("Re-ask with the current model settings")
    dlg.close()
    shown_button(w, "Branch from this step").click()  # the run's server is gone: said, the current model offered
    box = w.branch_question
    qtbot.waitUntil(lambda: box is not None and box.isVisible(), timeout=LONG)
    states.check("Branch from a step: the run's model server is gone")
    box.button(QMessageBox.Cancel).click()
    with Store(w.store_root) as s:
        human = next((r["id"], st["step"]) for r in s.run_summaries() for st in s.steps(r["id"], with_request=False)
                     if st["actor"] == "human")
    w.review.show_run(human[0])
    w.review.go(next(i for i, st in enumerate(w.review.viewer.steps) if st["step"] == human[1]))
    button = shown_button(w, "Re-ask this step")  # off, the reason in its tooltip
    assert not button.isEnabled() and "Cannot re-ask" in button.toolTip(), button.toolTip()
    seen = states.look_at(qtbot, QMessageBox, "Re-ask of a human's step: why not", lambda m: m.accept())
    w.review.reask()  # what the button would say, were it asked anyway (a run changed under it)
    states.reached("Re-ask of a human's step: why not", bool(seen), "the message")


def _queue_and_adjudication(qtbot, w, states: States) -> None:
    table = w.review.browser.table
    with Store(w.store_root) as s:  # a batch for this annotator; a second annotator and a judge disagree
        runs = [r["id"] for r in s.run_summaries()]
        assign(s, "night-shift-pilot-batch-with-a-long-name", runs, [ANNOTATOR, OTHER], 2,
               "Success only when the final page shows the account deleted and nothing else was changed. " * 6)
        for run in runs:
            L.set_label(s, run, OTHER, "success", comment="the account page said it was gone " * 6)
            L.set_verdict(s, run, MODEL, 3, "cockpit-judge-1", 1, reply="SUCCESS: it was deleted " * 10)
    w.review.refresh()
    w.review.next_unlabelled()
    shown_button(w, "Guideline").click()
    states.reached("Review, a batch and its guideline", w.review.label_bar.queue_bar.isVisible(), "the queue bar")
    states.check("Review, a batch and its guideline")
    shown_button(w, "To adjudicate").click()
    qtbot.wait(500)
    table.setFocus()
    rect = table.visualRect(table.model().index(0, 0))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.wait(1000)
    states.reached("Review, adjudication", has_button(w, "Record adjudicated verdict"), "Record adjudicated verdict")
    states.check("Review, adjudication")
    _qa_review(qtbot, w, states, runs)


def _qa_review(qtbot, w, states: States, runs: list[str]) -> None:
    """The annotator as the batch's QA reviewer: every run of the batch, the key points' ticks side by side."""
    from cockpit.core.store import key_points as KP
    from cockpit.core.store.assignments import set_qa
    with Store(w.store_root) as s:
        set_qa(s, "night-shift-pilot-batch-with-a-long-name", ANNOTATOR)
        shown = next(r for r in runs if KP.typed(s, KP.task_key(s.run(r))))  # a run with the typed key points
        for i, point in enumerate(KP.typed(s, KP.task_key(s.run(shown)))[:4]):
            KP.tick(s, shown, OTHER, i, point, 1)
    w.review.refresh()
    w.review.show_run(shown)
    qtbot.wait(1000)
    view = w.review.adjudication
    states.reached("Review, the QA reviewer's ticks side by side", view.points.table.isVisible()
                   and w.review.adj_bar.qa_note.isVisible(), "the key points' table and the QA reviewer's line")
    states.check("Review, the QA reviewer's ticks side by side")
    active(qtbot, w)
    w.review.browser.table.setFocus()
    key(qtbot, w.review.browser.table, Qt.Key_D)  # not executable: the field asking why shows
    if not view.why.isVisible():  # the key went nowhere (the window not active on a busy machine): by the mouse
        view.not_executable.click()
    view.why.setCurrentText("Login wall: " + CATEGORY)
    states.reached("Review, adjudicated not executable, why", view.why.isVisible(), "the field asking why")
    states.check("Review, adjudicated not executable, why")


def _interrupted_run(qtbot, w, states: States) -> None:
    """A run whose process died, imported with its marked screenshots only: Resume and Close run, and the note
    that the screenshot is the marked one; nobody labels it, so Reports counts it a failure and says so."""
    from cockpit.core.store.newrun import NewRun
    from testkit.fakeruns import screenshot
    with Store(w.store_root) as s:
        rid = s.new_run(NewRun(TASK, "https://shop.example/account", model=MODEL))
        png, marks = screenshot(5)
        files = s.write_step_files(rid, 1, marked=png, marks=marks)
        s.commit_step(rid, dict(step=1, thought=THOUGHT, action="Click [3]", action_text="Click [3]", **files))
        s.finish_run(rid, "interrupted")
    shown_button(w, "To adjudicate").click()  # out of adjudication: every run
    w.review.refresh()
    w.review.show_run(rid)
    qtbot.wait(1000)
    states.reached("Review, an interrupted run", has_button(w, "Resume") and has_button(w, "Close run"),
                   "Resume and Close run")
    states.check("Review, an interrupted run")


def reports(qtbot, w, states: States) -> None:
    from cockpit.core.review.canary_audit import FOLDER, KNOWN
    from cockpit.core.store.newrun import NewRun
    with Store(w.store_root / FOLDER) as canaries:  # the judge said success on failed canaries: it is flagged
        for name in ("answer-without-doing-the-task-at-all", "captcha-blocked-on-the-security-check-page"):
            rid = canaries.new_run(NewRun(TASK, "http://127.0.0.1/demo", task_id=name))
            canaries.finish_run(rid, "answered", answer="done")
            L.set_label(canaries, rid, KNOWN, "fail")
            L.set_verdict(canaries, rid, MODEL, 3, "cockpit-judge-1", 1)
    with Store(w.store_root) as s:  # a run both annotators found not executable, with long reasons
        blocked = make_run(s, steps=1, task=TASK, model=MODEL)
        L.set_label(s, blocked, ANNOTATOR, L.NOT_EXECUTABLE, category="Login wall: " + CATEGORY)
        L.set_label(s, blocked, OTHER, L.NOT_EXECUTABLE, category="Blocked region: " + CATEGORY)
        make_run(s, steps=12, task=TASK, model="human")  # a person's own attempt: the task is hard
    tab(w, "Reports")
    shown_button(w, "Refresh").click()
    audit = w.reports.audit
    qtbot.waitUntil(lambda: not audit.busy, timeout=LONG)
    states.reached("Reports, judges audited, one flagged", "FLAGGED" in audit.status.text(), "the flagged judge")
    w.reports.j_model.setText(MODEL)  # as after Judge: the canary runs' line under the bar, a flagged judge
    w.reports._show_canaries({"checked": True, "flagged": True, "total": 6, "judged": 6, "unreadable": [],
                              "missed": ["answer-without-doing", "buy-refused", "captcha-blocked", "price-wrong"],
                              "errors": []})
    states.check("Reports, labels and verdicts")
    w.reports.findChild(QScrollArea).ensureWidgetVisible(w.reports.tiers.table)
    states.reached("Reports, human attempts", w.reports.tiers.table.rowCount() >= 2, "the tiers table's rows")
    states.check("Reports, human attempts: tiers and step ratios")
    audit.split.setFocus()
    audit.split.setCurrentIndex(audit.split.findData("agent"))
    qtbot.waitUntil(lambda: not audit.busy, timeout=LONG)
    audit.figure.setCurrentIndex(audit.figure.findData("gap"))
    w.reports.findChild(QScrollArea).ensureWidgetVisible(audit.chart)
    states.check("Reports, judges audited by agent, the gap's intervals drawn")
    tab(w, "Live")
