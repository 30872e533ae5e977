"""File → Import runs…, Import clicked straight after typing a path (walkthrough 3, A8: the first click did
nothing, and "Still looking at what the path holds" stood in red beside "Holds 1 WebVoyager run folder.").
The import now starts as soon as the path has been looked at, and nothing red contradicts what was found.

The real window offscreen, a real store, WebVoyager's own results layout on disk.
"""
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from cockpit.core.store import Store
from cockpit.ui.review.import_dialog import ERROR_STYLE
from tests.ui.review.driving import open_dialog
from tests.webvoyager_runs import webvoyager_results


def test_import_clicked_before_the_path_was_looked_at_imports_once_it_is(qtbot, window, tmp_path):
    results = webvoyager_results(tmp_path)
    dlg = open_dialog(qtbot, window)
    dlg.path.setFocus()
    QTest.keyClicks(dlg.path, str(results))
    QTest.mouseClick(dlg.import_btn, Qt.MouseButton.LeftButton)  # at once: the look has not even begun
    said = dlg.message.fullText()
    assert "Still looking" not in said and dlg.message.styleSheet() != ERROR_STYLE, said
    assert "the import starts as soon as" in said and dlg.busy
    qtbot.waitUntil(lambda: not dlg.busy, timeout=60000)
    assert dlg.found.fullText() == "Holds 1 WebVoyager run folder."
    assert dlg.result is not None and len(dlg.result.imported) == 1, dlg.message.fullText()
    assert dlg.message.fullText().startswith("Imported 1 run,") and dlg.message.styleSheet() != ERROR_STYLE
    with Store(window.store.root) as store:
        assert [r["source"] for r in store.runs()] == ["webvoyager"]


def test_import_clicked_on_a_path_that_is_not_there_says_so(qtbot, window, tmp_path):
    dlg = open_dialog(qtbot, window)
    dlg.path.setFocus()
    QTest.keyClicks(dlg.path, str(tmp_path / "no-such-results"))
    QTest.mouseClick(dlg.import_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.busy, timeout=10000)
    assert dlg.message.fullText() == f"There is no file or folder {tmp_path / 'no-such-results'}."
    assert dlg.result is None
