"""Waiting, in tests of the core (no Qt event loop to wait in)."""
import time

PATIENCE = 20  # seconds a future or a condition may take on a loaded machine


def within(cond, timeout: float = PATIENCE) -> bool:
    """`cond()` once it holds, or its last value when `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.05)
    return cond()
