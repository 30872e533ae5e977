"""cockpit.ui.background: work off the GUI thread, its outcome back on it, cancelled work never delivered."""
import threading

import pytest
import shiboken6
from PySide6.QtCore import QObject

from cockpit.ui.background import run_in_background


class Boom(Exception):
    pass


def test_result_is_delivered_on_the_gui_thread(qtbot):
    ran_in, got = [], []

    def work():
        ran_in.append(threading.current_thread().name)
        return 42

    def done(fut):
        got.append((fut.result(), threading.current_thread() is threading.main_thread()))

    task = run_in_background(work, done, name="test-result")
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got == [(42, True)]
    assert ran_in == ["test-result"]
    assert not task.running


def test_error_is_delivered_not_swallowed(qtbot):
    got = []

    def work():
        raise Boom("no luck")

    def done(fut):
        with pytest.raises(Boom, match="no luck"):
            fut.result()
        got.append(threading.current_thread() is threading.main_thread())

    run_in_background(work, done, name="test-error")
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got == [True]


def test_error_without_on_done_is_logged(qtbot, caplog):
    task = run_in_background(lambda: 1 / 0, name="test-logged")
    assert task.wait(5)
    qtbot.waitUntil(lambda: "test-logged" in caplog.text, timeout=5000)
    assert "ZeroDivisionError" in caplog.text


def test_cancelled_task_never_delivers(qtbot):
    release, got = threading.Event(), []
    task = run_in_background(lambda: release.wait(5) and "late", got.append, name="test-cancel")
    task.cancel()
    release.set()
    assert task.wait(5) and task.future.result() == "late"
    qtbot.wait(300)
    assert got == [] and task.cancelled


def test_long_loop_sees_its_cancel_flag(qtbot):
    got, rounds = [], []

    def loop(cancel):
        while not cancel.wait(0.01):
            rounds.append(1)
        return "stopped"

    task = run_in_background(loop, got.append, name="test-loop", pass_cancel=True)
    qtbot.waitUntil(lambda: len(rounds) >= 3, timeout=5000)
    task.cancel()
    assert task.wait(5) and task.future.result() == "stopped"
    qtbot.wait(200)
    assert got == []


def test_no_delivery_to_a_deleted_object(qtbot):
    class Owner(QObject):
        def __init__(self):
            super().__init__()
            self.got = []

        def done(self, fut):
            self.got.append(fut.result())

    release, owner = threading.Event(), Owner()
    task = run_in_background(lambda: release.wait(5), owner.done, name="test-owner")
    shiboken6.delete(owner)  # the window closed while the work ran
    release.set()
    assert task.wait(5)
    qtbot.wait(300)
    assert owner.got == []


def test_may_be_started_from_another_thread(qtbot):
    got = []

    def starter():
        run_in_background(lambda: threading.current_thread().name,
                          lambda fut: got.append((fut.result(), threading.current_thread() is threading.main_thread())),
                          name="test-inner")
    threading.Thread(target=starter).start()
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got == [("test-inner", True)]
