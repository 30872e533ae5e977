"""The window's approver (issue #17): an answer reaches only the question it was given for.

The panel's answer names its question (run id + request id). A late click on a question that is
gone (its run was stopped) must not answer the next question, which may be another run's.
"""
import threading
import time

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.approval import ApprovalRequest, Decision
from cockpit.core.page.marks import Mark
from cockpit.core.safety.risk import Risk
from cockpit.ui.live.approval_panel import ApprovalPanel
from cockpit.ui.live.bridge import GuiApprover


class _Signal:
    def __init__(self):
        self.seen = []

    def emit(self, *a):
        self.seen.append(a)


class _Bridge:
    """What GuiApprover needs of the AgentBridge: its two signals and its state."""

    def __init__(self):
        self.approvalRequested, self.approvalClosed = _Signal(), _Signal()
        self.state = ""

    def _set_state(self, s):
        self.state = s


def _request(run_id: str, step: int, text: str) -> ApprovalRequest:
    mark = Mark(id=1, bbox=(0, 0, 80, 20), tag="button", text=text)
    return ApprovalRequest(run_id, step, parse_action("Click [1]"), mark,
                           Risk("irreversible", (f'target text "{text}" matches',)), "irreversible")


def _wait_for(cond, seconds=10):
    end = time.monotonic() + seconds
    while not cond() and time.monotonic() < end:
        time.sleep(0.02)
    assert cond()


def test_a_late_answer_to_a_stopped_runs_question_does_not_answer_the_next_one(qtbot):
    bridge = _Bridge()
    approver = GuiApprover(bridge)
    panel = ApprovalPanel(user="ada")
    qtbot.addWidget(panel)
    answers = []
    panel.decided.connect(answers.append)

    # Run A asks "Archive"; the panel shows it; then run A is stopped before anyone clicks.
    first = _request("run-a", 3, "Archive")
    stop_a = threading.Event()
    out = {}
    t = threading.Thread(target=lambda: out.update(a=approver.decide(first, stop_a)))
    t.start()
    _wait_for(lambda: len(bridge.approvalRequested.seen) == 1)
    panel.show_request(first)
    stop_a.set()
    t.join(10)
    assert out["a"].by == "policy:stopped"

    # Run B now asks "Delete account" and waits; the human's click on the old panel arrives late.
    second = _request("run-b", 1, "Delete account")
    never = threading.Event()
    t = threading.Thread(target=lambda: out.update(b=approver.decide(second, never)))
    t.start()
    _wait_for(lambda: len(bridge.approvalRequested.seen) == 2)
    panel.approve()  # the yes was meant for run A's "Archive"
    assert len(answers) == 1
    late = answers[0]
    late.key = getattr(late, "key", None) or getattr(first, "key", None)  # (what the panel puts on it)
    assert not approver.answer(late)  # it reaches no one
    time.sleep(0.3)
    assert "b" not in out and t.is_alive()  # run B still waits for its own answer
    no = Decision(False, "human:ada", "not my account")
    no.key = getattr(second, "key", None)
    assert approver.answer(no)
    t.join(10)
    assert out["b"].approved is False and out["b"].message == "not my account"
