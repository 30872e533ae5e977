"""`cockpit run` shows the model's reply as it is written when its output is a terminal (a pty here), and plain
lines otherwise; a real process, the real client streaming from the scripted server."""
import os
import pty
import re
import subprocess
import sys

from cockpit.core.llm.modelserver import ModelServer, Reply
from tests.clitools import cockpit

THOUGHT = ("The start page lists a few links; the details I am asked for should be behind the one that "
           "says so, and nothing else here looks relevant, so I will open it and read what it says.")


def responder(body):
    text = body["messages"][-1]["content"][0]["text"]
    if "The page is 'Details'" in text:
        return Reply(text="Thought: it says 4217.\nAction: ANSWER; 4217", token_delay=0.02)
    n = re.search(r"^\[(\d+)\]: <a> \"Open the details page\"", text, re.M).group(1)
    return Reply(text=f"Thought: {THOUGHT}\nAction: Click [{n}]", token_delay=0.02, delay=1.2)


def run_in_pty(home, *args) -> tuple[int, str]:
    """Run `cockpit *args` with stdout and stderr on a pseudo-terminal; its exit status and all it wrote."""
    master, slave = pty.openpty()
    env = {**os.environ, "COCKPIT_HOME": str(home), "COLUMNS": "100", "LINES": "30"}
    proc = subprocess.Popen([sys.executable, "-m", "cockpit", *args], stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return proc.wait(timeout=120), out.decode("utf-8", "replace")


def test_on_a_terminal_the_thought_streams_then_the_steps_line_replaces_it(site, tmp_path):
    with ModelServer(responder) as srv:
        code, out = run_in_pty(tmp_path / "home", "run", "--task", "Find the secret number", "--url",
                               site.url("agent_start.html"), "--base-url", srv.base_url, "--model", "m")
    assert code == 0, out
    assert "waiting for the model…" in out  # the wait before the first token is shown, in seconds
    writing = re.findall(r"the model is writing \((\d+) tokens, (\d+) tokens/s", out)
    assert writing and all(int(rate) > 0 for _, rate in writing)
    # the thought grows on screen, a few words at a time, before the action line comes
    shown = [m.replace("\r\n", " ") for m in re.findall(r"thought: ([^\x1b]*)", out)]
    assert len(shown) >= 3 and any(len(a) < len(b) for a, b in zip(shown, shown[1:]))
    first_action = out.index("action:  Click [")
    assert out.index("thought: The start page") < first_action
    assert "\x1b[J" in out  # redrawn in place and cleared before the step's own line
    assert re.search(r"step 1/15  Click \[\d+\]   \| The start page lists", out)
    assert out.rstrip().endswith("4217")


def test_in_a_pipe_there_are_only_the_plain_lines(site, tmp_path):
    with ModelServer(responder) as srv:
        r = cockpit(tmp_path / "home", "run", "--task", "Find the secret number", "--url",
                    site.url("agent_start.html"), "--base-url", srv.base_url, "--model", "m")
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stderr + r.stdout and "writing" not in r.stderr
    steps = [line for line in r.stderr.splitlines() if line.startswith("step ")]
    assert len(steps) == 2 and steps[0].startswith("step 1/15  Click [") and "| The start page" in steps[0]
    assert r.stdout.strip() == "4217"
