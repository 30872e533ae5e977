"""The suite in parallel (pytest-xdist): how many workers, and the tests that run alone.

pyproject.toml's addopts ask for ``-n auto --dist loadfile``: each test file goes whole to one worker (its
module fixtures are made once, its tests keep their order) and the files with the most tests are dealt first.
The tests mostly wait (Chromium, the model server, subprocesses), so two workers per CPU pay; a run that names
a single test file (or test ids of one file) gets none and runs in this process, since workers would only
add their start-up (each imports Cockpit and collects the whole suite). ``-n N`` asks for N workers,
``-n 0`` for none; ``PYTEST_XDIST_AUTO_NUM_WORKERS`` sets what ``auto`` means.

``@pytest.mark.serial`` marks a test that must run alone: while it runs, no other test of the session runs on
any worker. The workers share two lock files in a folder the controller makes for the run: every test holds the main lock shared, a
serial test holds it alone; a serial test that waits for it also holds the gate, which new tests pass
through, so the tests already running finish and no new one starts until it is done.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from pathlib import Path

import pytest

WORKERS_PER_CPU = 2
LOCKS = pytest.StashKey[str]()  # on the controller: the folder of the run's lock files
MARKER = "serial: runs alone: no other test of the session runs meanwhile, on any worker (tests/parallel.py)"


def pytest_configure(config):
    config.addinivalue_line("markers", MARKER)


def files_named(config) -> int | None:
    """How many test files the command line names (a folder counts its test files); None when unsure."""
    count = 0
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::", 1)[0])
        if path.is_dir():
            count += sum(1 for _ in path.rglob("test_*.py"))
        elif path.is_file():
            count += 1
        else:
            return None
    return count


def pytest_xdist_auto_num_workers(config):
    wanted = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if wanted:
        return int(wanted)
    files = files_named(config)
    if files is not None and files < 2:
        return 0
    workers = WORKERS_PER_CPU * len(os.sched_getaffinity(0))
    return workers if files is None else min(files, workers)


def pytest_configure_node(node):
    """On the controller, for each worker it starts: the folder of the run's lock files."""
    stash = node.config.stash
    if LOCKS not in stash:
        stash[LOCKS] = tempfile.mkdtemp(prefix="cockpit-test-locks-")
    node.workerinput["cockpit_locks"] = stash[LOCKS]


@contextlib.contextmanager
def flocked(path: Path, how: int):
    with open(path, "a+b") as f:
        fcntl.flock(f, how)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@contextlib.contextmanager
def turn(item):
    """This test's turn: alone for a serial test, beside the other workers' tests for any other."""
    folder = getattr(item.config, "workerinput", {}).get("cockpit_locks")
    if folder is None:  # not on a worker: nothing else runs beside it
        yield
        return
    gate, main = Path(folder, "gate"), Path(folder, "main")
    if item.get_closest_marker("serial") is not None:
        with flocked(gate, fcntl.LOCK_EX), flocked(main, fcntl.LOCK_EX):
            yield
        return
    with contextlib.ExitStack() as held:
        with flocked(gate, fcntl.LOCK_EX):  # through the gate: waits while a serial test waits or runs
            held.enter_context(flocked(main, fcntl.LOCK_SH))
        yield


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    with turn(item):  # outside pytest-timeout's timer: waiting for a turn is not the test's time
        return (yield)


def pytest_unconfigure(config):
    """The controller removes the run's lock files once its workers are done."""
    if LOCKS in config.stash:
        shutil.rmtree(config.stash[LOCKS], ignore_errors=True)
