"""A run's final status after the approval gate (#20): refused there is not answered."""
from cockpit.core.agent.approval import ended_at_gate
from cockpit.core.store.records import status_text


def d(risk, approved, step=1):
    return {"risk": risk, "approved": int(approved), "step": step}


def test_an_answer_after_a_refused_irreversible_action_is_refused():
    assert ended_at_gate("answered", [d("irreversible", False)]) == "refused"
    assert ended_at_gate("answered", [d("irreversible", False), d("reversible", True)]) == "refused"


def test_approved_in_the_end_or_never_asked_stays_answered():
    assert ended_at_gate("answered", []) == "answered"
    assert ended_at_gate("answered", [d("irreversible", False), d("irreversible", True)]) == "answered"
    assert ended_at_gate("answered", [d("reversible", False)]) == "answered"  # step mode: not the gate's stop


def test_other_endings_are_kept_and_refused_reads_as_stopped_at_the_gate():
    assert ended_at_gate("stopped", [d("irreversible", False)]) == "stopped"
    assert ended_at_gate("max_steps", [d("irreversible", False)]) == "max_steps"
    assert status_text("refused") == "refused (stopped at the gate)" and status_text("answered") == "answered"


def test_a_refusal_on_the_last_allowed_step_is_the_gates_stop_not_the_budgets():
    """Issue #30 item 6: the budget ran out at the very step the human refused: the gate stopped it."""
    assert ended_at_gate("max_steps", [d("irreversible", False, step=5)], last_step=5) == "refused"
    assert ended_at_gate("max_steps", [d("irreversible", False, step=3)], last_step=5) == "max_steps"
    assert ended_at_gate("max_steps", [d("irreversible", True, step=5)], last_step=5) == "max_steps"
    assert status_text("max_steps") == "out of steps"
