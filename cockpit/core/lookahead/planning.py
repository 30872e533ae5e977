"""Model-based planning (WebDreamer's MPC): propose, refine, simulate, score, pick.

At a step in planning mode the agent's model proposes up to k different
candidate actions in one reply; the same model drops the irrelevant ones
(self-refinement); the world model (:mod:`cockpit.core.lookahead.worldmodel`) simulates
each remaining candidate for `horizon` imagined steps; a scorer rates each
simulated future complete (1.0), on track (0.5) or incorrect (0), averaged
over `samples` replies; the best mean wins, ties going to the candidate the
policy listed first.

Nothing here runs an action. The loop executes the chosen candidate through
its usual risk classification and approval gate, so an irreversible
candidate is only ever simulated, never tried. Calls beyond the proposal
(refine, simulate, score) are counted in :class:`Cost`, apart from the
agent's own.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Callable

from cockpit.core import resources
from cockpit.core.actions.grammar import Action
from cockpit.core.errors import CockpitError
from cockpit.core.llm import prompt
from cockpit.core.llm.client import ChatResult, ModelCancelled, ModelClient, ModelError
from cockpit.core.lookahead.worldmodel import Page, WorldModel, WorldModelConfig
from cockpit.core.safety.redaction import scrub

SCORES = {"complete": 1.0, "on track": 0.5, "incorrect": 0.0}
MAX_K, MAX_HORIZON, MAX_SAMPLES = 8, 5, 10


@dataclass
class PlanningConfig:
    k: int = 3  # candidates asked for
    horizon: int = 1  # simulated steps per candidate (WebDreamer: 1 works best)
    samples: int = 1  # scorer replies averaged per candidate
    refine: bool = True  # let the agent's model drop irrelevant candidates first
    world: WorldModelConfig | None = None  # simulate and score with this; None: the preview model, else the agent's

    def __post_init__(self):
        for name, lo, hi in (("k", 1, MAX_K), ("horizon", 1, MAX_HORIZON), ("samples", 1, MAX_SAMPLES)):
            v = getattr(self, name)
            if not isinstance(v, int) or not lo <= v <= hi:
                raise CockpitError(f"planning {name} must be a whole number from {lo} to {hi}, not {v!r}")

    def to_dict(self) -> dict:
        d = {"k": self.k, "horizon": self.horizon, "samples": self.samples, "refine": self.refine}
        if self.world is not None:
            d["world"] = self.world.to_dict()
        return d


@dataclass
class Cost:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0

    def add(self, r: ChatResult) -> None:
        self.calls += 1
        self.prompt_tokens += r.prompt_tokens
        self.completion_tokens += r.completion_tokens
        self.seconds += r.seconds
        if r.cost is not None:
            self.cost = (self.cost or 0.0) + r.cost

    def to_dict(self) -> dict:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost": self.cost, "seconds": round(self.seconds, 3)}


@dataclass
class Candidate:
    index: int  # 1-based, in the order the policy gave them
    thought: str
    action_text: str  # as records show it (text typed into secret fields masked)
    action: Action | None = None  # the real action; never serialized
    kept: bool = True
    dropped: str = ""  # why not simulated: unparsable, duplicate, refined away
    risk: str = ""  # filled in by the loop (risk.classify on the page)
    simulation: list[dict] = field(default_factory=list)  # [{"action", "change"}], one per simulated step
    verdicts: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float | None:
        return sum(self.scores) / len(self.scores) if self.scores else None

    @property
    def predicted(self) -> str:
        """The forecast of this candidate's own effect (the first simulated step)."""
        return self.simulation[0]["change"] if self.simulation else ""

    def to_dict(self) -> dict:
        return {"index": self.index, "thought": self.thought, "action": self.action_text, "kept": self.kept,
                "dropped": self.dropped, "risk": self.risk, "simulation": list(self.simulation),
                "verdicts": list(self.verdicts), "scores": list(self.scores), "mean": self.mean}


@dataclass
class PlanResult:
    candidates: list[Candidate]
    chosen: int | None = None  # a candidate's index; None: no usable candidate
    k: int = 3
    horizon: int = 1
    samples: int = 1
    raw: str = ""  # the policy's reply listing the candidates
    refine_reply: str = ""
    note: str = ""  # why planning short-cut or fell back
    picked_by: str = "planner"  # or "human:<name>" when the human chose another candidate
    cost: Cost = field(default_factory=Cost)  # refine + simulate + score; the proposal is the agent's call
    policy: ChatResult | None = None  # the proposal call; not serialized

    def candidate(self, index: int | None) -> Candidate | None:
        return next((c for c in self.candidates if c.index == index), None)

    @property
    def best(self) -> Candidate | None:
        return self.candidate(self.chosen)

    def to_dict(self) -> dict:
        return {"k": self.k, "horizon": self.horizon, "samples": self.samples, "chosen": self.chosen,
                "picked_by": self.picked_by, "note": self.note, "raw": self.raw,
                "refine_reply": self.refine_reply, "cost": self.cost.to_dict(),
                "candidates": [c.to_dict() for c in self.candidates]}


# ---------- parsing ----------
_HEAD = re.compile(r"(?im)^[ \t*#_>`]*candidate\s*#?\s*(\d+)\s*[:.)\-]?[ \t*_`]*")
_THOUGHT_LINE = re.compile(r"(?im)^[ \t*#_>`]*thoughts?\s*[:：]")
_KEEP = re.compile(r"(?im)^[ \t*_`]*keep\s*[:：]\s*(.*)$")
_VERDICT = re.compile(r"(?i)verdict\s*[:：]?[\s*_`\"']*(complete|on[\s-]*track|incorrect)")
_WORD = re.compile(r"(?i)\b(complete|on[\s-]*track|incorrect)\b")


def split_candidates(text: str) -> list[str]:
    """The blocks of a candidates reply: by 'Candidate N:' headings, else by Thought lines, else one."""
    text = text or ""
    heads = list(_HEAD.finditer(text))
    if heads:
        return [text[h.end():(heads[i + 1].start() if i + 1 < len(heads) else len(text))].strip()
                for i, h in enumerate(heads)]
    starts = [m.start() for m in _THOUGHT_LINE.finditer(text)]
    if len(starts) > 1:
        return [text[s:(starts[i + 1] if i + 1 < len(starts) else len(text))].strip() for i, s in enumerate(starts)]
    return [text.strip()] if text.strip() else []


def parse_candidates(text: str, k: int, page: Page) -> list[Candidate]:
    """Up to k candidates; unparsable ones and repeats are kept in the list but marked dropped."""
    out: list[Candidate] = []
    seen: dict[str, int] = {}
    for i, block in enumerate(split_candidates(text)[:k], 1):
        parsed = prompt.parse_reply(block)
        if parsed.action is None:
            out.append(Candidate(i, parsed.thought, parsed.action_text, None, kept=False,
                                 dropped=f"unparsable: {parsed.error}"))
            continue
        key = str(parsed.action)
        c = Candidate(i, parsed.thought, page.shown(parsed.action), parsed.action)
        if key in seen:
            c.kept, c.dropped = False, f"same action as candidate {seen[key]}"
        else:
            seen[key] = i
        out.append(c)
    return out


def parse_keep(text: str, valid: set[int]) -> set[int]:
    """The candidate numbers a refine reply keeps (empty: unreadable)."""
    m = list(_KEEP.finditer(text or ""))
    if not m:
        return set()
    return {int(n) for n in re.findall(r"\d+", m[-1].group(1))} & valid


def parse_verdict(text: str) -> str:
    """'complete', 'on track', 'incorrect', or '' when the reply holds none."""
    m = list(_VERDICT.finditer(text or "")) or list(_WORD.finditer((text or "").strip().splitlines()[-1]
                                                                   if (text or "").strip() else ""))
    if not m:
        return ""
    word = re.sub(r"[\s-]+", " ", m[-1].group(1).lower())
    return word


# ---------- the planner ----------
class Planner:
    """One step's plan. `propose(messages)` makes the agent's candidates call (the loop passes its own
    retrying call); `policy` refines; `world` simulates; `scorer` (default: the world model's client) scores."""

    def __init__(self, config: PlanningConfig, policy: ModelClient, world: WorldModel, *,
                 scorer: ModelClient | None = None,
                 propose: Callable[[list[dict]], ChatResult] | None = None,
                 cancel: threading.Event | None = None):
        self.config = config
        self.policy = policy
        self.world = world
        self.scorer = scorer or world.client
        self.cancel = cancel
        self.propose = propose or (lambda msgs: policy.chat(msgs, cancel=cancel))

    def plan(self, messages: list[dict], page: Page) -> PlanResult:
        """Propose from the conversation `messages` (as sent to the agent's model), then rank."""
        cfg = self.config
        proposal = self.propose(with_instruction(messages, instruction(cfg.k)))
        res = PlanResult(parse_candidates(proposal.text, cfg.k, page), k=cfg.k, horizon=cfg.horizon,
                         samples=cfg.samples, raw=proposal.text, policy=proposal)
        kept = [c for c in res.candidates if c.kept]
        if not kept:
            res.note = "no usable candidate in the reply"
            return res
        try:
            if cfg.refine and len(kept) > 1:
                kept = self.refine(res, page, kept)
            if len(kept) == 1:
                res.chosen = kept[0].index
                res.note = res.note or "one candidate left: nothing to compare"
                return res
            for c in kept:
                self.simulate(res, page, c)
                self.score(res, page, c)
        except ModelCancelled:
            raise
        except ModelError as e:  # a failing world model must not stop the agent: act as it proposed
            res.note = f"planning failed ({e}); the first candidate runs"
            res.chosen = kept[0].index
            return res
        res.chosen = max(kept, key=lambda c: (c.mean or 0.0, -c.index)).index
        return res

    # ---- stages ----
    def _call(self, res: PlanResult, client: ModelClient, system: str, text: str) -> ChatResult:
        r = client.chat([{"role": "system", "content": system}, {"role": "user", "content": text}],
                        cancel=self.cancel)
        res.cost.add(r)
        return r

    def refine(self, res: PlanResult, page: Page, kept: list[Candidate]) -> list[Candidate]:
        # secrets typed earlier stay out of the history, here too
        listing = "\n".join(f"{c.index}. Thought: {scrub(c.thought, page.secrets)}\n   Action: {c.action_text}"
                            f"{page.target_text(c.action)}" for c in kept)
        text = (f"The agent's task: {page.task}\nThe page: {page.title!r} at {page.url}\n"
                f"Its numbered elements:\n{page.elements}\n\nThe candidate next actions:\n{listing}\n\n"
                "Which candidates should be kept?")
        r = self._call(res, self.policy, resources.read_text("prompts/plan_refine_system.txt"), text)
        res.refine_reply = r.text
        keep = parse_keep(r.text, {c.index for c in kept})
        if not keep:
            res.note = "the refine reply kept nothing readable; all candidates were simulated"
            return kept
        for c in kept:
            if c.index not in keep:
                c.kept, c.dropped = False, "judged irrelevant (self-refine)"
        return [c for c in kept if c.kept]

    def simulate(self, res: PlanResult, page: Page, c: Candidate) -> None:
        history: list[tuple[str, str]] = []
        action = c.action
        for depth in range(self.config.horizon):
            if action is None:
                break
            shown = page.shown(action)
            if action.kind == "answer":  # the run would end here: nothing on the page changes
                history.append((shown, f"The agent stops and gives its final answer: {action.text}"))
                break
            if depth == 0:
                change, r = self.world.predict(page, action, cancel=self.cancel)
            else:
                change, r = self.world.predict_after(page, history, action, cancel=self.cancel)
            res.cost.add(r)
            history.append((shown, change))
            if depth + 1 < self.config.horizon:
                action, r = self.world.imagine_next(page, history, cancel=self.cancel)
                res.cost.add(r)
        c.simulation = [{"action": a, "change": ch} for a, ch in history]

    def score(self, res: PlanResult, page: Page, c: Candidate) -> None:
        steps = "\n".join(f"{i}. Action: {s['action']}{page.target_text(c.action) if i == 1 else ''}\n"
                          f"   Forecast: {s['change']}" for i, s in enumerate(c.simulation, 1))
        text = (f"The agent's task: {page.task}\nThe page it is on now: {page.title!r} at {page.url}\n\n"
                f"The simulated future:\n{steps or '(nothing could be simulated)'}\n\n"
                "How far does this future bring the task?")
        system = resources.read_text("prompts/plan_score_system.txt")
        for _ in range(self.config.samples):
            verdict = parse_verdict(self._call(res, self.scorer, system, text).text)
            c.verdicts.append(verdict or "unreadable")
            c.scores.append(SCORES.get(verdict, 0.0))


def instruction(k: int) -> str:
    return resources.read_text("prompts/plan_candidates.txt").replace("{k}", str(k)).strip()


def with_instruction(messages: list[dict], text: str) -> list[dict]:
    """The conversation with `text` added to its last user turn (some servers' chat templates refuse
    two user turns in a row)."""
    msgs = list(messages)
    last = msgs[-1] if msgs else None
    if last is not None and last.get("role") == "user":
        c = last.get("content")
        content = f"{c}\n\n{text}" if isinstance(c, str) else [*(c or []), {"type": "text", "text": text}]
        msgs[-1] = dict(last, content=content)
    else:
        msgs.append({"role": "user", "content": text})
    return msgs

