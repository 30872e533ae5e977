"""The UI's one way to run work off the GUI thread and get its outcome back on it.

After Anki's ``aqt.taskman``: :func:`run_in_background` runs a function in a
named daemon thread and calls ``on_done(future)`` on the GUI thread with a
finished :class:`concurrent.futures.Future`, so ``future.result()`` there gives
the function's result or raises its error. Without ``on_done`` an error is
logged with its traceback, never swallowed.

The outcome crosses threads through a queued signal on one relay object that
lives in the GUI thread (never a timer or an object made in the worker).
:meth:`Task.cancel` sets the task's cancel flag: a cancelled task's outcome is
never delivered, and a long loop given the flag (``pass_cancel=True``) polls or
waits on it to stop early. ``on_done`` bound to a Qt object that is deleted by
the time the outcome arrives is not called.

A task that reports as it goes (the judge's progress bar) calls a function made
by :func:`on_gui_thread`: each call is queued to the GUI thread the same way,
and dropped when its Qt object is gone.

Threads are one per task and daemon, as before this module: a call stuck on the
network never keeps the application from quitting. Everything in the UI that
needs a thread, a lock or a cancel flag takes it from here; nothing in the UI
starts asyncio tasks on the window's event loop (``tests/test_architecture.py``).
"""
from __future__ import annotations

import concurrent.futures
import logging
import threading
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal, Slot

__all__ = ["CancelFlag", "Lock", "Task", "on_gui_thread", "run_in_background"]

log = logging.getLogger(__name__)

#: What a task polls (``is_set``) or waits on (``wait(seconds)``) to learn it was cancelled.
CancelFlag = threading.Event
#: A lock for state the GUI thread and tasks share (the bridge's browser session).
Lock = threading.Lock


class Task:
    """One background call: its name, its cancel flag and its future."""

    def __init__(self, name: str, on_done: Callable[[concurrent.futures.Future], None] | None):
        self.name = name
        self.cancel_flag = CancelFlag()
        self.future: concurrent.futures.Future = concurrent.futures.Future()
        self._on_done = on_done

    def cancel(self) -> None:
        """Never deliver this task's outcome; a function given the flag sees it set."""
        self.cancel_flag.set()

    @property
    def cancelled(self) -> bool:
        return self.cancel_flag.is_set()

    @property
    def running(self) -> bool:
        """True until the function has returned or raised."""
        return not self.future.done()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the function has returned or raised (at most `timeout` s); True if it has."""
        done, _ = concurrent.futures.wait([self.future], timeout)
        return bool(done)

    def _deliver(self) -> None:
        if self.cancelled:
            return
        on_done = self._on_done
        if on_done is None:
            exc = self.future.exception()
            if exc is not None:
                log.error("background task %r failed", self.name, exc_info=exc)
            return
        if _owner_gone(on_done):
            return  # its window or dialog is gone
        on_done(self.future)


def _owner_gone(fn: Callable) -> bool:
    owner = getattr(fn, "__self__", None)
    return isinstance(owner, QObject) and not shiboken6.isValid(owner)


class _Relay(QObject):
    """Lives in the GUI thread; a finished task, emitted from its worker, is delivered here."""
    finished = Signal(object)  # Task
    called = Signal(object, object)  # fn, args

    def __init__(self):
        super().__init__()
        self.finished.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self.called.connect(self._call, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _deliver(self, task: Task) -> None:
        task._deliver()

    @Slot(object, object)
    def _call(self, fn: Callable, args: tuple) -> None:
        if not _owner_gone(fn):
            fn(*args)


_relay: _Relay | None = None
_relay_lock = threading.Lock()


def _gui_relay() -> _Relay:
    global _relay
    with _relay_lock:
        if _relay is None or not shiboken6.isValid(_relay):
            app = QCoreApplication.instance()
            if app is None:
                raise RuntimeError("run_in_background needs a Qt application")
            _relay = _Relay()
            _relay.moveToThread(app.thread())
        return _relay


def on_gui_thread(fn: Callable[..., Any]) -> Callable[..., None]:
    """A function that may be called from any thread: each call runs `fn` with its arguments on the GUI thread,
    in order, later (queued), unless `fn`'s Qt object is gone by then. For a task's progress reports."""
    relay = _gui_relay()

    def call(*args) -> None:
        relay.called.emit(fn, args)
    return call


def run_in_background(fn: Callable[..., Any], on_done: Callable[[concurrent.futures.Future], None] | None = None,
                      *, name: str = "cockpit-task", pass_cancel: bool = False) -> Task:
    """Run `fn()` (with `pass_cancel`: `fn(cancel_flag)`) in a daemon thread called `name`; then, unless the
    task was cancelled, `on_done(future)` on the GUI thread. May be called from any thread."""
    task = Task(name, on_done)
    relay = _gui_relay()

    def work() -> None:
        try:
            result = fn(task.cancel_flag) if pass_cancel else fn()
        except BaseException as e:  # handed to on_done (future.result() raises it), or logged
            task.future.set_exception(e)
        else:
            task.future.set_result(result)
        if not task.cancelled:
            relay.finished.emit(task)
    threading.Thread(target=work, name=name, daemon=True).start()
    return task
