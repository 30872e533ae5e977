"""The window cannot start without a data folder it can write: a message box says which folder and what to do."""
import os
import subprocess

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from cockpit.ui.app import run_window


def _run_and_read_the_box(qtbot):
    """run_window(); the message box it shows is read, then closed as a person would."""
    seen = []

    def look():
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
        if not boxes:
            QTimer.singleShot(50, look)
            return
        box = boxes[0]
        seen.append((box.windowTitle(), box.text(), box.icon()))
        box.close()

    QTimer.singleShot(50, look)
    code = run_window()
    return code, seen


def test_a_folder_under_a_file_is_shown_in_a_box(qtbot, tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    home = blocker / "home"
    monkeypatch.setenv("COCKPIT_HOME", str(home))
    code, seen = _run_and_read_the_box(qtbot)
    assert code == 2
    assert len(seen) == 1
    title, text, icon = seen[0]
    assert title == "Cockpit cannot start" and icon == QMessageBox.Icon.Critical
    assert str(home) in text and "COCKPIT_HOME" in text and "Not a directory" in text
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(home) in err[0] and err[0].startswith("cockpit: cannot use the data folder")


def test_a_folder_that_cannot_be_written_is_shown_in_a_box(qtbot, tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("COCKPIT_HOME", str(home))
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(home)], capture_output=True).returncode != 0:
            pytest.skip("root on a file system without chattr +i: cannot make a folder read-only")
    else:
        home.chmod(0o555)
    try:
        code, seen = _run_and_read_the_box(qtbot)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(home)], check=True)
        else:
            home.chmod(0o755)
    assert code == 2 and len(seen) == 1
    assert str(home) in seen[0][1] and "make this folder writable" in seen[0][1]
    assert list(home.iterdir()) == []  # nothing half-made: no database, no settings
    err = capsys.readouterr().err
    assert "Traceback" not in err and "usage:" not in err and str(home) in err
