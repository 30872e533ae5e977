"""What became of the runs: each run's success and where it came from (:func:`run_outcomes`), success rates
by site or model, autonomous against assisted success, failure categories and the steps histogram. Plain data
for ``cockpit agreement`` and the Reports tab (whose agreement figures are :mod:`cockpit.core.review.agreement`)."""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from cockpit.core.review import canary_audit
from cockpit.core.review import interventions as IV
from cockpit.core.review.consensus import adjudicated_consensus, not_executable
from cockpit.core.store.labels import CATEGORIES
from cockpit.core.store.labels import labels as _labels
from cockpit.core.store.labels import verdicts as _verdicts
from cockpit.core.store.newrun import HUMAN


def ratio(a: int, b: int) -> float | None:
    """a / b, or None when b is 0 (nothing to take a rate over)."""
    return a / b if b else None


def runs_by_id(store) -> dict[str, dict]:
    """The store's run summaries by run id (people's own attempts too)."""
    return {r["id"]: r for r in store.run_summaries()}


def agent_runs(store) -> dict[str, dict]:
    """The agents' run summaries by run id: :func:`runs_by_id` without people's own attempts (model ``human``),
    which are not the agents' successes or failures."""
    return {rid: r for rid, r in runs_by_id(store).items() if r["model"] != HUMAN}


def run_outcomes(store, people: bool = False, distrust: frozenset = frozenset()) -> dict[str, tuple[int | None, str]]:
    """Each finished agent run's success (1/0, or None when unknown) and where it came from; with `people`, people's
    own attempts (model ``human``) too. The verdicts of the judges in `distrust` (``(judge, k, prompt_version)``
    keys: the judges the canaries flagged, :func:`flagged_judges`) are not counted, as if never given.

    Sources, in order of preference: 'human' (the consensus, or the adjudicated verdict where
    there is one: :func:`adjudicated_consensus`), 'not_executable' (the annotators' consensus is that the task
    could not be attempted: ``(None, 'not_executable')`` whatever a judge says, never a failure), 'judge' (the newest
    decided judge verdict, any judge and k), 'no_answer' (the run ended without an
    ANSWER: status max_steps, stopped, failed, interrupted or closed, which
    WebVoyager scores 0). An answered run nobody has judged is ``(None,
    'unjudged')``: an answer alone is not a success. A run stopped at the approval
    gate (status refused) that nobody judged is ``(None, 'refused')``: a person, not
    the agent, ended it, so it counts neither way. Runs still running are absent.
    """
    cons = adjudicated_consensus(store)
    blocked = not_executable(store)
    newest = {run_id: (0.0, int(v["verdict"])) for run_id, v in newest_verdicts(store, distrust).items()}
    out = {}
    for run_id, run in (runs_by_id if people else agent_runs)(store).items():
        if run["status"] == "running":
            continue
        if run_id in cons:
            out[run_id] = (cons[run_id], "human")
        elif run_id in blocked:
            out[run_id] = (None, "not_executable")
        elif run_id in newest:
            out[run_id] = (newest[run_id][1], "judge")
        elif run["status"] == "refused":
            out[run_id] = (None, "refused")
        elif run["status"] != "answered":
            out[run_id] = (0, "no_answer")
        else:
            out[run_id] = (None, "unjudged")
    return out


def judge_key(v: dict) -> tuple[str, int, str]:
    """A verdict's judge as the canaries key it: (judge model, k, prompt version)."""
    return v["judge"], v["k"] or 0, v["prompt_version"] or ""


def flagged_judges(store) -> frozenset:
    """The judges the canary runs flagged (:mod:`cockpit.core.review.canary_audit`), as ``(judge, k,
    prompt_version)`` keys: their verdicts are not to be trusted as they stand."""
    return frozenset(key for key, entry in canary_audit.audit(store.root).items() if entry["flagged"])


def left_out_judges(store, distrust: frozenset) -> Counter:
    """The judges of `distrust` whose verdicts would have decided a run's outcome: ``{(judge, k, prompt_version):
    runs}`` (the runs whose newest decided verdict is theirs and that no person's label decides), largest first."""
    if not distrust:
        return Counter()
    newest = newest_verdicts(store)
    decided = run_outcomes(store, True, distrust)  # the runs people decide are theirs, whatever a judge said
    return Counter(judge_key(newest[rid]) for rid, (_ok, source) in decided.items()
                   if source not in ("human", "not_executable") and rid in newest
                   and judge_key(newest[rid]) in distrust)


def newest_verdicts(store, distrust: frozenset = frozenset()) -> dict[str, dict]:
    """Each run's newest decided judge verdict (a verdicts row: judge, k, prompt_version, verdict…), any judge but
    those in `distrust`."""
    newest: dict[str, dict] = {}
    for v in _verdicts(store):
        if judge_key(v) in distrust:
            continue
        if v["verdict"] is not None and (v["run_id"] not in newest
                                         or (v["created"] or 0.0) >= (newest[v["run_id"]]["created"] or 0.0)):
            newest[v["run_id"]] = v
    return newest


def judges_counted(store, distrust: frozenset = frozenset()) -> Counter:
    """Whose verdicts the success rates count where no person's label decides: ``{(judge, k, prompt_version):
    runs}``, over the agent runs whose outcome is a judge's (:func:`run_outcomes`), largest first."""
    newest = newest_verdicts(store, distrust)
    return Counter((newest[rid]["judge"], newest[rid]["k"] or 0, newest[rid]["prompt_version"])
                   for rid, (_ok, source) in run_outcomes(store, True, distrust).items() if source == "judge")


def success_rates(store, by: str = "site", distrust: frozenset = frozenset()
                  ) -> list[tuple[str, int, int, float | None, dict]]:
    """Success rate per site or per model: rows ``(group, n, successes, rate, sources)``.

    Each run's outcome comes from :func:`run_outcomes` (human consensus, else the
    newest judge verdict, else 0 for a run that never answered). ``n`` counts runs
    with a known outcome; answered runs nobody judged are left out of n and
    counted in ``sources['unjudged']``, runs refused at the gate in
    ``sources['refused']``, runs the annotators found not executable in ``sources['not_executable']`` (never
    failures). ``sources`` counts the runs of the row by source: human, judge, no_answer, unjudged, refused,
    not_executable. People's own attempts (model ``human``) are in no site's rate; by model they have a row
    of their own. ``rate`` is successes / n (None
    when n = 0). A run with no site or model is grouped under ''. Groups are
    sorted by name.
    """
    if by not in ("site", "model"):
        raise ValueError(f"success rates are by 'site' or 'model', not {by!r}")
    runs = runs_by_id(store)
    groups: dict[str, dict] = {}
    for run_id, (ok, source) in run_outcomes(store, by == "model", distrust).items():
        g = groups.setdefault(runs[run_id][by] or "", {"n": 0, "ok": 0, "sources": Counter()})
        g["sources"][source] += 1
        if ok is None:
            continue
        g["n"] += 1
        g["ok"] += ok
    rows = []
    for name in sorted(groups):
        g = groups[name]
        sources = {s: g["sources"][s] for s in ("human", "judge", "no_answer", "unjudged", "refused",
                                                 "not_executable")}
        rows.append((name, g["n"], g["ok"], g["ok"] / g["n"] if g["n"] else None, sources))
    return rows


def assisted_success(store, distrust: frozenset = frozenset()) -> dict:
    """Success split by whether people intervened (:mod:`cockpit.core.review.interventions`).

    Over the runs with a known outcome (as :func:`success_rates` counts them; ``n``): ``success`` all
    successes, and the *assisted success rate* success / n; ``autonomous`` the successes of runs nobody
    intervened in, and the *autonomous success rate* autonomous / n (a success a person helped to does not
    count); ``assisted_runs`` the runs with interventions among the n, and ``assisted_successes`` those
    that succeeded. ``runs``: every finished agent run with interventions (any outcome), ``{run_id, task,
    outcome (1/0/None), source, interventions: {approved, rejected, ..., assisted}, described}``,
    sorted by run id. Also per model: ``by_model`` rows ``{model, n, success, autonomous, rates}``.
    """
    outcomes, runs = run_outcomes(store, distrust=distrust), agent_runs(store)
    ivs = IV.of_runs(store)
    total = {"n": 0, "success": 0, "autonomous": 0, "assisted_runs": 0, "assisted_successes": 0}
    models: dict[str, dict] = {}
    for run_id, (ok, _source) in outcomes.items():
        if ok is None:
            continue
        helped = run_id in ivs
        m = models.setdefault(runs[run_id]["model"] or "", {"n": 0, "success": 0, "autonomous": 0})
        for g in (total, m):
            g["n"] += 1
            g["success"] += ok
            g["autonomous"] += ok and not helped
        total["assisted_runs"] += helped
        total["assisted_successes"] += ok and helped

    def rates(g):
        return {"assisted_rate": ratio(g["success"], g["n"]), "autonomous_rate": ratio(g["autonomous"], g["n"])}
    listed = []
    for run_id in sorted(ivs):
        if run_id not in outcomes:
            continue  # still running, or a person's own attempt
        ok, source = outcomes[run_id]
        listed.append({"run_id": run_id, "task": runs[run_id]["task"], "outcome": ok, "source": source,
                       "interventions": ivs[run_id].to_dict(), "described": ivs[run_id].describe()})
    return {**total, **rates(total), "runs": listed,
            "by_model": [{"model": name, **g, **rates(g)} for name, g in sorted(models.items())]}


def not_executable_runs(store) -> dict:
    """The agent runs whose human consensus is not executable (:func:`~cockpit.core.review.consensus.not_executable`),
    reported apart: ``{count, runs}``, each run ``{run_id, task, task_id, site, model, reasons: {annotator:
    reason}}``, by run id. They are in no success rate and no failure count."""
    runs = agent_runs(store)
    listed = [{"run_id": rid, "task": runs[rid]["task"], "task_id": runs[rid]["task_id"] or "",
               "site": runs[rid]["site"] or "", "model": runs[rid]["model"] or "", "reasons": reasons}
              for rid, reasons in not_executable(store).items() if rid in runs]
    return {"count": len(listed), "runs": listed}


def failure_categories(store) -> dict[str, int]:
    """How many failed runs have each primary failure category: ``{category: runs}``.

    Only runs whose human consensus (after adjudication: :func:`adjudicated_consensus`) is fail count. A run's category is the most
    common among its fail labels that name one; ties go to the category listed
    first in :data:`~cockpit.core.store.labels.CATEGORIES`, then to the
    alphabetically first (user-added categories). A failed run with no category
    on any label counts under ''. Sorted by count, largest first.
    """
    cons = adjudicated_consensus(store)
    by_run: dict[str, list[str]] = defaultdict(list)
    for row in _labels(store):
        if row["verdict"] == "fail" and cons.get(row["run_id"]) == 0:
            by_run[row["run_id"]].append(row["category"] or "")
    order = {c: i for i, c in enumerate(CATEGORIES)}
    counts: Counter = Counter()
    for cats in by_run.values():
        named = Counter(c for c in cats if c)
        if not named:
            counts[""] += 1
            continue
        counts[min(named, key=lambda c: (-named[c], order.get(c, len(order)), c))] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], order.get(kv[0], len(order)), kv[0])))


def steps_histogram(store, bins: int | Sequence[int] = 10) -> list[tuple[int, int, int]]:
    """Histogram of the step counts of finished runs: rows ``(lo, hi, count)``.

    ``bins`` is a number of equal-width bins with whole-number edges from the
    smallest step count up (the width is rounded up so the largest count fits,
    and bins past the largest count are dropped, so there may be fewer), or a
    list of edges. A bin counts runs with lo <= steps < hi; the last bin
    also includes its upper edge (as numpy does); with explicit edges, runs
    outside them are not counted. No finished runs: ``[]``.
    """
    steps = store.finished_step_counts()
    if isinstance(bins, int):
        if bins < 1:
            raise ValueError("the histogram needs at least one bin")
        if not steps:
            return []
        lo, hi = min(steps), max(steps)
        width = -(-(hi - lo + 1) // bins)  # ceiling division: bins * width covers lo..hi
        used = -(-(hi - lo + 1) // width)  # no empty bins past the largest count
        edges = [lo + i * width for i in range(used + 1)]
    else:
        edges = list(bins)
        if len(edges) < 2 or any(b <= a for a, b in zip(edges, edges[1:])):
            raise ValueError("histogram edges must be at least two increasing numbers")
    counts = [0] * (len(edges) - 1)
    last = len(counts) - 1
    for s in steps:
        for i in range(len(counts)):
            if edges[i] <= s < edges[i + 1] or (i == last and s == edges[-1]):
                counts[i] += 1
                break
    return [(edges[i], edges[i + 1], counts[i]) for i in range(len(counts))]
