"""RunControl: pause, step once, stop, from any thread.

The loop calls :meth:`RunControl.checkpoint` between phases and passes
:attr:`RunControl.stop_event` to the model client, so Stop also cuts an
in-flight model call short. Built on threading primitives only.
"""
from __future__ import annotations

import threading


class Stopped(Exception):
    """Raised inside the loop when the user pressed Stop."""


class RunControl:
    def __init__(self, paused: bool = False):
        self.stop_event = threading.Event()
        self._go = threading.Event()
        self._cond = threading.Condition()
        self._steps_allowed = 0
        self._paused = paused
        if not paused:
            self._go.set()

    # --- from the controlling thread ---
    def pause(self) -> None:
        with self._cond:
            self._paused = True
            self._go.clear()

    def resume(self) -> None:
        with self._cond:
            self._paused = False
            self._go.set()
            self._cond.notify_all()

    def step(self) -> None:
        """Run one more step, then pause again."""
        with self._cond:
            self._paused = True
            self._steps_allowed += 1
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self.stop_event.set()
            self._cond.notify_all()

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def stopped(self) -> bool:
        return self.stop_event.is_set()

    # --- from the loop ---
    def check_stop(self) -> None:
        if self.stop_event.is_set():
            raise Stopped()

    def wait_turn(self, on_pause=None) -> None:
        """Block at a step boundary while paused; consume one 'step' credit if given."""
        with self._cond:
            notified = False
            while True:
                if self.stop_event.is_set():
                    raise Stopped()
                if not self._paused:
                    return
                if self._steps_allowed > 0:
                    self._steps_allowed -= 1
                    return
                if on_pause and not notified:
                    notified = True
                    self._cond.release()
                    try:
                        on_pause()
                    finally:
                        self._cond.acquire()
                    continue
                self._cond.wait(0.5)
