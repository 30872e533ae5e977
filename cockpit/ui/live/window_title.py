"""The window's title names what the Live tab is about: the task of the run starting or going (a branch's, a
replay's, a resume's: the task bar shows it as it starts) and, once a task file is loaded, that file. Walkthrough
8: the title kept an earlier run's task during a replay (which has no RunStarted) and after a task file was loaded."""
from __future__ import annotations

from pathlib import Path

from cockpit.core.agent import events as ev
from cockpit.ui.live.bridge import STARTING

APP = "Cockpit"


def titled(what: str) -> str:
    return f"{APP} — {what[:80]}" if what.strip() else APP


class WindowTitle:
    def __init__(self, window):
        self.window = window
        bar = window.live.task_bar
        window.bridge.stateChanged.connect(self._on_state)
        window.bridge.event.connect(self._on_event)
        bar.fileLoaded.connect(lambda path, _notes: self.tasks_loaded(path))
        bar.fileProblems.connect(lambda path, _problems: self.tasks_loaded(  # some of its tasks loaded (walk10: none)
            path, bool(bar.tasks) and bar.file_label.toolTip() == path))

    def _on_state(self, state: str) -> None:
        if state == STARTING:  # the task bar says what starts (TaskBar.show_run_task for a replay, a branch...)
            self.window.setWindowTitle(titled(self.window.live.task_bar.task()[0]))

    def _on_event(self, e) -> None:
        if isinstance(e, ev.RunStarted):
            self.window.setWindowTitle(titled(e.task))

    def tasks_loaded(self, path: str, loaded: bool = True) -> None:
        """A task file loaded (with problems, some tasks of it may be: `loaded`): its name, unless a run goes."""
        if loaded and not self.window.bridge.busy:
            self.window.setWindowTitle(titled(f"tasks from {Path(path).name}"))
