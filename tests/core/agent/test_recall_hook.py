"""The procedural memory hook alone: past successful runs in a real store, put after the task in the first
prompt."""
from cockpit.core.agent import events as ev
from cockpit.core.agent.config import AgentConfig
from cockpit.core.agent.hooks.recall import Recall
from cockpit.core.agent.procedural_memory import HEADER, used_memories
from cockpit.core.agent.start import Fresh
from cockpit.core.store.newrun import NewRun

TASK = "Find the opening hours of the castle museum in Riga"


def test_the_first_prompt_recalls_a_similar_successful_run_and_the_run_records_which(hook_run):
    run = hook_run(AgentConfig(memory_k=2), task=TASK)
    store = run.store
    done = {}
    for task, actions, answer in [("Riga castle museum opening hours", ["Click [2]", "Scroll [WINDOW]; down"],
                                   "10:00-18:00"),
                                  ("Order a blue kettle", ["Click [1]"], "ordered")]:
        rid = done[task] = store.new_run(NewRun(task, "http://127.0.0.1/"))
        for n, action in enumerate(actions + [f"ANSWER; {answer}"], 1):
            store.commit_step(rid, {"step": n, "action": action, "status": "ok" if n <= len(actions)
                                    else "answered", "actor": "agent"})
        store.finish_run(rid, "answered", answer=answer)

    hook = Recall(run.scope)
    hook.started(Fresh(TASK, "http://127.0.0.1/"))
    lead = hook.first_prompt("The task.")
    assert lead.startswith("The task.\n" + HEADER)
    assert "Click [2]" in lead and "Scroll [WINDOW]; down" in lead and "10:00-18:00" in lead
    assert "kettle" not in lead.lower()  # not similar: not recalled
    riga = done["Riga castle museum opening hours"]
    assert used_memories(store, run.scope.run_id) == [riga]
    assert [e.run_ids for e in run.of(ev.MemoriesUsed)] == [(riga,)]


def test_with_nothing_similar_the_prompt_is_unchanged_and_none_are_recorded(hook_run):
    run = hook_run(AgentConfig(memory_k=2), task=TASK)
    hook = Recall(run.scope)
    hook.started(Fresh(TASK, "http://127.0.0.1/"))
    assert hook.first_prompt("The task.") == "The task."
    assert used_memories(run.store, run.scope.run_id) == []
    assert [e.run_ids for e in run.of(ev.MemoriesUsed)] == [()]
