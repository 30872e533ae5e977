"""The window's title names what the Live tab is about (walkthrough 8: it kept the last run's task after a task file
was loaded, 48_tasks_loaded.png). A real window (offscreen), a real task file; no run."""
import json


def test_the_title_names_the_task_file_loaded(window_factory, tmp_path):
    w = window_factory()
    w.setWindowTitle("Cockpit — Find the pancake recipe")  # the title the last run of this window left
    tasks = tmp_path / "tasks10.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"t{i}", "task": f"task {i}", "url": "https://example.com/"}) + "\n"
                             for i in range(10)))
    assert w.live.task_bar.load_file(tasks) == 10
    assert w.windowTitle() == "Cockpit — tasks from tasks10.jsonl"
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not json\n")
    assert w.live.task_bar.load_file(broken) == 0  # refused: the list loaded before stays, and so does the title
    assert w.windowTitle() == "Cockpit — tasks from tasks10.jsonl"


def test_a_task_file_with_no_readable_task_leaves_the_title_alone(window_factory, tmp_path):
    """Walkthrough 10: a first task file whose every line was bad retitled the window "tasks from bad.jsonl",
    although nothing was loaded (the red banner said so)."""
    w = window_factory()
    w.setWindowTitle("Cockpit — Find the pancake recipe")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task": ""}\nnot json\n{"id": 3}\n')
    assert w.live.task_bar.load_file(bad) == 0
    assert w.windowTitle() == "Cockpit — Find the pancake recipe"
