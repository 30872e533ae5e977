"""File → Import runs… in the real window: Ctrl+I opens it; a path's kind is detected (and only that kind's
options shown); the import runs off the GUI thread with its progress, can be cancelled between folders (what is
done stays done), and ends with its report; the runs appear in Review. Every error is said in the dialog, and it
fits a 1024x700 screen with a long path, a long error and a long report."""
import io
import json

from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from cockpit.core.store import Store
from tests.images import numbered_png
from tests.ui.fits import fit_violations
from tests.ui.review.driving import open_dialog
from tests.webvoyager_runs import webvoyager_results


def mind2web_folders(root, n: int, shots: int = 2, size=(64, 48)):
    """`n` Online-Mind2Web result folders (task_id m<i>) with `shots` screenshots each, JPEG when `size` is large
    (the import turns them into PNG: slow enough to be stopped half way)."""
    for i in range(n):
        d = root / f"m{i:03d}"
        (d / "trajectory").mkdir(parents=True)
        (d / "result.json").write_text(json.dumps({
            "task_id": f"m{i:03d}", "task": f"Find the opening hours of shop {i}", "final_result_response": "9-5",
            "action_history": [f"Click at ({10 * k}, 20)" for k in range(shots)], "thoughts": ["look"] * shots}))
        for k in range(shots):
            if size == (64, 48):
                data = numbered_png(i * 10 + k)
            else:
                buf = io.BytesIO()
                Image.effect_noise(size, 60 + k).convert("RGB").save(buf, "JPEG", quality=95)
                data = buf.getvalue()
            (d / "trajectory" / f"{k}_screenshot.png").write_bytes(data)
    return root


def choose(qtbot, dlg, path) -> None:
    dlg.path.setText(str(path))
    qtbot.waitUntil(lambda: dlg.looked_at == str(path), timeout=15000)


def imported(qtbot, dlg, timeout=60000):
    QTest.mouseClick(dlg.import_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.busy, timeout=timeout)  # busy from the click on, unless refused at once
    return dlg.result


def shown_rows(dlg) -> set[str]:
    """The option rows the dialog shows, by their labels' text."""
    return {dlg.form.labelForField(h).text().replace("&", "") for k, h in dlg.rows.items() if h.isVisible()}


def test_detected_imported_reported_and_shown_in_review(qtbot, window, tmp_path):
    results = mind2web_folders(tmp_path / "m2w", 3)
    dlg = open_dialog(qtbot, window)
    choose(qtbot, dlg, results)
    assert dlg.found.fullText() == "Holds 3 Online-Mind2Web result folders."
    assert dlg.expects.fullText().startswith("Expects <task_id>/result.json folders")
    assert shown_rows(dlg) == {"Task file", "Agent"}
    dlg.agent.setText("my-agent")
    result = imported(qtbot, dlg)
    assert dlg.message.fullText() == ("Imported 3 runs, skipped 0 already imported, 0 steps without a screenshot, "
                                      "0 actions kept verbatim only.")
    report = dlg.report.toPlainText().splitlines()
    assert report[0] == "imported 3 runs, skipped 0 already imported, 0 steps without a screenshot, 0 actions " \
                        "kept verbatim only"
    assert report[-4:-3] == ["imported:"]
    assert all(": Find the opening hours of shop" in line for line in report[-3:])
    # the runs are in the store and in Review, the first one open
    with Store(window.store.root) as store:
        assert sorted(r["model"] for r in store.run_summaries()) == ["my-agent"] * 3
    QTest.mouseClick(dlg.show_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=5000)
    assert window.modes.currentWidget() is window.review
    assert window.review.browser.model.total == 3
    assert window.review.viewer.run["id"] == result.imported[0]
    # again: all skipped, and said why
    dlg = open_dialog(qtbot, window)
    imported(qtbot, dlg)
    assert dlg.message.fullText().startswith("Imported 0 runs, skipped 3 already imported")
    assert "skipped:" in dlg.report.toPlainText() and f"{results / 'm000'}: already imported as run " in dlg.report.toPlainText()


def test_each_kind_shows_its_own_options(qtbot, window, tmp_path):
    dlg = open_dialog(qtbot, window)
    choose(qtbot, dlg, webvoyager_results(tmp_path))
    assert dlg.found.fullText() == "Holds 1 WebVoyager run folder."
    assert shown_rows(dlg) == {"Task file", "Reference answers"}
    dlg.kind.setCurrentIndex(dlg.kind.findData("browser-use"))
    assert shown_rows(dlg) == {"Agent", "Task"}
    dlg.kind.setCurrentIndex(dlg.kind.findData("bundle"))
    assert shown_rows(dlg) == set() and "cockpit export --format bundle" in dlg.expects.fullText()


def test_a_long_import_shows_progress_and_stops_between_folders(qtbot, window, tmp_path):
    results = mind2web_folders(tmp_path / "m2w", 20, shots=2, size=(800, 600))
    dlg = open_dialog(qtbot, window)
    choose(qtbot, dlg, results)
    QTest.mouseClick(dlg.import_btn, Qt.MouseButton.LeftButton)
    assert dlg.busy and not dlg.import_btn.isEnabled() and dlg.close_btn.text() == "Cancel"
    qtbot.waitUntil(lambda: dlg.progress.maximum() == 20 and dlg.progress.value() >= 1, timeout=60000)
    assert dlg.progress.isVisible() and dlg.progress_text.fullText().startswith(f"{dlg.progress.value()} of 20: ")
    QTest.keyClick(dlg, Qt.Key.Key_Escape)  # Esc while importing: cancel, not close
    assert dlg.isVisible() and dlg.progress_text.fullText() == "Cancelling after this folder…"
    qtbot.waitUntil(lambda: not dlg.busy, timeout=60000)
    result = dlg.result
    assert result.cancelled and 1 <= len(result.imported) < 20
    assert dlg.message.fullText().startswith(f"Cancelled. Imported {len(result.imported)} run")
    assert f"cancelled after {len(result.imported)} of 20: the rest were not imported" in dlg.report.toPlainText()
    with Store(window.store.root) as store:
        assert len(store.run_summaries()) == len(result.imported)  # what was done is kept, whole
    # importing again goes on with the rest
    rest = imported(qtbot, dlg, timeout=120000)
    assert len(rest.imported) == 20 - len(result.imported) and len(rest.skipped) == len(result.imported)
    assert window.review.browser.model.total == 20


def test_errors_are_said_in_the_dialog(qtbot, window, tmp_path):
    dlg = open_dialog(qtbot, window)
    QTest.mouseClick(dlg.import_btn, Qt.MouseButton.LeftButton)
    assert dlg.message.fullText() == "Choose a folder or a file to import (Folder… or File…)."
    choose(qtbot, dlg, tmp_path / "no-such-folder")
    assert dlg.found.fullText() == f"There is no file or folder {tmp_path / 'no-such-folder'}."
    empty = tmp_path / "downloads"
    (empty / "photos").mkdir(parents=True)
    choose(qtbot, dlg, empty)
    assert dlg.found.fullText().startswith("Holds nothing Cockpit imports")
    imported(qtbot, dlg)
    assert dlg.message.fullText().startswith(f"Cockpit found nothing it imports in {empty}.")
    dlg.kind.setCurrentIndex(dlg.kind.findData("mind2web"))
    assert imported(qtbot, dlg) is None
    assert dlg.message.fullText().startswith(f"found no Online-Mind2Web result folders in {empty}: expected "
                                             "<task_id>/result.json folders")
    assert dlg.import_btn.isEnabled() and dlg.path.isEnabled()  # fix it and try again


def test_fits_a_small_screen_with_long_content(qtbot, small_window, tmp_path):
    deep = tmp_path / ("a-results-folder-with-a-long-name-" * 4) / ("and-deeper-still-" * 4)
    results = mind2web_folders(deep, 12)
    dlg = open_dialog(qtbot, small_window)
    choose(qtbot, dlg, results)
    imported(qtbot, dlg)
    dlg.kind.setCurrentIndex(dlg.kind.findData("webvoyager"))
    imported(qtbot, dlg)  # a long error naming the long path
    assert dlg.message.fullText().startswith("found no WebVoyager run folders")
    dlg.report.setPlainText("\n".join(f"  {results}/m{i:03d}: imported before" for i in range(200)))
    qtbot.wait(50)
    assert dlg.width() <= 1024 and dlg.height() <= 700
    assert fit_violations(dlg) == []


def test_online_mind2webs_human_labels_are_detected_and_imported_with_the_unmatched_listed(qtbot, window, tmp_path):
    results = mind2web_folders(tmp_path / "m2w", 2)
    dlg = open_dialog(qtbot, window)
    choose(qtbot, dlg, results)
    dlg.agent.setText("Browser Use")
    imported(qtbot, dlg)
    dlg.close()
    labels = tmp_path / "human_label.json"
    labels.write_text(json.dumps([{"task_id": "m000", "confirmed_task": "x", "Browser_Use_human_label": "2"},
                                  {"task_id": "m001", "confirmed_task": "y", "Browser_Use_human_label": "1",
                                   "SeeAct_human_label": "0"}]))
    dlg = open_dialog(qtbot, window)
    choose(qtbot, dlg, labels)
    assert dlg.found.fullText() == "Holds a label file."
    imported(qtbot, dlg)
    report = dlg.report.toPlainText()
    assert report.splitlines()[0].endswith("3 Online-Mind2Web labels for 2 runs here, under online-mind2web; "
                                           "1 unmatched"), report
    assert "unmatched: task m001, agent SeeAct: no run of this task by this agent in the store" in report
    with Store(window.store.root) as store:
        from cockpit.core.store import labels as L
        got = {store.run(x["run_id"])["task_id"]: x["verdict"] for x in L.labels(store, annotator="online-mind2web")}
    assert got == {"m000": L.NOT_EXECUTABLE, "m001": "success"}


def test_another_path_takes_the_last_report_away(qtbot, window, tmp_path):
    """Walkthrough 5: after an import, typing a new path left the old report in the dialog, read as the new path's."""
    results = mind2web_folders(tmp_path / "m2w", 2)
    others = mind2web_folders(tmp_path / "more", 1)
    dlg = open_dialog(qtbot, window)
    choose(qtbot, dlg, results)
    imported(qtbot, dlg)
    assert dlg.message.fullText().startswith("Imported 2 runs") and dlg.report.toPlainText()
    choose(qtbot, dlg, others)
    assert dlg.report.toPlainText() == "" and dlg.message.fullText() == "" and not dlg.show_btn.isEnabled()
    assert dlg.found.fullText() == "Holds 1 Online-Mind2Web result folder."
    imported(qtbot, dlg)  # the same run's content: skipped, and the report is this path's
    assert dlg.message.fullText().startswith("Imported 0 runs, skipped 1 already imported")
    assert f"{others / 'm000'}: already imported as run " in dlg.report.toPlainText()


def test_a_task_file_of_another_kind_does_not_stay_for_the_next_path(qtbot, window, tmp_path):
    """Walkthrough 6: a WebVoyager import's task file stayed in the field when an Online-Mind2Web folder was picked,
    and that import failed on it ("… is not Online-Mind2Web's task list")."""
    results = mind2web_folders(tmp_path / "m2w", 1)
    wv = tmp_path / "wv" / "20240601_12_30_00" / "taskOne--1"
    wv.mkdir(parents=True)
    (wv / "screenshot1.png").write_bytes(numbered_png(1))
    (wv / "interact_messages.json").write_text(json.dumps([
        {"role": "user", "content": "Now given a task: Find it  Please interact with https://example.org"},
        {"role": "assistant", "content": "Thought: done\n\nAction: ANSWER; it"}]))
    wv_tasks = tmp_path / "wv_tasks.jsonl"
    wv_tasks.write_text(json.dumps({"id": "One--1", "web": "https://example.org", "ques": "Find it"}) + "\n")
    dlg = open_dialog(qtbot, window)
    choose(qtbot, dlg, tmp_path / "wv")
    dlg.tasks.setText(str(wv_tasks))
    assert imported(qtbot, dlg).imported
    choose(qtbot, dlg, results)
    assert dlg.found.fullText() == "Holds 1 Online-Mind2Web result folder." and dlg.tasks.text() == ""
    assert imported(qtbot, dlg).imported and not dlg.result.failed
