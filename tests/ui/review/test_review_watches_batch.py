"""A batch started from the command line is watched in Review while it runs (issue #38, walkthrough A5).

A real `cockpit run --tasks FILE` in a subprocess, recording into the same store as the shown Review panel, against
the test model server: its second model call is held until the test lets it go, so the run stays running with
one step recorded. Review must list it as running, with that step, within a couple of seconds (it polls the store),
and follow it to its end.
"""
import json
import os
import subprocess
import sys
import threading
import time

from cockpit.core.llm.modelserver import ModelServer
from cockpit.ui.review.runs_model import column
from tests.clitools import kill_leftovers

SCROLL = "Thought: read the page first.\nAction: Scroll [WINDOW]; down"
ANSWER = "Thought: found it.\nAction: ANSWER; planning done"


def test_a_running_command_line_batch_shows_in_review_with_its_steps_so_far(qtbot, panel, store, tmp_path, site):
    held, second_asked = threading.Event(), threading.Event()
    calls = []

    def responder(body):
        calls.append(body)
        if len(calls) == 1:
            return SCROLL
        second_asked.set()
        held.wait(90)  # the run stays running, one step recorded, until the test has looked
        return ANSWER

    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "plan-1", "task": "Find the planning notes on the page",
                                 "url": site.url("agent_start.html")}) + "\n")
    p = panel()
    assert p.browser.count.text() == "0 runs"
    with ModelServer(responder) as srv:
        env = dict(os.environ, COCKPIT_HOME=str(store.root))
        proc = subprocess.Popen([sys.executable, "-m", "cockpit", "run", "--tasks", str(tasks), "--base-url",
                                 srv.base_url, "--model", "m"], env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert second_asked.wait(120), proc.stderr.read() if proc.poll() is not None else "no second call"
            asked = time.monotonic()
            # the list shows the run as running, within a couple of seconds of its first step (Review polls)
            qtbot.waitUntil(lambda: p.browser.model.total == 1, timeout=5000)
            shown_after = time.monotonic() - asked
            assert p.browser.count.text() == "1 run"
            cell = p.browser.model.index
            assert cell(0, column("status")).data() == "running" and "planning notes" in cell(0, column("task")).data()
            assert shown_after < 3.5, f"the running run showed {shown_after:.1f} s after its step"
            # a search finds it too (the walkthrough searched for the task running and saw "0 runs")
            p.browser.search.setText("planning")
            p.browser.apply_filter()
            assert p.browser.count.text() == "1 run"
            p.browser.table.selectRow(0)
            assert p.viewer.run is not None and p.viewer.run["status"] == "running"
            assert len(p.viewer.steps) == 1 and "Scroll" in p.viewer.step_info.text()
            held.set()
            assert proc.wait(120) == 0, proc.stderr.read()
        finally:
            held.set()
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
            proc.stdout.close()
            proc.stderr.close()
            kill_leftovers(store.root)
    # the open run follows to its end: its answer step appears and the status reads answered
    qtbot.waitUntil(lambda: p.viewer.run["status"] == "answered" and len(p.viewer.steps) == 2, timeout=5000)
    assert p.browser.model.index(0, column("status")).data() == "answered"
