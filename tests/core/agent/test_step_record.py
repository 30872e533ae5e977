"""Issue #40 item 3: the agent writes each step as the store's typed step record (records.Step), and the
rows a real run stores are what they were when the agent wrote an untyped dict: the same columns hold
something, with the same values (a column left out keeps the schema's default: actor 'agent', plan_* 0)."""
import ast
import time
from dataclasses import fields
from pathlib import Path

import pytest

from cockpit.core.agent.approval import PolicyApprover, ScriptedApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.agent.step import Step
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import records
from testkit.pixelmodel import Move, PixelModel
from tests.models import last_user_text, mark_for, model_client

AGENT = Path(__file__).resolve().parents[3] / "cockpit" / "core" / "agent"
FIELDS = {f.name for f in fields(records.Step)}


def test_the_record_refuses_a_field_it_does_not_have():
    st = Step(1, time.time())
    st.write(status="ok", outcome="clicked")
    assert (st.record.status, st.record.outcome) == ("ok", "clicked")
    with pytest.raises(TypeError):
        st.write(outcom="clicked")  # a misspelt column is an error, not a new key nobody reads
    with pytest.raises(TypeError):
        records.Step().but(request=[])  # the messages sent go to the store beside the record, not in it
    assert st.record.outcome == "clicked"


def _writes(tree: ast.AST):
    """(line, name) of every field the code writes on a step record: st.write(name=...), x.but(name=...)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr == "but" or node.func.attr == "write" and getattr(node.func.value, "id", "") == "st"):
            for kw in node.keywords:
                if kw.arg is not None:
                    yield node.lineno, kw.arg


def test_every_field_the_agent_writes_is_one_the_record_has():
    """Also on paths no test runs: every named write in the agent loop and its hooks is a field of the record,
    and no step is written as a dict any more (st.row)."""
    unknown, untyped, seen = [], [], 0
    for path in sorted(AGENT.rglob("*.py")):
        source = path.read_text()
        for line, name in _writes(ast.parse(source)):
            seen += 1
            if name not in FIELDS:
                unknown.append(f"{path.name}:{line}: {name}")
        untyped += [f"{path.name}: st.row" for _ in range(source.count("st.row"))]
    assert seen > 30 and unknown == [] and untyped == []


def _marks_model(body):
    """Open the details, order a copy, place the order (refused by the run's policy), then answer."""
    text = last_user_text(body)
    if "Your last action was refused" in text:
        return "Thought: refused\nAction: ANSWER; stopped"
    for label in ("Open the details page", "Order a copy", "Place order"):
        try:
            return f"Thought: go on\nAction: Click [{mark_for(body, label)}]"
        except AssertionError:
            continue
    return "Thought: lost\nAction: ANSWER; lost"


def _filled(step: dict) -> set[str]:
    """The columns of a stored step that hold something (NULL ones left out), its messages sent aside."""
    return {k for k, v in step.items() if v is not None and k != "request"}


ALWAYS = {"run_id", "step", "url", "title", "actor", "screenshot", "screenshot_clean", "marks_file", "n_marks",
          "reply", "thought", "action_text", "action", "risk", "evidence", "status", "prompt_tokens",
          "completion_tokens", "model_seconds", "attempts", "started", "finished", "timings",
          "plan_calls", "plan_prompt_tokens", "plan_completion_tokens"}


def test_a_marks_step_and_a_refused_step_are_stored_as_before(agent_for, site, store):
    with ModelServer(_marks_model) as srv:
        agent = agent_for(srv, approver=PolicyApprover(False), config=AgentConfig(wait_seconds=0.2))
        result = agent.run(Fresh("Order a copy", site.url("agent_start.html")))
    assert result.status == "refused"
    rows = store.steps(result.run_id)
    assert [r["status"] for r in rows] == ["ok", "ok", "refused", "answered"]
    clicked, refused = rows[0], rows[2]

    assert _filled(clicked) == ALWAYS | {"target", "outcome", "url_after", "effect", "flags"}
    assert clicked["actor"] == "agent" and clicked["action"] == f"Click [{clicked['target']}]"
    assert clicked["risk"] == "read-only" and clicked["evidence"] == [
        'following the link "/agent_details.html" only opens a page (a GET)']
    assert clicked["url_after"].endswith("agent_details.html") and clicked["n_marks"] > 0
    assert (clicked["plan_calls"], clicked["plan_prompt_tokens"], clicked["plan_completion_tokens"]) == (0, 0, 0)
    assert {"observe_ms", "model_ms", "act_ms", "observe"} <= set(clicked["timings"])
    assert "store_ms" not in clicked["timings"]  # measured once the row is stored: never in it
    assert clicked["flags"] == []  # the next step's look at what the click changed (Store.update_step)

    assert _filled(refused) == ALWAYS | {"target", "outcome", "decision"}
    assert refused["risk"] == "irreversible" and refused["evidence"]
    assert refused["outcome"].startswith("refused by policy: ")
    assert refused["decision"] == {"approved": False, "by": "policy:deny", "message": refused["decision"]["message"],
                                   "edited_action": None}
    assert [d["approved"] for d in store.decisions(result.run_id)] == [0]
    run = store.run(result.run_id)
    assert (run["plan_calls"], run["plan_prompt_tokens"], run["plan_cost"]) == (0, 0, None)


def test_a_pixel_step_is_stored_as_before(browser, store, site):
    model = PixelModel(browser, [Move("click", "#press"), Move("answer", text="reserved")], "plain", "pixels")
    with ModelServer(model) as srv, model_client(srv, model="pixel-test", timeout=20, dialect="plain",
                                                 coords="pixels", image_format="png") as client:
        agent = Agent(browser, client, store, approver=ScriptedApprover([]),
                      config=AgentConfig(max_steps=3, wait_seconds=0.1))
        result = agent.run(Fresh("reserve", site.url("pixel_shop.html")))
    assert result.status == "answered"
    pressed, answered = store.steps(result.run_id)

    assert _filled(pressed) == ALWAYS | {"outcome", "url_after", "pointer", "effect", "flags"}
    assert pressed["target"] is None and pressed["action"].startswith("Click (")
    assert {"mode": "pixels", "dialect": "plain"}.items() <= pressed["pointer"].items()
    assert "Hold to highlight" in pressed["pointer"]["resolved"]["text"]
    assert _filled(answered) == ALWAYS | {"outcome", "pointer"}
    assert (answered["status"], answered["outcome"], answered["actor"]) == ("answered", "answered", "agent")
    for row in (pressed, answered):  # nothing the look-ahead, the hops or a person writes
        assert (row["note"], row["hops"], row["prediction"], row["plan"], row["plan_cost"]) == (None,) * 5
