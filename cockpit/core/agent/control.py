"""RunControl: pause, step once, stop, take over, from any thread.

The loop calls :meth:`RunControl.wait_turn` between steps and passes
:attr:`RunControl.stop_event` to the model client, so Stop also cuts an
in-flight model call short. A question at the approval gate waits on
:attr:`RunControl.interrupted`, so Stop and Take over both end the wait at once.
Built on threading primitives only.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import queue
import threading
from typing import Callable, Iterator


class Stopped(Exception):
    """Raised inside the loop when the user pressed Stop."""


#: Who paused a run, as the gate says it: the person, with the Pause button.
PRESSED_PAUSE = "you pressed Pause"


class RunControl:
    def __init__(self, paused: bool = False):
        self.stop_event = threading.Event()
        #: set while no one should wait for an answer at the gate: the run was stopped, or a person took over
        self.interrupted = threading.Event()
        self._taken_by = ""  # who has the browser ("human:ada"), from take_over until resume or step
        self._go = threading.Event()
        self._cond = threading.Condition()
        self._steps_allowed = 0
        self._paused = paused
        #: Pause was pressed and has not yet taken effect: the action being written waits at the gate (#38)
        self.pause_pending = False
        self.pause_why = PRESSED_PAUSE  # who or what paused it, said at the gate (walkthrough 9)
        self._jobs: queue.Queue = queue.Queue()
        self._on_stop: list[Callable[[], object]] = []  # what Stop calls off at once (calling_off)
        if not paused:
            self._go.set()

    # --- from the controlling thread ---
    def pause(self, why: str = "") -> None:
        """Pause at the next step boundary; an action the model is writing now is held at the gate first
        (:attr:`pause_pending`, :func:`cockpit.core.agent.gate.must_ask`). `why`: who or what paused, as the gate
        says it ("you pressed Pause", the default; "the window asked whether to close")."""
        with self._cond:
            if not self._paused:
                self.pause_pending = True
                self.pause_why = why or PRESSED_PAUSE
            self._paused = True
            self._go.clear()

    def resume(self) -> None:
        """Go on; a take-over ends here (the person hands back)."""
        with self._cond:
            self._paused = False
            self.pause_pending = False
            self._end_take_over()
            self._go.set()
            self._cond.notify_all()

    def step(self) -> None:
        """Run one more step, then pause again (a take-over ends: the agent acts again)."""
        with self._cond:
            self._paused = True
            self.pause_pending = False
            self._end_take_over()
            self._steps_allowed += 1
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self.stop_event.set()
            self.interrupted.set()
            self._cond.notify_all()
            calls = list(self._on_stop)
        for call in calls:  # each on a thread of its own: the caller (the window) never waits for the browser
            threading.Thread(target=call, name="stop-calls-off", daemon=True).start()

    @contextlib.contextmanager
    def calling_off(self, call: Callable[[], object]) -> Iterator[None]:
        """While the block runs, Stop also calls `call` (on another thread): it ends what the loop waits on that
        no check between steps can, e.g. a start page that never finishes loading (walkthrough 8, B2)."""
        with self._cond:
            self._on_stop.append(call)
            stopped = self.stop_event.is_set()
        if stopped:
            threading.Thread(target=call, name="stop-calls-off", daemon=True).start()
        try:
            yield
        finally:
            with self._cond:
                self._on_stop.remove(call)

    def take_over(self, by: str = "human") -> None:
        """A person (`by`, e.g. "human:ada") takes the browser: pause, and end a wait at the gate at once.
        Until :meth:`resume` or :meth:`step`, nothing the agent proposes runs (:mod:`cockpit.core.agent.gate`)."""
        with self._cond:
            self._paused = True
            self._go.clear()
            self._taken_by = by or "human"
            self.interrupted.set()
            self._cond.notify_all()

    def _end_take_over(self) -> None:
        self._taken_by = ""
        if not self.stop_event.is_set():
            self.interrupted.clear()

    def submit(self, fn) -> concurrent.futures.Future:
        """Run `fn` on the loop's thread at the next step boundary (at once when paused there)."""
        fut: concurrent.futures.Future = concurrent.futures.Future()
        with self._cond:
            if self.stop_event.is_set():
                fut.set_exception(Stopped())
                return fut
            self._jobs.put((fn, fut))
            self._cond.notify_all()
        return fut

    def _run_jobs(self) -> None:
        while True:
            try:
                fn, fut = self._jobs.get_nowait()
            except queue.Empty:
                return
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn())
            except BaseException as e:  # handed to whoever waits on the future
                fut.set_exception(e)

    def cancel_jobs(self) -> None:
        """Fail every job still waiting (the run ended before it could run them)."""
        while True:
            try:
                _, fut = self._jobs.get_nowait()
            except queue.Empty:
                return
            if fut.set_running_or_notify_cancel():
                fut.set_exception(Stopped())

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def taken_over(self) -> str:
        """Who has the browser ("human:ada"), or "" when the agent has it."""
        return self._taken_by

    @property
    def stopped(self) -> bool:
        return self.stop_event.is_set()

    # --- from the loop ---
    def check_stop(self) -> None:
        if self.stop_event.is_set():
            raise Stopped()

    def wait_turn(self, on_pause=None) -> None:
        """Block at a step boundary while paused; consume one 'step' credit if given.

        Jobs submitted from other threads (a human's action during a take-over)
        run here, on the loop's thread, between the agent's steps.
        """
        notified = False
        while True:
            self._run_jobs()
            with self._cond:
                if self.stop_event.is_set():
                    raise Stopped()
                if not self._jobs.empty():
                    continue
                if not self._paused:
                    return
                if self._steps_allowed > 0:
                    self._steps_allowed -= 1
                    return
                if not (on_pause and not notified):
                    self._cond.wait(0.25)
                    continue
            notified = True
            self.pause_pending = False  # the pause took effect here
            on_pause()
