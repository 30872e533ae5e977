"""An agent's settings (:class:`AgentConfig`) and what a run comes to (:class:`RunResult`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from cockpit.core.agent.approval import POLICIES
from cockpit.core.agent.breakpoints import Breakpoint
from cockpit.core.errors import CockpitError
from cockpit.core.lookahead.planning import PlanningConfig
from cockpit.core.lookahead.worldmodel import WorldModelConfig
from cockpit.core.safety import navguard
from cockpit.core.safety.risk import SiteRule
from cockpit.core.tasks.hops import HopTracker


@dataclass
class AgentConfig:
    max_steps: int = 15
    keep_images: int = 3  # screenshots attached to each request (WebVoyager: 3)
    approval_policy: str = "irreversible"  # see approval.POLICIES
    wait_seconds: float = 5.0  # what the Wait action waits
    dialog_policy: str = "dismiss"
    risk_rules: list[SiteRule] = field(default_factory=list)
    demo: bool = False  # the model is Cockpit's rule-based demo policy
    breakpoints: list[Breakpoint] = field(default_factory=list)  # may be edited while the run goes
    # step hooks (cockpit.core.agent.hooks): multihop, procedural memory, navigation fence, look-ahead
    hops: HopTracker | None = None  # a template (hops.tracker_for(task.extra)); each run tracks a fresh copy
    memory_k: int = 0  # > 0: the K most similar past successful runs go into the first prompt
    allowed_domains: list[str] = field(default_factory=list)  # the navigation fence; empty = any host
    preview: WorldModelConfig | None = None  # predict each action's effect before the gate
    planning: PlanningConfig | None = None  # rank k candidates by simulated outcome (WebDreamer)
    record_web: bool = True  # the web archive: every request, each step's page (agent/hooks/webrecord.py)

    def __post_init__(self):
        self.allowed_domains = list(navguard.parse_domains(self.allowed_domains))
        if self.approval_policy not in POLICIES:
            raise CockpitError(f"unknown approval policy {self.approval_policy!r}; use one of {', '.join(POLICIES)}")
        if self.max_steps < 1:
            raise CockpitError("max steps must be at least 1")

    def to_dict(self) -> dict:
        d = {"max_steps": self.max_steps, "keep_images": self.keep_images,
             "approval_policy": self.approval_policy, "wait_seconds": self.wait_seconds,
             "dialog_policy": self.dialog_policy, "risk_rules": len(self.risk_rules), "demo": self.demo}
        if not self.record_web:
            d["record_web"] = False
        if self.memory_k:
            d["memory_k"] = self.memory_k
        if self.allowed_domains:
            d["allowed_domains"] = list(self.allowed_domains)
        if self.preview is not None:
            d["preview"] = self.preview.to_dict()
        if self.planning is not None:
            d["planning"] = self.planning.to_dict()
        return d


@dataclass
class RunResult:
    run_id: str
    status: str  # answered, max_steps, stopped, failed
    answer: str | None = None
    steps: int = 0
    error: str = ""
    lost_browser: bool = False  # failed because the browser (or its Grid node or hub) went away

