"""Review's words for a run that answered in one step: "1 step" (it said "1 steps") and the answer step's outcome
said once, "answered" (it said "answered: answered"); `cockpit runs RUN` says the same. A run that ended without
an answer or an error says how it ended and nothing more ("none (stopped)", it said "none (stopped: )")."""
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit, ok


def one_step_answer(store) -> str:
    rid = store.new_run(NewRun("What is the shop's phone number?", "https://shop.test/", model="m"))
    store.commit_step(rid, dict(step=1, thought="It is in the footer.", action="ANSWER; 555-0100",
                                action_text="ANSWER; 555-0100", status="answered", outcome="answered",
                                url="https://shop.test/", title="Shop"))
    store.finish_run(rid, "answered", answer="555-0100")
    return rid


def test_a_one_step_answer_in_review(qtbot, store, panel):
    rid = one_step_answer(store)
    p = panel()
    p.show_run(rid)
    qtbot.waitUntil(lambda: p.viewer.run is not None and p.viewer.run["id"] == rid, timeout=5000)
    assert " · 1 step · " in p.viewer.header_line.fullText() and "1 steps" not in p.viewer.header.text()
    details = p.viewer.details.summary.toPlainText()
    assert "\nOutcome\nanswered\nURL after\n" in details
    assert "answered: answered" not in details


def test_a_one_step_answer_in_the_terminal(store, tmp_path):
    rid = one_step_answer(store)
    out = ok(cockpit(store.root, "runs", rid))
    assert "  outcome:  answered\n" in out and "answered: answered" not in out


def test_a_run_stopped_without_an_error_gives_no_empty_reason(qtbot, store, panel):
    rid = store.new_run(NewRun("Find the phone number", "https://shop.test/", model="m"))
    store.finish_run(rid, "stopped")
    other = store.new_run(NewRun("Find the address", "https://shop.test/", model="m"))
    store.finish_run(other, "failed", error="the browser went away")
    p = panel()
    p.show_run(rid)
    qtbot.waitUntil(lambda: p.viewer.run is not None and p.viewer.run["id"] == rid, timeout=5000)
    assert p.viewer.answer_line.fullText() == "Final answer: none (stopped: stopped by the user before the agent answered)"
    p.show_run(other)
    qtbot.waitUntil(lambda: p.viewer.run["id"] == other, timeout=5000)
    assert p.viewer.answer_line.fullText() == "Final answer: none (failed: the browser went away)"
