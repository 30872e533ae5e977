"""A data folder that cannot be created or written: one line naming it and the fix, exit code 2, no traceback."""
import contextlib
import os
import subprocess
import sys
import time

import pytest

from cockpit.core import paths
from tests.clitools import cockpit


@pytest.fixture
def under_a_file(tmp_path):
    """COCKPIT_HOME below a regular file: it can never be created, not even by root."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file")
    return blocker / "cockpit-home"


@contextlib.contextmanager
def immutable(folder):
    """`folder` cannot be written, even by root (chattr +i); skips where that cannot be done."""
    if os.geteuid() == 0:
        try:
            subprocess.run(["chattr", "+i", str(folder)], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            pytest.skip("running as root on a file system without chattr +i: cannot make a folder read-only")
    else:
        folder.chmod(0o555)
    try:
        yield
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o755)


def assert_one_clear_line(result, home):
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("cockpit: cannot use the data folder ") and str(home) in line
    assert "COCKPIT_HOME" in line and "Traceback" not in result.stderr and "usage:" not in result.stderr
    return line


@pytest.mark.parametrize("args", [
    ("runs",),
    ("runs", "1"),
    ("export", "all", "--out", "OUT"),
    ("run", "--task", "t", "--url", "http://127.0.0.1:9/", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"),
    ("demo", "--headless"),
    ("agreement",),
])
def test_every_command_says_in_one_line_which_folder_and_what_to_do(under_a_file, tmp_path, args):
    args = [str(tmp_path / "out") if a == "OUT" else a for a in args]
    result = cockpit(under_a_file, *args, timeout=60)
    line = assert_one_clear_line(result, under_a_file)
    assert "Not a directory" in line
    assert f"move the file {under_a_file.parent} out of the way" in line
    assert result.stdout == ""


def test_the_window_says_it_on_the_terminal_too(under_a_file):
    """`cockpit` alone (the window): the same line, before a message box it then shows (see tests/ui)."""
    env = dict(os.environ, COCKPIT_HOME=str(under_a_file), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen([sys.executable, "-m", "cockpit"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()  # the message box then waits for a person
    finally:
        time.sleep(0.2)
        proc.kill()
        rest = proc.communicate(timeout=30)[1]
    assert line.startswith("cockpit: cannot use the data folder ") and str(under_a_file) in line
    assert "Traceback" not in line + rest and "usage:" not in line + rest


def test_home_raises_a_data_folder_error_naming_the_folder(under_a_file, monkeypatch):
    monkeypatch.setenv("COCKPIT_HOME", str(under_a_file))
    with pytest.raises(paths.DataFolderError) as caught:
        paths.home()
    assert caught.value.path == under_a_file
    assert isinstance(caught.value, OSError)  # code that handles an OSError still does
    assert "\n" not in str(caught.value)


def test_a_file_where_the_folder_should_be(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.write_text("not a folder")
    monkeypatch.setenv("COCKPIT_HOME", str(home))
    with pytest.raises(paths.DataFolderError, match="move the file .*home out of the way"):
        paths.writable_home()


def test_a_folder_that_cannot_be_written_is_found_by_writing(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("COCKPIT_HOME", str(home))
    assert paths.writable_home() == home and list(home.iterdir()) == []  # the probe is gone
    with immutable(home):
        assert paths.home() == home  # it exists: reading commands may use it
        with pytest.raises(paths.DataFolderError) as caught:
            paths.writable_home()
    text = str(caught.value)
    assert text.startswith(f"cannot use the data folder {home}: ") and "make this folder writable" in text
    assert list(home.iterdir()) == []
