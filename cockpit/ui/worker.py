"""Run a blocking call in a thread and hand its result to a slot on the GUI thread.

The relay has no Qt parent and the thread keeps it alive, so a result that
arrives after its window closed cannot reach a deleted object: the slot must
be a bound method of a QObject, which Qt disconnects when that object goes.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal


class _Relay(QObject):
    done = Signal(object)  # the result, or the exception the call raised


def in_thread(fn: Callable[[], Any], slot: Callable[[Any], None], name: str = "cockpit-work") -> None:
    relay = _Relay()
    relay.done.connect(slot)

    def work():
        try:
            result = fn()
        except Exception as e:  # handed to the slot, which shows it
            result = e
        relay.done.emit(result)
    threading.Thread(target=work, name=name, daemon=True).start()
