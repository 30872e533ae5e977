"""Fault suite, process death: `cockpit run` or the window killed with SIGKILL mid-run.

On restart every committed step is intact, the run shows as interrupted, and it
can be resumed (the same run goes on from its last step in a new browser, the
model seeing the conversation so far) or closed. Real processes, real Chromium,
real store, the test model server.
"""
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.store import Store
from cockpit.core.store.webarchive import WebArchive
from tests.clitools import cockpit, kill_leftovers, kill_when, text_of
from tests.models import model_client

pytestmark = pytest.mark.fault("kill")
LONG = 120_000
RESUMED = "has been resumed"


class Model:
    """Start page: click the details link; details page: scroll; then a reply that never comes in time
    (the test kills the process while waiting). After a resume: scroll once, then answer."""

    def __init__(self, stuck_reply=None):
        self.stuck = threading.Event()  # a killed-to-be run is waiting on its third reply
        self.stuck_reply = stuck_reply or Reply(text="Thought: hmm\nAction: Wait", delay=60)

    def __call__(self, body):
        msgs = body["messages"]
        last = text_of(msgs[-1])
        if RESUMED in last:
            return "Thought: back on the page where I was.\nAction: Scroll [WINDOW]; down"
        if any(RESUMED in text_of(m) for m in msgs[:-1]):
            return "Thought: the secret number is 4217.\nAction: ANSWER; 4217"
        if "The page is 'Agent start'" in last:
            n = re.search(r"^\[(\d+)\]: <a> \"Open the details page\"", last, re.M).group(1)
            return f"Thought: open the details.\nAction: Click [{n}]"
        if "The page is 'Details'" in last and sum(m["role"] == "assistant" for m in msgs) == 1:
            return "Thought: read on.\nAction: Scroll [WINDOW]; down"
        self.stuck.set()
        return self.stuck_reply


def run_and_kill(home, site, srv, model, task, url: str = "") -> None:
    """`cockpit run` (at `url`, else the fixture site's start page) until step 2 is committed and step 3
    waits on the model, then SIGKILL it."""
    model.stuck.clear()
    kill_when(home, ["run", "--task", task, "--url", url or site.url("agent_start.html"), "--base-url",
                     srv.base_url, "--model", "m", "--max-steps", "6"], model.stuck, "step 3")

def test_killed_cli_run_is_interrupted_then_resumed_or_closed(site, tmp_path):
    home = tmp_path / "home"
    model = Model()
    with ModelServer(model) as srv:
        try:
            run_and_kill(home, site, srv, model, "What is the secret number?")
            run_and_kill(home, site, srv, model, "A second task, given up on")
        finally:
            kill_leftovers(home)
        listing = cockpit(home, "runs")
        assert listing.returncode == 0, listing.stderr
        rows = re.findall(r"^(\S+)\s+\S+ \S+\s+(\S+)\s+(\d+)\s.*?(What is the secret|A second task)", listing.stdout,
                          re.M)
        by_task = {task: (rid, status, int(steps)) for rid, status, steps, task in rows}
        first, second = by_task["What is the secret"], by_task["A second task"]
        assert first[1:] == ("interrupted", 2) and second[1:] == ("interrupted", 2), listing.stdout
        assert "cockpit resume" in listing.stdout and "cockpit close" in listing.stdout
        with Store(home) as store:
            before = store.steps(first[0])
            web = WebArchive.of(store.run_dir(first[0]))  # the web recording, as far as it got (issue #41)
        assert {1, 2} <= set(web.steps()) and {1, 2} <= set(web.acts())
        assert any(r["url"].endswith("agent_details.html") and web.body(r["body"]) for r in web.requests())
        replayed = cockpit(home, "branch", first[0], "0", "--replay-only", "--recorded")
        assert replayed.returncode == 0, replayed.stderr
        assert "replayed 2 steps" in replayed.stdout and "0 requests not in the recording" in replayed.stdout
        n_before = len(srv.requests)

        r = cockpit(home, "resume", first[0][:17])
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "4217"
        assert "resuming" in r.stderr and "at step 3" in r.stderr

        resumed = srv.requests[n_before]  # the first request after the resume: the old history, then the note
        texts = [text_of(m) for m in resumed["messages"]]
        assert "Now given a task: What is the secret number?" in texts[1]
        replies = [m["content"] for m in resumed["messages"] if m["role"] == "assistant"]
        assert [x.split("\n")[0] for x in replies] == ["Thought: open the details.", "Thought: read on."]
        assert RESUMED in texts[-1] and "interrupted after step 2" in texts[-1]
        assert "The page is 'Details'" in texts[-1]  # reopened where the run was, not at its start URL

        closed = cockpit(home, "close", second[0])
        assert closed.returncode == 0, closed.stderr
        assert "closed" in closed.stdout and "2 steps kept" in closed.stdout
        refused = cockpit(home, "resume", second[0])
        assert refused.returncode == 2 and "was closed" in refused.stderr and "cannot be resumed" in refused.stderr
        again = cockpit(home, "resume", first[0])
        assert again.returncode == 2 and "already ended (answered)" in again.stderr
    kill_leftovers(home)

    with Store(home) as store:
        run = store.run(first[0])
        assert run["status"] == "answered" and run["answer"] == "4217" and run["steps"] == 4
        steps = store.steps(first[0])
        assert [s["step"] for s in steps] == [1, 2, 3, 4]
        for old, new in zip(before, steps[:2]):  # the committed steps are untouched
            assert {k: old[k] for k in ("reply", "action", "url", "screenshot", "finished")} == \
                   {k: new[k] for k in ("reply", "action", "url", "screenshot", "finished")}
        assert steps[2]["url"].endswith("agent_details.html") and steps[2]["action"] == "Scroll [WINDOW]; down"
        assert store.file(steps[2]["screenshot"]).stat().st_size > 1000
        assert run["config"]["resumed"][0]["at_step"] == 3 and run["config"]["resumed"][0]["how"] == "url"
        other = store.run(second[0])
        assert other["status"] == "closed" and len(store.steps(second[0])) == 2
    assert re.search(rf"^{re.escape(second[0])}\s.*\sclosed\s", cockpit(home, "runs").stdout, re.M)


WINDOW = textwrap.dedent("""
    import sys
    from cockpit.ui.app import run_window
    sys.exit(run_window(task=sys.argv[1], url=sys.argv[2], autostart=True))
""")


def window_and_kill(home, site, model, task) -> None:
    """The real app (run_window, as `cockpit` opens it) starts a run; SIGKILL once step 2 is committed."""
    model.stuck.clear()
    env = dict(os.environ, COCKPIT_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen([sys.executable, "-c", WINDOW, task, site.url("agent_start.html")], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if not model.stuck.wait(120):
            proc.kill()
            pytest.fail("the window's run never reached step 3: " + proc.stderr.read().decode()[-2000:])
        assert proc.poll() is None, "the window ended by itself"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.stderr.close()
        kill_leftovers(home)


def test_killed_window_run_is_resumed_or_closed_from_the_review_tab(qtbot, site, tmp_path):
    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.settings import Settings, save_settings
    from cockpit.ui.main_window import MainWindow
    home = tmp_path / "home"
    model = Model()
    with ModelServer(model) as srv:
        home.mkdir()
        save_settings(Settings(model=ModelConfig(base_url=srv.base_url, model="m", max_retries=0, timeout=90)),
                      home / "settings.json")
        try:
            window_and_kill(home, site, model, "What is the secret number?")
            window_and_kill(home, site, model, "A second task, given up on")
        finally:
            kill_leftovers(home)
        with Store(home) as store:
            ids = {r["task"]: r["id"] for r in store.runs()}
            first, second = ids["What is the secret number?"], ids["A second task, given up on"]
            before = store.steps(first)
            assert [s["step"] for s in before] == [1, 2] and len(store.steps(second)) == 2
            assert store.run(first)["status"] == "interrupted"  # the second app's start noticed
            assert store.run(second)["status"] == "running"  # as the killed app left it
        n_before = len(srv.requests)

        w = MainWindow(settings=Settings(annotator="ada"), store_root=home)  # the app opened again
        qtbot.addWidget(w)
        w.show()
        try:
            w.modes.setCurrentWidget(w.review)
            w.review.show_run(first)
            assert "interrupted" in w.review.viewer.header.text()
            tools = w.review.viewer.tools
            assert tools.resume_btn.isVisibleTo(w.review) and tools.close_run_btn.isVisibleTo(w.review)
            tools.resume_btn.click()
            assert w.modes.currentWidget() is w.live
            qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
            assert w.runs.run_id == first and "finished: answered" in w.live.banner.fullText()
            items = w.live.log_panel.items  # the Live tab shows the new steps, numbered on, after the recorded ones
            assert sorted(items) == [1, 2, 3, 4] and "interrupted" in items[1].toolTip(3)
            assert "interrupted" not in items[3].toolTip(3)  # the new ones are the run's own

            w.modes.setCurrentWidget(w.review)
            w.review.show_run(second)
            assert tools.close_run_btn.isVisibleTo(w.review)
            tools.close_run_btn.click()
            assert "closed" in w.review.viewer.header.text() and "closed" in w.review.label_bar.status.text()
            assert not tools.resume_btn.isVisibleTo(w.review)
            assert not tools.close_run_btn.isVisibleTo(w.review)
            w.review.show_run(first)  # resumed and finished: nothing to resume or close any more
            assert "answered" in w.review.viewer.header.text() and not tools.resume_btn.isVisibleTo(w.review)
        finally:
            w.close()
            kill_leftovers(home)
        resumed = srv.requests[n_before]
        texts = [text_of(m) for m in resumed["messages"]]
        assert "Now given a task: What is the secret number?" in texts[1]
        assert sum(m["role"] == "assistant" for m in resumed["messages"]) == 2
        assert RESUMED in texts[-1] and "The page is 'Details'" in texts[-1]

    with Store(home) as store:
        run = store.run(first)
        assert (run["status"], run["answer"], run["steps"]) == ("answered", "4217", 4)
        steps = store.steps(first)
        assert [s["step"] for s in steps] == [1, 2, 3, 4]
        assert [s["reply"] for s in steps[:2]] == [s["reply"] for s in before]
        assert store.run(second)["status"] == "closed" and len(store.steps(second)) == 2


def test_a_failed_run_resumed_by_replaying_its_steps(browser, site, tmp_path):
    """The model server failing at step 3 fails the run; resuming it with replay=True in a new browser
    replays steps 1-2 (the page is where it was), and retries step 3's question as step 4."""
    from cockpit.core.agent.loop import Agent, AgentConfig
    from cockpit.core.agent.start import RunContext
    from cockpit.core.browser.session import BrowserSession
    from cockpit.core.errors import CockpitError
    from cockpit.core.replay.resume import close, resume
    model = Model(stuck_reply=Reply(status=500, error_message="the model is down"))
    with ModelServer(model) as srv, Store(tmp_path / "home") as store:
        client = model_client(srv)
        first = Agent(browser, client, store, config=AgentConfig(max_steps=5)).run(Fresh(
            "What is the secret number?", site.url("agent_start.html")))
        assert first.status == "failed" and "model is down" in first.error
        with pytest.raises(CockpitError, match="only interrupted runs can be closed"):
            close(store, first.run_id)
        n_before = len(srv.requests)
        with BrowserSession() as fresh:
            replayed = []
            ctx = RunContext(fresh, store, client,
                             on_replay=lambda n, info: replayed.append((n, info.recorded_action)))
            result = resume(ctx, first.run_id, AgentConfig(max_steps=99), replay=True)
        client.close()
        assert (result.run_id, result.status, result.answer) == (first.run_id, "answered", "4217")
        steps = store.steps(first.run_id)
        assert [(s["step"], s["status"]) for s in steps] == [(1, "ok"), (2, "ok"), (3, "failed"), (4, "ok"),
                                                              (5, "answered")]
        assert [n for n, _ in replayed] == [1, 2] and replayed[1][1] == "Scroll [WINDOW]; down"
        assert steps[3]["url"].endswith("agent_details.html")
        sent = srv.requests[n_before]["messages"]
        assert sum(m["role"] == "assistant" for m in sent) == 2  # the partial step 3 added no turn
        assert "Your actions so far were replayed" in text_of(sent[-1])
        run = store.run(first.run_id)
        assert run["config"]["resumed"] == [dict(run["config"]["resumed"][0], at_step=4, how="replay",
                                                 max_steps=3)]  # 5 minus the 2 agent steps taken
        with pytest.raises(CockpitError, match="already ended"):
            resume(RunContext(browser, store, client), first.run_id)
