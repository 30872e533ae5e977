"""The task and start URL of the task bar, remembered across restarts (#38: they were empty on every start).

Kept in window.ini in the data folder, beside the window's layout (cockpit.ui.field_memory), saved when a run
starts and when the window closes, and put back when it opens. The demo's task and its ``demo:`` address are never
remembered: they are the demo policy's, which fills them in itself, and a ``demo:`` address with the demo policy
off would start a real model on no page (#38). The model is remembered with the settings (settings.json).
"""
from __future__ import annotations

from pathlib import Path

from cockpit.core.demo.policy import DEMO_TASK
from cockpit.ui.field_memory import FieldMemory
from cockpit.ui.live.task_bar import TaskBar

GROUP = "lastRun"


def _not_the_demos(key: str, text: str) -> bool:
    return text != DEMO_TASK if key == "task" else not text.lower().startswith("demo:")


def _memory(bar: TaskBar) -> FieldMemory:
    return FieldMemory(GROUP, {"task": bar.task_edit, "url": bar.url_edit}, keep=_not_the_demos)


def remember(bar: TaskBar, root: Path) -> None:
    """The fields' task and URL, each unless it is the demo's (what was remembered before then stays)."""
    _memory(bar).remember(root)


def restore(bar: TaskBar, root: Path) -> None:
    """The last task and URL into the task bar (before the demo policy fills in what is still empty)."""
    _memory(bar).restore(root)
