"""`cockpit import` of a path that holds nothing of the kind asked for: one line saying what it expected (and
what the path holds instead, where it holds another kind), exit 2, nothing imported. It used to say "imported
0 runs" and exit 0."""
import json

import pytest

from tests.clitools import cockpit, no_traceback, ok
from tests.webvoyager_runs import webvoyager_results

EXPECTED = {
    "webvoyager": "found no WebVoyager run folders in {}: expected task<id>/ folders holding screenshot<k>.png",
    "mind2web": "found no Online-Mind2Web result folders in {}: expected <task_id>/result.json folders",
    "browser-use": "found no browser-use histories in {}: expected a JSON file holding a \"history\" list",
}


def refused(r, start: str) -> str:
    no_traceback(r)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stdout == ""  # no "imported 0 runs"
    [line] = r.stderr.strip().splitlines()
    assert line.startswith("cockpit: error: " + start), line
    return line


def mind2web_results(root):
    d = root / "f00d" / "trajectory"
    d.mkdir(parents=True)
    (d.parent / "result.json").write_text(json.dumps({"task_id": "f00d", "task": "Find a red shoe",
                                                      "final_result_response": "here", "action_history": []}))
    return root


@pytest.mark.parametrize("kind", EXPECTED)
def test_an_unrelated_folder_is_refused_with_the_layout_expected(tmp_path, kind):
    folder = tmp_path / "downloads"
    (folder / "photos").mkdir(parents=True)
    (folder / "photos" / "cat.json").write_text('{"name": "cat"}')
    (folder / "notes.txt").write_text("nothing to import")
    refused(cockpit(tmp_path / "home", "import", kind, str(folder)), EXPECTED[kind].format(folder))
    assert "no runs yet" in ok(cockpit(tmp_path / "home", "runs"))


def test_a_folder_of_another_kind_is_named(tmp_path):
    m2w = mind2web_results(tmp_path / "m2w")
    line = refused(cockpit(tmp_path / "home", "import", "webvoyager", str(m2w)), EXPECTED["webvoyager"].format(m2w))
    assert line.endswith("; it holds Online-Mind2Web result folders instead")
    wv = webvoyager_results(tmp_path)
    line = refused(cockpit(tmp_path / "home", "import", "mind2web", str(wv)), EXPECTED["mind2web"].format(wv))
    assert line.endswith("; it holds WebVoyager run folders instead")
    # and as the kind it holds, it imports
    assert ok(cockpit(tmp_path / "home", "import", "mind2web", str(m2w))).startswith("imported 1 run,")


def test_an_empty_label_file_is_refused(tmp_path):
    empty = tmp_path / "labels.jsonl"
    empty.write_text("\n")
    refused(cockpit(tmp_path / "home", "import", "labels", str(empty)),
            f"found no labels in {empty}: expected a .jsonl or .csv written by `cockpit export --format labels-jsonl`")
