"""Helpers for tests that run the `cockpit` command in a subprocess, check what it said, and clean up after it."""
import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import time


def cockpit(home, *args, timeout=180, stdin=subprocess.DEVNULL, cwd=None, env=None, drop=()):
    """`python -m cockpit *args` with COCKPIT_HOME=home (None: the tests' own); the CompletedProcess (text output).
    `env` adds variables to the environment, `drop` removes some."""
    run_env = {**os.environ, **({"COCKPIT_HOME": str(home)} if home is not None else {}), **(env or {})}
    for name in drop:
        run_env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "cockpit", *args], capture_output=True, text=True,
                          timeout=timeout, env=run_env, stdin=stdin, cwd=cwd)


def ok(r) -> str:
    """The output of a command that must have succeeded."""
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def no_traceback(r) -> None:
    assert "Traceback" not in r.stderr + r.stdout, r.stderr[-3000:]


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Tty(io.StringIO):
    """Typed input that says it comes from a terminal (the terminal approver asks only on one)."""

    def isatty(self):
        return True


def processes_mentioning(text: str) -> list[int]:
    """Live processes (not zombies, not this one) whose command line or environment holds `text`
    (chromium: its profile in the home; chromedriver: its HOME inside that profile)."""
    found = []
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) != os.getpid():
            try:
                with open(f"/proc/{p}/cmdline", "rb") as f, open(f"/proc/{p}/environ", "rb") as g:
                    if text.encode() in f.read() + g.read():
                        with open(f"/proc/{p}/stat") as st:
                            if st.read().rsplit(")", 1)[1].split()[0] != "Z":
                                found.append(int(p))
            except OSError:
                pass
    return found


def kill_leftovers(home) -> None:
    """SIGKILL orphans a killed run's browser and driver: end those of this test's home, and only those."""
    for _ in range(3):
        pids = processes_mentioning(str(home))
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)


def text_of(message) -> str:
    c = message.get("content")
    if isinstance(c, list):
        return "\n".join(p.get("text", "") for p in c if isinstance(p, dict))
    return str(c or "")


def kill_when(home, args, event, what: str, timeout: float = 90, clean: bool = True) -> None:
    """`cockpit *args` (COCKPIT_HOME=home) until `event` is set (the model server saw the run reach `what`),
    then SIGKILL it, as a crash or a power cut would; its browser is cleaned up after it (not with
    `clean=False`: the test then sees what a killed Cockpit leaves)."""
    import pytest
    env = dict(os.environ, COCKPIT_HOME=str(home))
    proc = subprocess.Popen([sys.executable, "-m", "cockpit", *args], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if not event.wait(timeout):
            proc.kill()
            pytest.fail(f"the run never reached {what}: " + proc.stderr.read().decode()[-2000:])
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.stderr.close()
        if clean:
            kill_leftovers(home)
