"""WebVoyager run folders: reading ones WebVoyager wrote, writing ones it could have written."""
import base64
import io
import json

import pytest
from PIL import Image

from cockpit.core.errors import CockpitError
from cockpit.core.store.webvoyager import (
    PLACEHOLDER,
    find_run_folders,
    read_run_folder,
    split_reply,
    strip_images,
    timestamp_folder_name,
    write_run_folder,
)
from tests.images import png
from tests.webvoyager_runs import SYSTEM, TASK, URL, webvoyager_messages


def test_read_folder_as_webvoyager_wrote_it(webvoyager_root):
    folder = webvoyager_root / "20240120_15_30_05" / "taskAllrecipes--3"
    run = read_run_folder(folder)
    assert run.path == folder
    assert run.task_id == "Allrecipes--3"
    assert run.task == TASK
    assert run.url == URL
    assert run.system_prompt == SYSTEM
    assert run.started == "2024-01-20T15:30:05"
    assert run.answer == "Vegetarian Four Cheese Lasagna"
    assert run.messages == webvoyager_messages()
    assert "Iter: 1" in run.log_text
    assert run.problems == []
    assert [s.index for s in run.steps] == [1, 2, 3, 4]
    assert [s.action for s in run.steps] == ["Type [1]; vegetarian lasagna", "Click [7]",
                                             "Scroll [WINDOW]; down",
                                             "ANSWER; [Vegetarian Four Cheese Lasagna]"]
    assert run.steps[0].thought == "The search box is at the top. I will search for vegetarian lasagna."
    assert run.steps[2].thought == "I need to scroll."
    assert run.steps[1].reply == webvoyager_messages()[4]["content"]
    assert [s.screenshot.name if s.screenshot else None for s in run.steps] == [
        "screenshot1.png", "screenshot2.png", None, "screenshot4.png"]
    assert run.steps[0].screenshot_clean.name == "screenshot1_no_box.png"
    assert run.steps[1].screenshot_clean is None
    assert run.steps[0].user_text.startswith("Now given a task: ")
    assert run.steps[1].user_text.endswith("(Omitted in context.)")
    assert run.steps[2].user_text.startswith("Format ERROR")


def test_unfinished_run_has_no_answer_and_extra_screenshot_is_noted(tmp_path):
    folder = tmp_path / "task7"
    folder.mkdir()
    (folder / "interact_messages.json").write_text(json.dumps(webvoyager_messages()[:5]))
    (folder / "agent.log").write_text("")
    for k in (1, 2, 3):
        (folder / f"screenshot{k}.png").write_bytes(png())
    run = read_run_folder(folder)
    assert run.task_id == "7" and run.started is None
    assert run.answer is None and len(run.steps) == 2
    assert run.problems == ["screenshot3.png has no matching reply "
                            "(the run may have stopped before the model answered)"]


@pytest.mark.parametrize("reply,thought,action", [
    ("Thought: a\n\nAction: Click [3]", "a", "Click [3]"),
    ("thought: a\naction: Wait", "a", "Wait"),
    ("**Thought**: a b\n**Action**: GoBack", "a b", "GoBack"),
    ("### Thought: x\n### Action: ANSWER; line one\nline two", "x", "ANSWER; line one\nline two"),
    ("Thought: I saw the action: nothing. Action: Google", "I saw the action: nothing.", "Google"),
    ("I will click it.\nAction: Click [2]", "I will click it.", "Click [2]"),
    ("Thought: only thinking", "only thinking", ""),
    ("", "", ""),
])
def test_split_reply_is_tolerant(reply, thought, action):
    assert split_reply(reply) == (thought, action)


@pytest.mark.fault("input")
def test_corrupt_screenshot_is_a_problem_and_the_rest_is_kept(webvoyager_root):
    folder = webvoyager_root / "20240120_15_30_05" / "taskAllrecipes--3"
    (folder / "screenshot2.png").write_bytes(png()[:60])  # truncated
    (folder / "screenshot4.png").write_bytes(b"<html>not an image</html>")
    (folder / "agent.log").write_bytes(b"Iter: 1 caf\xe9\n")
    run = read_run_folder(folder)
    assert run.problems == ["agent.log is not valid UTF-8; bad bytes were replaced",
                            "screenshot2.png is not a valid PNG",
                            "screenshot4.png is not a valid PNG"]
    assert [s.screenshot is not None for s in run.steps] == [True, False, False, False]
    assert run.answer == "Vegetarian Four Cheese Lasagna"
    assert "caf\ufffd" in run.log_text


@pytest.mark.fault("input")
def test_missing_and_broken_messages(tmp_path):
    folder = tmp_path / "taskA--1"
    folder.mkdir()
    (folder / "screenshot1.png").write_bytes(png())
    run = read_run_folder(folder)
    assert run.problems == ["interact_messages.json is missing", "agent.log is missing",
                            "screenshot1.png has no matching reply "
                            "(the run may have stopped before the model answered)"]
    assert run.steps == [] and run.task == "" and run.answer is None

    (folder / "interact_messages.json").write_text('[{"role": "system", "content": "x"},')
    run = read_run_folder(folder)
    assert run.problems[0].startswith("interact_messages.json is not valid JSON (")

    (folder / "interact_messages.json").write_text('{"role": "system"}')
    assert read_run_folder(folder).problems[0] == "interact_messages.json is not a list of messages"

    (folder / "interact_messages.json").write_text(json.dumps([7, {"role": "user", "content": "hi"},
                                                               {"role": "assistant", "content": None}]))
    run = read_run_folder(folder)
    assert "message 1 is not an object" in run.problems
    assert any("the task is not in the messages" in p for p in run.problems)
    assert len(run.steps) == 1 and run.steps[0].reply == "" and run.steps[0].user_text == "hi"


@pytest.mark.fault("input")
def test_empty_folder_and_not_a_folder(tmp_path):
    (tmp_path / "task5").mkdir()
    run = read_run_folder(tmp_path / "task5")
    assert run.problems[0] == "the folder is empty"
    assert "no screenshots" in run.problems
    with pytest.raises(CockpitError):
        read_run_folder(tmp_path / "missing")
    (tmp_path / "file").write_text("")
    with pytest.raises(CockpitError):
        read_run_folder(tmp_path / "file")


@pytest.mark.fault("input")
def test_task_with_one_space_and_url_with_trailing_period(tmp_path):
    folder = tmp_path / "taskX"
    folder.mkdir()
    msgs = [{"role": "system", "content": "s"},
            {"role": "user", "content": "Now given a task: Find it. Please interact with "
                                        "https://example.org/a."}]
    (folder / "interact_messages.json").write_text(json.dumps(msgs))
    run = read_run_folder(folder)
    assert (run.task, run.url) == ("Find it.", "https://example.org/a")


def test_find_run_folders(webvoyager_root):
    other = webvoyager_root / "20240121_09_00_00"
    (other / "taskAmazon--0").mkdir(parents=True)
    (other / "taskAmazon--0" / "agent.log").write_text("")
    (other / "taskEmpty").mkdir()
    (webvoyager_root / "notes").mkdir()
    found = find_run_folders(webvoyager_root)
    assert [p.relative_to(webvoyager_root).as_posix() for p in found] == [
        "20240120_15_30_05/taskAllrecipes--3", "20240121_09_00_00/taskAmazon--0",
        "20240121_09_00_00/taskEmpty"]
    assert find_run_folders(found[0]) == [found[0]]  # root may itself be a run folder
    # a folder called "tasks" holding runs is not itself a run
    tasks_dir = webvoyager_root.parent / "tasks"
    (tasks_dir / "20240101_00_00_00" / "task1").mkdir(parents=True)
    assert find_run_folders(tasks_dir) == [tasks_dir / "20240101_00_00_00" / "task1"]
    with pytest.raises(CockpitError):
        find_run_folders(webvoyager_root / "nope")


def test_write_then_read_round_trip(tmp_path):
    shot = png("red")
    data_url = "data:image/png;base64," + base64.b64encode(shot).decode()
    msgs = webvoyager_messages(image_url=data_url)
    out = tmp_path / timestamp_folder_name()
    jpeg = io.BytesIO()
    Image.new("RGB", (8, 8), "blue").save(jpeg, "JPEG")
    folder = write_run_folder(out, "Allrecipes--3", msgs, {1: shot, 2: shot, 4: jpeg.getvalue()},
                              [png("gray")], ["Iter: 1", "Iter: 2"],
                              extra_files={"accessibility_tree1.txt": b"tree"})
    assert folder == out / "taskAllrecipes--3"
    written = (folder / "interact_messages.json").read_text()
    assert base64.b64encode(shot).decode()[:40] not in written and "base64,iVBOR" not in written
    assert written.count(PLACEHOLDER) == 2
    assert msgs[1]["content"][1]["image_url"]["url"] == data_url  # caller's messages untouched
    assert (folder / "agent.log").read_text() == "Iter: 1\nIter: 2\n"
    assert (folder / "accessibility_tree1.txt").read_bytes() == b"tree"
    assert sorted(p.name for p in folder.glob("screenshot*")) == [
        "screenshot1.png", "screenshot1_no_box.png", "screenshot2.png", "screenshot4.png"]

    run = read_run_folder(folder)
    assert run.problems == []
    assert run.task_id == "Allrecipes--3" and run.task == TASK and run.url == URL
    assert run.messages == webvoyager_messages()  # exactly what WebVoyager would have saved
    assert run.answer == "Vegetarian Four Cheese Lasagna"
    assert [s.screenshot is not None for s in run.steps] == [True, True, False, True]
    assert run.steps[0].screenshot_clean is not None
    assert run.started is not None


def test_write_refuses_to_mix_runs_and_bad_names(tmp_path):
    write_run_folder(tmp_path, "a/b", [], [], log_lines="x")
    assert (tmp_path / "taska_b" / "agent.log").read_text() == "x\n"
    with pytest.raises(CockpitError, match="already exists"):
        write_run_folder(tmp_path, "a/b", [], [])
    write_run_folder(tmp_path, "a/b", [], [], overwrite=True)
    with pytest.raises(CockpitError, match="new plain file name"):
        write_run_folder(tmp_path, "c", [], [], extra_files={"../evil": b""})
    with pytest.raises(CockpitError, match="not an image"):
        write_run_folder(tmp_path, "d", [], {1: b"nope"})
    assert not (tmp_path / "taskd").exists() and not (tmp_path / "taskc").exists()


def test_strip_images_handles_string_image_urls():
    msgs = [{"role": "user", "content": [{"type": "image_url", "image_url": "data:image/png;base64,AAAA"},
                                         {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}]
    parts = strip_images(msgs)[0]["content"]
    assert parts[0]["image_url"] == {"url": PLACEHOLDER}
    assert parts[1]["image_url"]["url"] == "https://x/y.png"


def test_an_imported_run_shows_no_placeholder_junk(webvoyager_root, tmp_path):
    from tests.clitools import cockpit
    home = tmp_path / "home"
    r = cockpit(home, "import", "webvoyager", str(webvoyager_root))
    assert r.returncode == 0, r.stderr
    run_id = cockpit(home, "runs").stdout.splitlines()[1].split()[0]
    shown = cockpit(home, "runs", run_id).stdout
    assert "imported from webvoyager" in shown
    assert "None" not in shown and "ok: " not in shown and "[-]" not in shown, shown
    assert "step 1\n" in shown and "action:   Type [1]; vegetarian lasagna\n" in shown
