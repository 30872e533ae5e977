"""`cockpit import mind2web` (issue #28) on result folders written here in each published variant:
ABP's (v1, 1-based <k>_full_screenshot.png with gaps, pixel action strings, result_status), SeeAct's
(element descriptions, 0-based <k>_screenshot.png, fewer thoughts than actions, an LFS pointer),
browser-use's published results (a judge score, no trajectory), the v2 schema, and damaged folders."""
import json
from pathlib import Path

import pytest

from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.m2w_import import import_mind2web, load_task_file, parse_harness_action
from tests.clitools import cockpit
from tests.images import numbered_png


def folder(root: Path, task_id: str, result: dict, shots: dict[str, bytes]) -> Path:
    d = root / task_id
    (d / "trajectory").mkdir(parents=True)
    (d / "result.json").write_text(json.dumps(result))
    for name, data in shots.items():
        (d / "trajectory" / name).write_bytes(data)
    return d


ABP = {"task_id": "005be9dd91c95669d6ddde9ae667125c_110325",
       "task": "Find the weight of baggage allowance for economy class on Qatar Airways.",
       "final_result_response": "30 kg", "result_status": "success",
       "action_history": ["Navigate to https://www.qatarairways.com/", "Click at (963, 72)",
                          'Type "baggage allowance"', "Press ENTER", "Scroll (delta_x=0, delta_y=550)"],
       "thoughts": ["", "The homepage has loaded.", "Search for it.", "Submit.", "Read on."]}
SEEACT = {"task_id": "1", "task": "Open the overview of the submission of releases on discogs.",
          "final_result_response": "The page is open",
          "action_history": ['<div role="button"> -> CLICK', "<button> -> CLICK", "<a href=\"/x\"> -> CLICK"],
          "thoughts": ["Navigate to the section about submission."]}
TASKS = [{"task_id": "005be9dd91c95669d6ddde9ae667125c", "confirmed_task": ABP["task"],
          "website": "https://www.qatarairways.com/", "reference_length": 4, "level": "easy"}]


@pytest.fixture
def results(tmp_path):
    root = tmp_path / "results"
    folder(root, ABP["task_id"], ABP, {f"{k}_full_screenshot.png": numbered_png(k) for k in (1, 2, 5, 6)})
    lfs = b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 1234\n"
    folder(root, "seeact1", SEEACT, {"0_screenshot.png": numbered_png(10), "1_screenshot.png": lfs,
                                     "2_screenshot.png": numbered_png(12), "3_screenshot.png": numbered_png(13)})
    folder(root, "bu1", {"task_id": "bu1", "task": "Find a red shoe", "final_result_response": "Here it is",
                         "judge": {"score": 100, "reasoning": "The agent found it."}}, {})
    (root / "broken").mkdir()
    (root / "broken" / "result.json").write_text("{not json")
    return root


def test_each_variant_becomes_a_run_step_by_step(tmp_path, results):
    tasks_file = tmp_path / "Online_Mind2Web.json"
    tasks_file.write_text(json.dumps(TASKS))
    with Store(tmp_path / "home") as store:
        report = import_mind2web(store, results, tasks=load_task_file(tasks_file), agent="abp")
        assert len(report.imported) == 3 and len(report.failed) == 1
        assert "broken" in report.failed[0] and "not valid JSON" in report.failed[0]
        runs = {store.run(r)["task_id"]: store.run(r) for r in report.imported}
        abp = runs[ABP["task_id"]]
        assert (abp["url"], abp["site"], abp["model"], abp["source"]) == (
            "https://www.qatarairways.com/", "qatarairways.com", "abp", "mind2web")
        assert abp["config"]["level"] == "easy" and abp["answer"] == "30 kg"
        steps = store.steps(abp["id"])
        assert [s["action"] for s in steps] == ["Goto [https://www.qatarairways.com/]", "Click (963, 72)",
                                                "Type; baggage allowance", "Press [ENTER]", "Scroll by (0, 550)",
                                                "ANSWER; 30 kg"]
        assert [s["action_text"] for s in steps[:2]] == ABP["action_history"][:2]  # verbatim too
        # ABP shoots the page after each action (from 1): action i acted on the page of shot i, and the answer
        # was given on the page after the last action (shot 5); the first action has none, nor do 3 and 4
        assert [bool(s["screenshot_clean"]) for s in steps] == [False, True, True, False, False, True]
        assert store.read_file(steps[1]["screenshot_clean"]) == numbered_png(1)
        assert store.read_file(steps[5]["screenshot_clean"]) == numbered_png(5)
        assert any("6_full_screenshot.png" in p and "paired with no step" in p for p in report.problems)
        assert steps[1]["thought"] == "The homepage has loaded."
        seeact = store.steps(runs["seeact1"]["id"])
        assert [s["action_text"] for s in seeact[:3]] == SEEACT["action_history"] and seeact[0]["action"] is None
        assert seeact[1]["screenshot_clean"] is None  # the LFS pointer: no screenshot, step kept
        assert seeact[0]["thought"] == SEEACT["thoughts"][0] and seeact[1]["thought"] == ""
        verdicts = {v["judge"]: v["verdict"] for v in L.verdicts(store)}
        assert verdicts == {"abp:result_status": 1, "abp:judge": 1}
        assert report.missing_screenshots == 4  # ABP's first, 4th and 5th actions, SeeAct's LFS pointer
        again = import_mind2web(store, results, agent="abp")
        assert again.imported == [] and len(again.skipped) == 3
        assert len(import_mind2web(store, results, agent="other").imported) == 3  # another agent's: new runs


def test_v2_steps_name_their_screenshots_and_the_answer(tmp_path):
    root = tmp_path / "r"
    v2 = {"schema_version": "online-mind2web-v2", "task": "Find a flat", "task_id": "96b5",
          "agent_final_answer": "Flat 12", "action_history": [
              {"step": 0, "screenshot": "0000.png", "url": "https://z.com", "action": "page -> NAVIGATE -> open",
               "action_status": "SUCCESS", "thought": "start"},
              {"step": 1, "screenshot": "0001.png", "url": "https://z.com",
               "action": "CLICK coords(500, 300) -> click the search tab | SUCCESS", "thought": "search"},
              {"step": 2, "screenshot": "0002.png", "url": "https://z.com/i/12", "action": "TASK_COMPLETE -> ANSWER: Flat 12",
               "thought": None}]}
    folder(root, "96b5", v2, {f"000{k}.png": numbered_png(k) for k in range(3)})
    with Store(tmp_path / "home") as store:
        rid = import_mind2web(store, root).imported[0]
        steps = store.steps(rid)
    assert [s["action"] for s in steps] == [None, "Click (500, 300)", "ANSWER; Flat 12"]
    assert steps[1]["url"] == "https://z.com" and all(s["screenshot_clean"] for s in steps)


def test_the_command_imports_and_the_mind2web_export_gives_the_folder_back(tmp_path, results):
    home = tmp_path / "home"
    r = cockpit(home, "import", "mind2web", str(results), "--agent", "abp")
    assert r.returncode == 1 and "imported 3 runs" in r.stdout and "broken" in r.stderr  # the broken one failed
    with Store(home) as store:
        rid = next(run["id"] for run in store.runs() if run["task_id"] == ABP["task_id"])
    out = tmp_path / "out"
    assert cockpit(home, "export", rid, "--format", "mind2web", "--out", str(out)).returncode == 0
    back = json.loads((out / ABP["task_id"] / "result.json").read_text())
    for key in ("task_id", "task", "final_result_response", "action_history", "thoughts", "result_status"):
        assert back[key] == ABP[key], key
    for k in (1, 2, 5):  # the same files, byte for byte (6 was paired with no step: said at import)
        assert (out / ABP["task_id"] / "trajectory" / f"{k}_full_screenshot.png").read_bytes() == numbered_png(k)
    assert cockpit(home, "export", rid, "--format", "mind2web", "--out", str(results)).returncode == 0
    untouched = results / ABP["task_id"] / "trajectory" / "6_full_screenshot.png"
    assert untouched.read_bytes() == numbered_png(6)
    assert (results / f"{ABP['task_id']}-{rid}" / "result.json").is_file()  # written beside it instead


@pytest.mark.parametrize("text,canonical", [
    ("Click at (600, 475)", "Click (600, 475)"), ("Hover at (10, 20)", "Hover (10, 20)"),
    ("Drag from (1, 2) to (3, 4)", "Drag (1, 2) to (3, 4)"), ("Navigate back", "GoBack"),
    ("click_at(x=5, y=6)", "Click (5, 6)"), ('type_at(x=5, y=6, text="hi there")', "Type (5, 6); hi there"),
    ('navigate(url="https://a.org")', "Goto [https://a.org]"), ("<button> Search -> CLICK", None),
    ("Select picker 3 -> Select option(s) [Red]", None)])
def test_harness_action_strings(text, canonical):
    got = parse_harness_action(text)
    assert (str(got) if got else None) == canonical


def test_a_folder_failing_half_way_leaves_nothing_behind(tmp_path):
    root = tmp_path / "r"
    folder(root, "good", ABP, {"1_screenshot.png": numbered_png(1),
                               "2_screenshot.jpg": b"\xff\xd8\xff\xe0 not really a jpeg"})
    with Store(tmp_path / "home") as store:
        report = import_mind2web(store, root)
        assert report.imported == [] and len(report.failed) == 1 and "nothing of it was kept" in report.failed[0]
        assert store.runs() == []
        runs_dir = tmp_path / "home" / "runs"
        assert not runs_dir.exists() or not any(runs_dir.glob("m2w-*"))  # no files of it either
        (root / "good" / "trajectory" / "2_screenshot.jpg").unlink()  # fixed: importing again retries it
        assert len(import_mind2web(store, root).imported) == 1


def test_odd_input_is_reported_per_folder_and_pairing_never_shifts(tmp_path):
    import shutil
    root = tmp_path / "r"
    lfs = b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 1\n"
    folder(root, "a", {"task": "t", "action_history": ["Click at (1, 2)", "Click at (3, 4)", "Navigate forward"],
                       "final_result_response": "x"},
           {"0_screenshot.png": lfs, "1_screenshot.png": numbered_png(1), "2_screenshot.png": numbered_png(2),
            "3_screenshot.png": numbered_png(3)})
    shutil.copytree(root / "a", root / "a-copy")  # the same run twice: imported once
    folder(root, "odd", {"task": "t", "action_history": {"not": "a list"}}, {})
    (root / "bom").mkdir()
    (root / "bom" / "result.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({"task": "with a BOM"}).encode())
    with Store(tmp_path / "home") as store:
        report = import_mind2web(store, root)
        assert len(report.imported) == 2 and len(report.skipped) == 1  # a, bom; the copy skipped
        assert len(report.failed) == 1 and "odd" in report.failed[0] and "not a list" in report.failed[0]
        a = next(store.run(r) for r in report.imported if store.run(r)["task"] == "t")
        steps = store.steps(a["id"])
        assert steps[0]["screenshot_clean"] is None  # its shot was an LFS pointer: no shift of the others
        assert store.read_file(steps[1]["screenshot_clean"]) == numbered_png(1)
        assert steps[2]["action"] is None and steps[2]["action_text"] == "Navigate forward"
        assert store.read_file(steps[3]["screenshot_clean"]) == numbered_png(3)  # the answer's page
