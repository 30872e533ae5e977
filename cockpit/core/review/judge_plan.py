"""What a judging pass will do, before any model call: each run's judgement to fill (:class:`RunJudgement`,
in a :class:`JudgeReport`), which verdicts are already stored (skipped unless redone), which reference checks
remain, and whether a model is needed at all."""
from __future__ import annotations

from dataclasses import dataclass, field

from cockpit.core.errors import CockpitError
from cockpit.core.llm.modelconfig import ModelConfig
from cockpit.core.review import webjudge_prompt
from cockpit.core.review.judge_prompt import (
    EXACT,
    FUZZY_VERSION,
    INCLUDE,
    PROMPT_VERSION,
    REF_VERSION,
    final_answer,
    fuzzy_judge_name,
)
from cockpit.core.store import Store, labels
from cockpit.core.tasks.references import References, references_of

WEBVOYAGER, WEBJUDGE = "webvoyager", "webjudge"
PROTOCOLS = (WEBVOYAGER, WEBJUDGE)
#: The prompt version each protocol's verdicts are stored with.
VERSIONS = {WEBVOYAGER: PROMPT_VERSION, WEBJUDGE: webjudge_prompt.PROMPT_VERSION}


@dataclass
class RunJudgement:
    """What happened to one run in :func:`judge_runs`.

    verdict: the judge model's verdict (new or already stored): 1, 0, or None
        when undecided, not judged (reference-only, error) or cancelled.
    skipped: the judge verdict was already stored and was not asked again.
    references: check name ("exact_match", ...) -> 1 / 0 / None.
    why: when the judge was asked and its verdict is undecided, why (in words).
    """

    run_id: str
    verdict: int | None = None
    judged: bool = False
    skipped: bool = False
    asked: bool = False  # a request went to the judge model for the main verdict
    references: dict[str, int | None] = field(default_factory=dict)
    error: str | None = None
    done: bool = False
    why: str = ""  # an undecided verdict: why the judge's reply decided nothing (no final status, unreadable...)
    by_rule: bool = False  # the verdict is the rule's (no answer: not success), the judge was not asked


@dataclass
class JudgeReport:
    total: int = 0
    runs: dict[str, RunJudgement] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # run id -> message
    cancelled: bool = False
    requests: int = 0  # model requests that got an answer
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # USD, over calls whose price is known; None when none is
    seconds: float = 0.0

    @property
    def done(self) -> int:
        return sum(1 for r in self.runs.values() if r.done)

    @property
    def skipped(self) -> list[str]:
        return [r.run_id for r in self.runs.values() if r.skipped]

    def by_rule(self) -> int:
        """Runs of the finished ones scored not success by the rule (no answer), not by the judge; counts() has
        them among "not" (walkthrough 9: "not 12" read as the judge's when 11 of them were the rule's)."""
        return sum(1 for r in self.runs.values() if r.judged and r.by_rule)

    def counts(self) -> dict[str, int]:
        """Judge verdicts of the finished runs: success / not / undecided / errors."""
        out = {"success": 0, "not": 0, "undecided": 0, "errors": len(self.errors)}
        for r in self.runs.values():
            if r.judged:
                out["success" if r.verdict == 1 else "not" if r.verdict == 0 else "undecided"] += 1
        return out


@dataclass
class PlannedRun:
    result: RunJudgement
    run: dict
    main: bool  # ask (or score) the judge verdict
    refs: References | None
    checks: list[str]  # reference checks still to do


def _stored(store: Store, judge: str) -> dict[tuple[str, int, str], int | None]:
    return {(v["run_id"], v["k"], v["prompt_version"]): v["verdict"] for v in labels.verdicts(store, judge=judge)}


def plan(store: Store, run_ids: list[str], config: ModelConfig, k: int, redo: bool,
          reference_only: bool, report: JudgeReport, protocol: str = WEBVOYAGER) -> list[PlannedRun]:
    main_done = {} if reference_only else _stored(store, config.model)
    ref_done = {name: _stored(store, name) for name in (EXACT, INCLUDE, fuzzy_judge_name(config.model))}
    versions = {"exact_match": (EXACT, REF_VERSION), "must_include": (INCLUDE, REF_VERSION),
                "fuzzy_match": (fuzzy_judge_name(config.model), FUZZY_VERSION)}
    items = []
    for run_id in dict.fromkeys(run_ids):  # each once, in order
        res = report.runs[run_id] = RunJudgement(run_id)
        try:
            run = store.run(run_id)
        except CockpitError as e:
            res.error = report.errors[run_id] = str(e)
            res.done = True
            continue
        if run.get("status") == "running":
            res.error = report.errors[run_id] = "the run is still running; judge it when it has finished"
            res.done = True
            continue
        main = not reference_only
        key = (run_id, k, VERSIONS[protocol])
        if main and not redo and key in main_done:
            main, res.skipped, res.judged, res.verdict = False, True, True, main_done[key]
            res.by_rule = protocol == WEBVOYAGER and res.verdict == 0 and final_answer(run) is None
        refs = references_of(run.get("config"))
        checks = []
        for check in refs.checks if refs else []:
            judge, version = versions[check]
            if redo or (run_id, 0, version) not in ref_done[judge]:
                checks.append(check)
            else:
                res.references[check] = ref_done[judge][(run_id, 0, version)]
        items.append(PlannedRun(res, run, main, refs, checks))
    return items


def needs_model(items: list[PlannedRun], protocol: str = WEBVOYAGER) -> bool:
    if protocol == WEBJUDGE and any(it.main for it in items):
        return True  # it asks about every run, answered or not
    for it in items:
        answered = final_answer(it.run) is not None
        if answered and (it.main or "fuzzy_match" in it.checks):
            return True
    return False
