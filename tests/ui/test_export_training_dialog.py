"""File → Export training data… (issue #43): opened from the menu or Ctrl+Shift+E on Review's filter, its counts
are Review's, it writes off the GUI thread with progress, says mistakes in the dialog and fits 1024x700."""
from PySide6.QtCore import Qt

from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.ui import export_training
from testkit.fakeruns import make_run
from tests.ui.fits import fit_violations


def runs(home):
    with Store(home) as store:
        ids = [make_run(store, steps=3, task=f"task {i}", site="shop" if i % 2 else "news") for i in range(6)]
        for rid in ids[:3]:
            L.set_label(store, rid, "ada", "success")
        L.set_label(store, ids[3], "ada", "fail")
    return ids


def export_dialog_by_keys(qtbot, w, monkeypatch):
    shown = []
    monkeypatch.setattr(export_training.ExportTrainingDialog, "exec",
                        lambda self: (shown.append(self), self.show()))
    w.activateWindow()
    qtbot.waitUntil(lambda: w.isActiveWindow(), timeout=3000)
    qtbot.keyClick(w, Qt.Key_E, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: bool(shown), timeout=3000)
    dlg = shown[0]
    qtbot.addWidget(dlg)
    return dlg


def test_the_dialog_counts_what_review_lists_and_exports_it(qtbot, window_factory, tmp_path, monkeypatch):
    runs(tmp_path / "home")
    w = window_factory()
    file_menu = w.menuBar().actions()[0].menu()
    assert "Export training data…" in [a.text() for a in file_menu.actions()]
    assert w.act_export_training.shortcut().toString() == "Ctrl+Shift+E"
    w.modes.setCurrentWidget(w.review)
    browser = w.review.browser
    browser.f_human.setCurrentIndex(browser.f_human.findText("success"))
    assert browser.count.text() == "3 runs"
    dlg = export_dialog_by_keys(qtbot, w, monkeypatch)
    assert dlg.runs.human.currentData() == "success"  # Review's filter, carried over
    qtbot.waitUntil(lambda: dlg.counts.text().startswith("3 runs selected"), timeout=10_000)
    assert "→ 9 rows from 3 runs: 9 accepted" in dlg.counts.text()
    assert dlg.error.text() == "Choose a folder to write into (Browse…)." and not dlg.export_btn.isEnabled()

    dlg.runs.since.setText("2025-13-45")
    qtbot.waitUntil(lambda: "write the date as YYYY-MM-DD" in dlg.error.text(), timeout=3000)
    dlg.runs.since.setText("")
    dlg.runs.site.setCurrentIndex(dlg.runs.site.findData("shop"))
    qtbot.waitUntil(lambda: dlg.counts.text().startswith("1 run selected"), timeout=10_000)
    browser.f_site.setCurrentIndex(browser.f_site.findText("shop"))  # Review says the same for the same filter
    assert browser.count.text() == "1 run"
    dlg.runs.site.setCurrentIndex(0)
    qtbot.waitUntil(lambda: dlg.counts.text().startswith("3 runs selected"), timeout=10_000)

    dlg.folder.setText(str(tmp_path / "out"))
    assert dlg.export_btn.isEnabled() and dlg.error.text() == ""
    qtbot.keyClick(dlg, Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: dlg.result is not None, timeout=20_000)
    assert dlg.counts.text().startswith("Written: 9 rows") and not dlg.progress.isVisible()
    card = (tmp_path / "out" / "README.md").read_text()
    assert "- runs the filter selected: 3" in card and "- human: success" in card
    assert len((tmp_path / "out" / "sft.openai.jsonl").read_text().splitlines()) == 9


def test_the_dialog_fits_a_small_screen_and_says_when_pyarrow_is_missing(qtbot, window_factory, tmp_path,
                                                                         monkeypatch):
    runs(tmp_path / "home")
    w = window_factory()
    monkeypatch.setattr(export_training.parquet, "available", lambda: False)
    dlg = export_dialog_by_keys(qtbot, w, monkeypatch)
    dlg.folder.setText(str(tmp_path / "out"))
    dlg.kind.setCurrentIndex(dlg.kind.findData("preference"))
    assert dlg.layout_box.currentText() == "TRL Parquet (needs pyarrow)"
    qtbot.waitUntil(lambda: "pip install 'cockpit[parquet]'" in dlg.error.text(), timeout=3000)
    assert not dlg.export_btn.isEnabled()
    dlg.layout_box.setCurrentIndex(dlg.layout_box.findData("sharegpt"))
    qtbot.waitUntil(lambda: dlg.error.text() == "" and dlg.export_btn.isEnabled(), timeout=3000)
    dlg.resize(dlg.sizeHint())
    assert fit_violations(dlg) == []
