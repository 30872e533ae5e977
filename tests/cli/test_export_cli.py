"""`cockpit export --format webvoyager` when a task ran more than once, or a run is exported again."""
import json

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from tests.clitools import cockpit
from tests.models import answer_with_title


def run_twice(site, tmp_path):
    """The user's steps: one task file, `cockpit run` and `cockpit run --no-resume`: two runs of task pay-1."""
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"web_name": "Local", "id": "pay-1", "ques": "What is the title?",
                                 "web": site.url("agent_details.html")}) + "\n")
    home = tmp_path / "home"
    with ModelServer(answer_with_title) as srv:
        for extra in ((), ("--no-resume",)):
            r = cockpit(home, "run", "--tasks", str(tasks), "--base-url", srv.base_url, "--model", "m", *extra)
            assert r.returncode == 0, r.stderr
    with Store(home) as store:
        first, second = sorted(store.runs(), key=lambda r: r["started"])
    assert first["task_id"] == second["task_id"] == "pay-1"
    return home, first["id"], second["id"]


def log_of(folder):
    return (folder / "agent.log").read_text()


def test_a_second_run_of_a_task_gets_its_own_folder_and_exporting_again_rewrites_the_same_ones(site, tmp_path):
    home, first, second = run_twice(site, tmp_path)
    out = tmp_path / "wv"
    r = cockpit(home, "export", "all", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "already exists" not in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["taskpay-1", f"taskpay-1-{second}"]
    assert f"Cockpit run {first} " in log_of(out / "taskpay-1")  # the first run has WebVoyager's own name
    assert f"Cockpit run {second} " in log_of(out / f"taskpay-1-{second}")

    # Again, into the same folder: each run writes over its own folder, nothing new appears, exit 0.
    (out / "taskpay-1" / "interact_messages.json").unlink()
    again = cockpit(home, "export", "all", "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "another run" not in again.stderr and "already exists" not in again.stderr
    assert sorted(p.name for p in out.iterdir()) == ["taskpay-1", f"taskpay-1-{second}"]
    assert (out / "taskpay-1" / "interact_messages.json").is_file()  # rewritten
    one = cockpit(home, "export", second, "--out", str(out))
    assert one.returncode == 0, one.stderr
    assert one.stdout.strip() == str(out / f"taskpay-1-{second}")

    # Both folders are read back by the importer, as task pay-1 (not "pay-1-<run id>").
    other = tmp_path / "other-home"
    i = cockpit(other, "import", "webvoyager", str(out))
    assert i.returncode == 0, i.stderr
    assert "imported 2 runs" in i.stdout
    with Store(other) as store:
        runs = store.runs()
        assert sorted(r["task_id"] for r in runs) == ["pay-1", "pay-1"]
        assert {r["answer"] for r in runs} == {"Details"}


def test_a_folder_cockpit_did_not_write_is_left_alone(site, tmp_path):
    home, first, second = run_twice(site, tmp_path)
    out = tmp_path / "wv"
    theirs = out / "taskpay-1"
    theirs.mkdir(parents=True)
    (theirs / "agent.log").write_text("2024-01-20 15:30:05,000 - INFO - a WebVoyager run\n")
    r = cockpit(home, "export", first, "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out / f"taskpay-1-{first}")
    assert (theirs / "agent.log").read_text() == "2024-01-20 15:30:05,000 - INFO - a WebVoyager run\n"
    assert sorted(p.name for p in theirs.iterdir()) == ["agent.log"]

    # Both names taken by something else: said plainly, nothing overwritten, exit 1.
    (out / f"taskpay-1-{second}").mkdir()
    (out / f"taskpay-1-{second}" / "notes.txt").write_text("mine")
    r = cockpit(home, "export", second, "--out", str(out))
    assert r.returncode == 1
    assert "hold something else; not writing over them" in r.stderr
    assert (out / f"taskpay-1-{second}" / "notes.txt").read_text() == "mine"


def test_export_help_names_the_second_run_s_folder(tmp_path):
    text = " ".join(cockpit(tmp_path, "export", "--help").stdout.split())
    assert "OUT/task<id>-<run id>" in text and "writes over its own folder" in text
