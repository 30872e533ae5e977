"""Multihop progress and procedural memory in the Live tab (offscreen Qt, real Chromium, real store)."""
import json

from PySide6.QtWidgets import QWidget

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun
from cockpit.ui.live.hop_strip import HopStrip
from tests.core.tasks.test_hops import TWO_HOPS, _museum_link
from tests.ui.windowtools import LONG

TASK = "Which year was the Old Castle built? Check its museum site."


def hop_agent(body):
    """Click the museum link on hop 1's page, scroll once on the museum page, then answer."""
    n = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if n == 0:
        return f"Thought: the museum site has the history.\nAction: Click [{_museum_link(body)}]"
    if n == 1:
        return "Thought: the history is further down.\nAction: Scroll [WINDOW]; down"
    return "Thought: it says 1291.\nAction: ANSWER; The castle was built in 1291."


def test_strip_states_and_hiding(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    strip = HopStrip(parent)
    parent.show()
    assert not strip.isVisible()  # nothing to show for an ordinary run
    strip.set_hops(["wiki", "museum", "shop"])
    assert strip.isVisible() and strip.chips.state() == ["current", "pending", "pending"]
    strip.pass_hop(1, 2)
    assert strip.chips.state() == ["passed", "current", "pending"]
    assert strip.chips.summary() == "hops 1/3" and "wiki ✓ step 2" in strip.chips.toolTip()
    strip.set_memories([("r1", "<b>Find</b> the castle")])
    assert strip.memories.text().startswith("Memory: 1 past run given as examples: “<b>Find</b> the castle”")
    assert strip.memories.textFormat() == strip.memories.textFormat().PlainText  # task text stays inert
    strip.clear()
    assert not strip.isVisible()


def test_a_two_hop_task_from_a_task_file_shows_its_hops_passing(qtbot, window, site, tmp_path):
    w = window
    tasks = tmp_path / "mmina.jsonl"
    tasks.write_text(json.dumps({"id": "hop-1", "task": TASK, "url": site.url("hop_1.html"), **TWO_HOPS}) + "\n")
    assert w.live.task_bar.load_file(tasks) == 1
    with ModelServer(hop_agent) as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model="m", max_retries=0, timeout=20)
        assert w.start_run()
        qtbot.waitUntil(lambda: w.live.hop_strip.isVisible(), timeout=LONG)
        assert w.live.hop_strip.chips.names == ["wiki", "museum"]
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert w.live.hop_strip.chips.state() == ["passed", "passed"]
    assert w.live.hop_strip.chips.passed_at == {1: 2, 2: 3}
    assert w.live.hop_strip.chips.summary() == "hops 2/2 — all hops passed"
    with Store(w.store_root) as s:
        run = s.run(w.runs.run_id)
    assert run["config"]["task_extra"]["procedure"] == ["wiki", "museum", "end"]  # the reference went with it
    assert run["status"] == "answered"

    # a typed task (not from the file) has no hops: the strip goes away
    w.live.task_bar.set_task("What is the title?", site.url("agent_details.html"))
    with ModelServer(lambda b: "Thought: read it\nAction: ANSWER; Details") as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model="m", max_retries=0, timeout=20)
        assert w.start_run()
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert not w.live.hop_strip.isVisible()


def test_memory_names_the_past_runs_given_as_examples(qtbot, window, site):
    w = window
    with Store(w.store_root) as s:  # a past successful run of a similar task
        past = s.new_run(NewRun("Which year was the New Castle built?", site.url("hop_1.html")))
        s.commit_step(past, {"step": 1, "url": site.url("hop_1.html"), "title": "t", "status": "ok",
                             "action": "ANSWER; 1450", "thought": "it says so", "reply": "", "outcome": ""})
        s.finish_run(past, "answered", answer="1450")
    w.toolbar.memory.setValue(1)
    w.live.task_bar.set_task(TASK, site.url("hop_1.html"))
    seen = []

    def agent(body):
        seen.append(body["messages"][1]["content"][0]["text"])
        return "Thought: done\nAction: ANSWER; 1291"
    with ModelServer(agent) as srv:
        w.settings.model = ModelConfig(base_url=srv.base_url, model="m", max_retries=0, timeout=20)
        assert w.start_run()
        qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    assert w.live.hop_strip.isVisible() and not w.live.hop_strip.chips.isVisible()
    assert "New Castle" in w.live.hop_strip.memories.text() and past[:12] in w.live.hop_strip.memories.text()
    assert "ANSWER; 1450" in seen[0]  # the example really went to the model
    assert w.settings.memory_k == 1
