"""The task and start URL of the task bar, remembered across restarts (#38: they were empty on every start).

Kept in window.ini in the data folder (where the window's layout is kept), saved when a run starts and when the
window closes, and put back when it opens. The demo's task and its ``demo:`` address are never remembered: they
are the demo policy's, which fills them in itself, and a ``demo:`` address with the demo policy off would start a
real model on no page (#38). The model is remembered with the settings (settings.json).
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from cockpit.core.demo.policy import DEMO_TASK
from cockpit.ui.live.task_bar import TaskBar

GROUP = "lastRun"


def _settings(root: Path) -> QSettings:
    return QSettings(str(Path(root) / "window.ini"), QSettings.IniFormat)


def _demo_url(url: str) -> bool:
    return url.strip().lower().startswith("demo:")


def remember(bar: TaskBar, root: Path) -> None:
    """The fields' task and URL, each unless it is the demo's (what was remembered before then stays)."""
    task, url, _ = bar.task()
    qs = _settings(root)
    if task != DEMO_TASK:
        qs.setValue(f"{GROUP}/task", task)
    if not _demo_url(url):
        qs.setValue(f"{GROUP}/url", url)
    qs.sync()


def restore(bar: TaskBar, root: Path) -> None:
    """The last task and URL into the task bar (before the demo policy fills in what is still empty)."""
    qs = _settings(root)
    task, url = str(qs.value(f"{GROUP}/task", "") or ""), str(qs.value(f"{GROUP}/url", "") or "")
    if task or (url and not _demo_url(url)):
        bar.set_task(task, "" if _demo_url(url) else url)
