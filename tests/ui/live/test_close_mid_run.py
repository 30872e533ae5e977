"""Closing the window while a run goes on asks first (#38: it closed at once, the run stopped without a word):
"A run is going on (step N). Stop it and close?". Cancel keeps the window and the run; "Stop and close" stops the
run, closes the window, and leaves no Chromium behind. Asked for Ctrl+Q (File → Quit) and for the title bar's close
button; the latter's close event is one the window system sends, which a test on the offscreen platform cannot
send (QWindow.close() there is not spontaneous), so Ctrl+Q drives the question here; both call close_question.

Real window (offscreen), real Chromium, the demo policy on the bundled Demo Shop.
"""
import time

from PySide6.QtWidgets import QApplication, QMessageBox

from cockpit.core.store import Store
from cockpit.ui.live.close_question import STOP_AND_CLOSE
from tests.clitools import processes_mentioning
from tests.ui.windowtools import LONG, records, wait_idle, when_shown


def _answer(qtbot, said: list, button: str) -> None:
    """When the question opens: note what it says, and press `button`."""
    def press(box):
        said.append(box.text())
        next(b for b in box.buttons() if b.text().replace("&", "") == button).click()
    when_shown(qtbot, lambda: next((b for b in QApplication.topLevelWidgets()
                                    if isinstance(b, QMessageBox) and b.isVisible()
                                    and b.objectName() == "closeQuestion"), None), press)


def test_closing_mid_run_asks_and_stop_and_close_leaves_no_browser(qtbot, window_factory, monkeypatch, tmp_path):
    home = tmp_path / "close-home"
    monkeypatch.setenv("COCKPIT_HOME", str(home))  # the browser's profile is in it: its processes name it
    w = window_factory(demo=True)
    assert w.start_run()
    qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)  # a run going on, at step N
    step = w.runs.latest_step
    assert step > 0 and processes_mentioning(str(home))
    said: list[str] = []
    _answer(qtbot, said, "Cancel")
    w.toolbar.act_quit.trigger()  # Ctrl+Q
    qtbot.waitUntil(lambda: bool(said), timeout=10_000)
    # before the fix: no question; the window closed and the run stopped
    assert said == [f"A run is going on (step {step}). Stop it and close?"]
    qtbot.wait(300)
    assert w.isVisible() and w.bridge.busy and w.live.approval.isVisible()  # Cancel: both go on
    _answer(qtbot, said, STOP_AND_CLOSE)
    w.toolbar.act_quit.trigger()  # asked again
    qtbot.waitUntil(lambda: not w.isVisible(), timeout=30_000)
    assert said[1:] == [f"A run is going on (step {step}). Stop it and close?"]
    deadline = time.monotonic() + 30
    while processes_mentioning(str(home)) and time.monotonic() < deadline:
        qtbot.wait(200)
    assert processes_mentioning(str(home)) == []  # Chromium and its driver are gone
    with Store(w.store_root) as s:
        assert s.run(w.runs.run_id)["status"] == "stopped"


def test_the_run_waits_while_the_close_question_is_open(qtbot, window_factory, site):
    """Walkthrough 4: the question said "step 7" while the run went on behind it to the gate at step 10 (with
    "Ask before: never" an action could run while its person was being asked whether to stop). Now the run is
    held while the question is open, the question says so, and after Cancel it goes on."""
    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.llm.modelserver import ModelServer, Reply
    w = window_factory()
    w.live.task_bar.set_task("Find the secret number on the details page", site.url("agent_start.html"))
    replies = iter(["Thought: scroll first.\nAction: Scroll [WINDOW]; down"] * 3 + ["Thought: done.\nAction: ANSWER; 7"])
    with ModelServer(lambda body: Reply(text=next(replies), delay=1.5)) as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model="slow-model", max_retries=0, timeout=60)
        assert w.start_run()
        qtbot.waitUntil(lambda: len(srv.requests) == 1, timeout=LONG)  # the model is writing step 1
        said: list[str] = []
        seen_while_open: list[int] = []

        def press_later(box):
            said.append(box.text())
            qtbot.wait(4000)  # the question open longer than two replies take
            seen_while_open.append(len(srv.requests))
            next(b for b in box.buttons() if b.text().replace("&", "") == "Cancel").click()
        when_shown(qtbot, lambda: next((b for b in QApplication.topLevelWidgets()
                                        if isinstance(b, QMessageBox) and b.isVisible()
                                        and b.objectName() == "closeQuestion"), None), press_later)
        w.toolbar.act_quit.trigger()
        qtbot.waitUntil(lambda: bool(seen_while_open), timeout=20_000)
        assert said and "it is paused while you decide" in said[0], said
        assert seen_while_open == [1]  # no further model call while asked: the run was held
        assert w.isVisible() and w.bridge.busy
        # the action being written when the question paused the run is held at the gate, and the gate says why:
        # the window asked (walkthrough 9: it said "you pressed Pause", and nobody had)
        qtbot.waitUntil(lambda: w.live.approval.isVisible(), timeout=LONG)
        panel = w.live.approval
        assert "held because the window asked whether to close" in panel.title.text(), panel.title.text()
        assert "the window asked whether to close while the model wrote this action" in panel.evidence.text()
        assert "Pause" not in panel.title.text() + panel.evidence.text()
        panel.approve_btn.click()
        qtbot.waitUntil(lambda: len(srv.requests) >= 2, timeout=LONG)  # Cancel: it went on
        w.bridge.stop()
        qtbot.waitUntil(lambda: not w.bridge.busy, timeout=LONG)


def test_cancel_before_the_reply_lets_the_run_go_on_unpaused(qtbot, window_factory, site):
    """Cancel pressed while the model was still writing left the run "pausing after this reply…" for good: Pause
    off, no live frames, the next steps run under a state that was not true. Now the state the run is in comes
    back, and the action being written is not held at the gate for the pause called off."""
    from cockpit.core.llm.client import ModelConfig
    from cockpit.core.llm.modelserver import ModelServer, Reply
    w = window_factory()
    w.live.task_bar.set_task("Find the secret number on the details page", site.url("agent_start.html"))
    w.toolbar.policy.setCurrentText("never")  # the gate asks only for a pause
    replies = iter(["Thought: scroll first.\nAction: Scroll [WINDOW]; down"] * 2 + ["Thought: done.\nAction: ANSWER; 7"])
    with ModelServer(lambda body: Reply(text=next(replies), delay=3.0)) as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model="slow-model", max_retries=0, timeout=60)
        assert w.start_run()
        qtbot.waitUntil(lambda: len(srv.requests) == 1, timeout=LONG)  # the model is writing step 1
        seen: list[tuple] = []

        def cancel_at_once(box):
            seen.append((box.text(), w.bridge.state))
            next(b for b in box.buttons() if b.text().replace("&", "") == "Cancel").click()
        when_shown(qtbot, lambda: next((b for b in QApplication.topLevelWidgets()
                                        if isinstance(b, QMessageBox) and b.isVisible()
                                        and b.objectName() == "closeQuestion"), None), cancel_at_once)
        w.toolbar.act_quit.trigger()
        qtbot.waitUntil(lambda: bool(seen), timeout=10_000)
        said, state_while_asked = seen[0]
        assert "it is paused while you decide" in said
        assert state_while_asked == "pausing after this reply…" and len(srv.requests) == 1  # asked before the reply
        # before the fix: "pausing after this reply…", Pause off, for the rest of the run
        assert w.bridge.state == "waiting for the model" and w.status.state.text() == "waiting for the model"
        assert w.toolbar.act_pause.isEnabled()
        held: list[bool] = []
        w.bridge.approvalRequested.connect(lambda _request: held.append(True))
        qtbot.waitUntil(lambda: len(srv.requests) >= 2, timeout=LONG)  # step 1 ran: the run went on by itself
        assert not held and not w.live.approval.isVisible()  # the scroll was not held at the gate
        assert w.bridge.state in ("running", "waiting for the model")
        assert [s["action"] for s in records(w)[1]][:1] == ["Scroll [WINDOW]; down"]
        wait_idle(qtbot, w)
        run, steps, _ = records(w)
        assert run["status"] == "answered" and len(steps) == 3 and held == []
