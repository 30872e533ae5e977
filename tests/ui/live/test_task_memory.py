"""The task and start URL come back when Cockpit starts again (#38: the fields were empty on every start), and the
demo's ``demo:`` address and task are never remembered: a real model must not start on the demo shop's address
once the demo policy is off.

Real windows (offscreen) on one data folder, opened one after the other as a person restarts the app.
"""
from PySide6.QtCore import Qt

from cockpit.core.demo.policy import DEMO_TASK

TASK = "Find the price of the blue kettle and say it"
URL = "http://127.0.0.1:9/shop/index.html"


def _type(qtbot, field, text: str) -> None:
    field.clear()
    qtbot.keyClicks(field, text)


def test_the_last_task_and_url_come_back_after_a_restart(qtbot, window_factory):
    w = window_factory()
    bar = w.live.task_bar
    _type(qtbot, bar.task_edit, TASK)
    _type(qtbot, bar.url_edit, URL)
    w.close()
    again = window_factory()  # before the fix: both fields empty
    assert again.live.task_bar.task()[:2] == (TASK, URL)
    assert again.live.task_bar.task_edit.cursorPosition() == 0  # a long task: its beginning in view
    again.close()


def test_the_demo_address_and_task_are_never_remembered(qtbot, window_factory):
    w = window_factory()
    bar = w.live.task_bar
    _type(qtbot, bar.task_edit, TASK)
    _type(qtbot, bar.url_edit, "demo:index.html")  # typed with the demo policy off
    w.close()
    again = window_factory()
    assert again.live.task_bar.task()[:2] == (TASK, "")  # the task, not the demo's address
    again.close()
    demo = window_factory(demo=True)  # the demo policy on: fills in the empty address
    assert demo.live.task_bar.task()[:2] == (TASK, "demo:index.html")
    demo.toolbar.demo_box.setChecked(False)
    demo.live.task_bar.task_edit.clear()
    demo.toolbar.demo_box.setChecked(True)  # the demo's task in the emptied field
    assert demo.live.task_bar.task()[0] == DEMO_TASK
    demo.close()
    later = window_factory()  # the demo policy off
    assert later.live.task_bar.task()[:2] == (TASK, "")
    assert later.toolbar.demo_box.checkState() == Qt.Unchecked
