"""Which step hooks a run gets: the ones its settings ask for, in the order the loop calls them."""
from cockpit.core.agent.breakpoints import Breakpoint
from cockpit.core.agent.config import AgentConfig
from cockpit.core.agent.hooks import for_run
from cockpit.core.agent.hooks.base import StepHook
from cockpit.core.llm.client import ModelConfig
from cockpit.core.lookahead.worldmodel import WorldModelConfig
from cockpit.core.tasks.hops import tracker_for

HOPS = {"cnt_hop": 1, "procedure": ["wiki", "end"],
        "eval": [{"reference_answers": {"must_include": ["1291"]}}]}


def names(hooks) -> list[str]:
    return [type(h).__name__ for h in hooks]


def test_every_run_is_fenced_and_keeps_its_breakpoints_the_rest_only_when_asked_for(hook_run):
    plain = for_run(hook_run(AgentConfig()).scope)
    assert names(plain) == ["NavFence", "Breakpoints", "WebRecord"]  # breakpoints may be added while it goes
    assert names(for_run(hook_run(AgentConfig(record_web=False)).scope)) == ["NavFence", "Breakpoints"]

    wm = WorldModelConfig(ModelConfig(base_url="http://127.0.0.1:9/v1", model="wm"), api_key="k")
    full = AgentConfig(hops=tracker_for(HOPS), memory_k=1, preview=wm, breakpoints=[Breakpoint("loop")])
    hooks = for_run(hook_run(full).scope)
    assert names(hooks) == ["NavFence", "Multihop", "Recall", "Lookahead", "Breakpoints", "WebRecord"]
    assert all(isinstance(h, StepHook) for h in hooks)
    assert for_run(hook_run(full).scope)[1] is not hooks[1]  # each run its own (a hop queue per run)
