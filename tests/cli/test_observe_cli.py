"""The `cockpit observe` command as a user runs it."""
import json

from tests import PAGES
from tests.clitools import cockpit


def test_observe_json_and_files(site, tmp_path):
    r = cockpit(None, "observe", site.url("grid.html"), "--json", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    marks = json.loads(r.stdout)
    assert [m["text"] for m in marks] == ["A", "B", "C", "D", "E"]
    assert set(marks[0]) >= {"id", "bbox", "tag", "role", "type", "text", "aria_label", "placeholder",
                             "href", "value", "editable", "scrollable", "in_iframe"}
    for name in ("screenshot.png", "marked.png", "marks.json"):
        assert (tmp_path / name).stat().st_size > 0


def test_observe_local_file_prints_element_text():
    r = cockpit(None, "observe", str(PAGES / "nested.html"))
    assert r.returncode == 0, r.stderr
    assert '[1]: <a> "Red shoe, size 42";' in r.stdout
    assert "6 marks in a 1024x768 viewport" in r.stdout


def test_observe_unreachable_url_fails_clearly():
    r = cockpit(None, "observe", "http://127.0.0.1:1/")
    assert r.returncode == 3
    assert "could not load http://127.0.0.1:1/" in r.stderr


def test_bad_viewport_is_rejected():
    r = cockpit(None, "observe", "x", "--viewport", "huge")
    assert r.returncode == 2 and "not a viewport like 1024x768" in r.stderr


def test_a_relative_data_folder_works_from_anywhere(site, tmp_path):
    """Walkthrough 7: COCKPIT_HOME=../home made Chromium take its profile folder relative to its own working folder;
    the session timed out after 60 s with a raw urllib3 message."""
    work = tmp_path / "work"
    work.mkdir()
    r = cockpit("../home", "observe", site.url("grid.html"), cwd=work, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "5 marks in a 1024x768 viewport" in r.stdout
    assert (tmp_path / "home").is_dir() and not (work / "home").exists()
