"""Online-Mind2Web's human_label.json: `cockpit import labels` puts its labels (0 fail, 1 success, 2 not
executable) on the runs of each task and agent, lists the entries no run matches, and `cockpit export --format
labels-om2w` writes the file back; the published labels then stand against a judge in `cockpit agreement`."""
import json
from pathlib import Path

import pytest

from cockpit.core.review.consensus import not_executable
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.m2w_import import import_mind2web
from tests.clitools import cockpit, ok
from tests.images import numbered_png

A, B, C, D = ("b7258ee05d75e6c50673a59914db412e", "ade4c09ad3fdb1607209750924cd232f",
              "fb7b4f784cfde003e2548fdf4e8d6b4f", "824eb7bb0ef1ce40bfd49c12182d9428")
TASKS = {A: "Find the closest Gamestop to zip code 90028.", B: "Compare plans for the AeroAPI on Flightaware.",
         C: "Open the overview of the submission of releases on Discogs.", D: "Find a black swimsuit on Kohls."}
# What the published file holds (its shape: one object per task, "<agent>_human_label": "0" | "1" | "2")
PUBLISHED = [
    {"task_id": A, "confirmed_task": TASKS[A], "Operator_human_label": "1", "Browser_Use_human_label": "1",
     "SeeAct_human_label": "0"},
    {"task_id": B, "confirmed_task": TASKS[B], "Browser_Use_human_label": "2", "SeeAct_human_label": "1"},
    {"task_id": C, "confirmed_task": TASKS[C], "Browser_Use_human_label": 0, "SeeAct_human_label": ""},
    {"task_id": D, "confirmed_task": TASKS[D], "Browser_Use_human_label": "1"},
]


def agent_results(root: Path, task_ids: list[str]) -> Path:
    """One agent's Online-Mind2Web result folders (task B's with a replaced task's date suffix)."""
    for tid in task_ids:
        folder_id = f"{tid}_110325" if tid == B else tid
        d = root / folder_id
        (d / "trajectory").mkdir(parents=True)
        (d / "result.json").write_text(json.dumps({
            "task_id": folder_id, "task": TASKS[tid], "final_result_response": "done",
            "action_history": ["Click at (10, 20)", "Press ENTER"], "thoughts": ["look", "go"]}))
        for k in (0, 1):
            (d / "trajectory" / f"{k}_screenshot.png").write_bytes(numbered_png(k))
    return root


def home_with_runs(home: Path, tmp_path: Path) -> dict[tuple[str, str], str]:
    """Browser Use ran tasks A, B, C and SeeAct A, B, C (imported as `cockpit import mind2web --agent` does);
    the run ids by (task id, agent)."""
    with Store(home) as store:
        for agent, name in (("Browser Use", "bu"), ("seeact", "sa")):
            import_mind2web(store, agent_results(tmp_path / f"{home.name}-{name}", [A, B, C]), agent=agent)
        return {(r["task_id"].split("_")[0], r["model"]): r["id"] for r in store.run_summaries()}


@pytest.fixture
def published(tmp_path):
    path = tmp_path / "human_label.json"
    path.write_text(json.dumps(PUBLISHED))
    return path


def verdicts_by_run(home, annotator="online-mind2web"):
    with Store(home) as store:
        return {x["run_id"]: x["verdict"] for x in L.labels(store, annotator=annotator)}


def test_published_labels_go_to_their_runs_and_the_unmatched_are_listed(tmp_path, published):
    home = tmp_path / "home"
    runs = home_with_runs(home, tmp_path)
    out = ok(cockpit(home, "import", "labels", str(published)))
    assert out.splitlines()[0] == ("labels: 5 added, 0 already here, 0 conflicting relabels (the newer kept); "
                                   "8 Online-Mind2Web labels for 5 runs here, under online-mind2web; 2 unmatched")
    assert (f"  unmatched: task {A}, agent Operator: no run of this task by this agent in the store (its runs here "
            "are by Browser Use, seeact)") in out
    assert f"  unmatched: task {D}, agent Browser_Use: no run of this task by this agent in the store (no run of " \
           "this task here)" in out
    assert f"  blank (no label given): task {C}, agent SeeAct" in out
    assert verdicts_by_run(home) == {
        runs[(A, "Browser Use")]: "success", runs[(A, "seeact")]: "fail",
        runs[(B, "Browser Use")]: L.NOT_EXECUTABLE, runs[(B, "seeact")]: "success",
        runs[(C, "Browser Use")]: "fail"}
    again = ok(cockpit(home, "import", "labels", str(published), "--annotator", "om2w-qa"))
    assert again.startswith("labels: 5 added")
    assert len(verdicts_by_run(home, "om2w-qa")) == 5
    assert ok(cockpit(home, "import", "labels", str(published))).startswith("labels: 0 added, 5 already here")


def test_the_published_labels_stand_against_a_judge_and_not_executable_is_apart(tmp_path, published):
    home = tmp_path / "home"
    runs = home_with_runs(home, tmp_path)
    ok(cockpit(home, "import", "labels", str(published)))
    with Store(home) as store:  # a judge that says success to everything
        for rid in runs.values():
            L.set_verdict(store, rid, "always-yes", 0, "v1", 1)
        assert list(not_executable(store)) == [runs[(B, "Browser Use")]]
    rep = json.loads(ok(cockpit(home, "agreement", "--json", "--resamples", "0")))
    [judge] = rep["judges"]
    assert (judge["n"], judge["tp"], judge["fp"]) == (4, 2, 2)  # B by Browser Use is not executable: left out
    assert rep["not_executable"]["count"] == 1


def test_export_writes_the_file_and_it_round_trips(tmp_path, published):
    home, other = tmp_path / "home", tmp_path / "other"
    home_with_runs(home, tmp_path)
    other_runs = home_with_runs(other, tmp_path)
    ok(cockpit(home, "import", "labels", str(published)))
    written = tmp_path / "out" / "human_label.json"
    r = cockpit(home, "export", "all", "--format", "labels-om2w", "--out", str(written))
    assert r.returncode == 0, r.stderr
    assert "5 labels of 3 tasks; 1 run without a human verdict left out" in r.stderr  # C by seeact: blank
    got = json.loads(written.read_text())
    assert got == sorted([  # by task id, whatever order the runs were imported in
        {"task_id": A, "confirmed_task": TASKS[A], "Browser_Use_human_label": "1", "seeact_human_label": "0"},
        {"task_id": f"{B}_110325", "confirmed_task": TASKS[B], "Browser_Use_human_label": "2",
         "seeact_human_label": "1"},
        {"task_id": C, "confirmed_task": TASKS[C], "Browser_Use_human_label": "0"}], key=lambda t: t["task_id"])
    out = ok(cockpit(other, "import", "labels", str(written)))
    assert "0 unmatched" in out
    assert verdicts_by_run(other) == {
        other_runs[(A, "Browser Use")]: "success", other_runs[(A, "seeact")]: "fail",
        other_runs[(B, "Browser Use")]: L.NOT_EXECUTABLE, other_runs[(B, "seeact")]: "success",
        other_runs[(C, "Browser Use")]: "fail"}
    again = tmp_path / "again.json"
    ok(cockpit(other, "export", "all", "--format", "labels-om2w", "--out", str(again)))
    assert json.loads(again.read_text()) == got


def test_one_annotators_labels_are_exported_with_annotator(tmp_path, published):
    home = tmp_path / "home"
    runs = home_with_runs(home, tmp_path)
    with Store(home) as store:
        L.set_label(store, runs[(C, "seeact")], "ada", L.NOT_EXECUTABLE, category="CAPTCHA")
        L.set_label(store, runs[(A, "seeact")], "ada", "unsure")
    path = tmp_path / "ada.json"
    ok(cockpit(home, "export", "all", "--format", "labels-om2w", "--annotator", "ada", "--out", str(path)))
    assert json.loads(path.read_text()) == [{"task_id": C, "confirmed_task": TASKS[C], "seeact_human_label": "2"}]


@pytest.mark.parametrize("bad, message", [
    ([{"task_id": A, "SeeAct_human_label": "3"}], f"task {A} (entry 2), SeeAct_human_label: '3' is not 0 (fail)"),
    ([{"task_id": A, "SeeAct_human_label": "yes"}], "'yes' is not 0 (fail), 1 (success) or 2 (not executable)"),
    ([{"task": A, "SeeAct_human_label": "1"}], "is not Online-Mind2Web's human_label.json"),
])
def test_a_bad_file_imports_nothing(tmp_path, bad, message):
    home = tmp_path / "home"
    home_with_runs(home, tmp_path)
    path = tmp_path / "human_label.json"
    path.write_text(json.dumps([PUBLISHED[1], *bad]))
    r = cockpit(home, "import", "labels", str(path))
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert verdicts_by_run(home) == {}
