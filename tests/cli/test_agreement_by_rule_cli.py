"""`cockpit agreement` and the verdicts a judge never gave (walkthrough 10, B4): a run that gave no answer is scored
not success by rule, without asking the judge. A judge whose replies could never be read was shown at 100 % and
kappa 1.000 over such a verdict. The rule's verdicts are now counted apart ("by rule"), and a judge's figures are
computed on its own verdicts only, in the table, the JSON and the window alike (one core computation).

A real store, the real `cockpit judge` against the scripted model server on 127.0.0.1 (the only stand-in), the
real `cockpit agreement` process; what is read is what it prints.
"""
import json

from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from testkit.fakeruns import make_run
from tests.clitools import cockpit, ok

UNREADABLE = "standin-vl-7b"
READABLE = "judge-b"
#: answered runs: (task, humans' verdict, what the readable judge replies)
ANSWERED = [("T1-find", "success", "SUCCESS"), ("T2-find", "success", "NOT SUCCESS"),
            ("T3-find", "fail", "NOT SUCCESS"), ("T4-find", "fail", "NOT SUCCESS")]


def answer_as_judge(body) -> Reply:
    if body["model"] == UNREADABLE:
        return Reply(text="I cannot make out the screenshots.")  # neither SUCCESS nor NOT SUCCESS
    text = json.dumps(body)
    for task, _, reply in ANSWERED:
        if task in text:
            return Reply(text=f"The page shows it.\n{reply}")
    raise AssertionError("a run without an answer was shown to the judge")


def judged_store(home) -> list[str]:
    """Four answered runs and two that gave no answer, each labelled by two annotators; both judges run on all."""
    with Store(home) as store:
        for task, human, _ in ANSWERED:
            rid = make_run(store, steps=2, task=task)
            for who in ("ada", "bob"):
                L.set_label(store, rid, who, human)
        idle = [make_run(store, steps=2, task=f"T{i}-idle", answer=None, status="max_steps") for i in (5, 6)]
        for rid in idle:
            for who in ("ada", "bob"):
                L.set_label(store, rid, who, "fail")
    with ModelServer(answer_as_judge) as srv:
        for judge in (UNREADABLE, READABLE):
            ok(cockpit(home, "judge", "--no-canary", "--all", "--model", judge, "--base-url", srv.base_url,
                       "--k", "3"))
    return idle


def judge_line(out: str, judge: str) -> list[str]:
    table = out.split("Judges vs human consensus", 1)[1].split("Confusion matrices", 1)[0]
    [line] = [l for l in table.splitlines() if l.split()[:2] == [judge, "3"]]
    return line.split()


def test_verdicts_by_rule_are_apart_and_no_agreement_without_a_verdict_of_its_own(tmp_path):
    home = tmp_path / "home"
    judged_store(home)
    out = ok(cockpit(home, "agreement", "--resamples", "0"))
    # the unreadable judge: 4 undecided, 2 by rule (both as the humans say), no figure at all
    words = judge_line(out, UNREADABLE)
    assert words[3:] == ["0", "-", "-", "4", "2", "no", "verdict", "of", "its", "own"], out
    assert "100.0%" not in " ".join(words) and "1.000" not in " ".join(words)
    # the readable judge: kappa over its own 4 verdicts (75 %, 0.500), not over 6 with the rule's zeros (0.571)
    words = judge_line(out, READABLE)
    assert words[3:8] == ["4", "75.0%", "0.500", "0", "2"], out
    assert f"2 verdicts by rule for {UNREADABLE} k=3 cockpit-judge-1, 2 of them as the humans say" in out
    assert "left out of its n, agreement, kappa" in out


def test_json_carries_the_same_split(tmp_path):
    home = tmp_path / "home"
    judged_store(home)
    rep = json.loads(ok(cockpit(home, "agreement", "--json", "--resamples", "0")))
    rows = {r["judge"]: r for r in rep["judges"]}
    bad, good = rows[UNREADABLE], rows[READABLE]
    assert (bad["n"], bad["agreement"], bad["kappa"], bad["undecided"]) == (0, None, None, 4)
    assert (bad["automatic"], bad["automatic_agreeing"]) == (2, 2)
    assert (good["n"], good["agreement"], good["kappa"], good["automatic"]) == (4, 0.75, 0.5, 2)
    assert (good["tp"], good["fn"], good["fp"], good["tn"]) == (1, 1, 0, 2)  # the rule's two zeros not in tn
    after = {r["judge"]: r for r in rep["adjudication"]["judges"]}
    assert (after[UNREADABLE]["n"], after[READABLE]["kappa"]) == (0, 0.5)
