"""Agreement statistics and success reports over human labels and judge verdicts.

Two layers, both returning plain data (lists, dicts, tuples of numbers and
strings) so the window can chart them and ``cockpit agreement`` can print or
dump them as JSON:

* Pure formulas: ``percent_agreement``, ``cohen_kappa``, ``fleiss_kappa``,
  ``fleiss_from_labels``, ``confusion_matrix``, in :mod:`cockpit.core.review.kappa`
  (no numpy/scipy; checked in the tests against published worked examples).
* Store reports, following WebVoyager's evaluation protocol (section 5.2,
  Table 2): pairwise Cohen's kappa between annotators, Fleiss' kappa over three
  or more, agreement of each judge (per model, k and prompt version) with the
  human consensus, and disagreements. The human consensus is built in
  :mod:`cockpit.core.review.consensus`; success rates, autonomous and assisted
  success, failure categories and the steps histogram in
  :mod:`cockpit.core.review.outcomes`. Import those from where they are.

Conventions used by the store reports (one place, so the window and the CLI
agree):

* Human verdicts are binary: ``success`` -> 1, ``fail`` -> 0; ``unsure`` is
  left out, as if that annotator had not labelled the run. A run whose only
  labels are ``unsure`` has no human verdict.
* The human *consensus* of a run is the strict majority of its annotators'
  binary verdicts (a single annotator is a majority of one). A tie (1 vs 1,
  2 vs 2) is *undecided*: the run has no consensus and is left out of judge
  agreement and success rates, but is listed as an annotator disagreement.
* Judge verdicts are 1, 0 or ``None`` (undecided: the reply said neither
  SUCCESS nor NOT SUCCESS). Undecided verdicts are left out of agreement and
  counted separately. Verdicts by rule (a run that gave no answer, scored 0
  without asking the judge, as in WebVoyager) are not the judge's judgement:
  they are left out of its agreement, kappa and every other figure, and
  counted apart (``automatic``).
* A run whose consensus is *not executable* (the task could not be attempted: Online-Mind2Web's third label)
  is neither a success nor a failure: it is left out of judge agreement and success rates and reported apart
  (``not_executable`` of :func:`report`: a count and the runs, with their reasons).
* Kappa values are ``None`` when there is nothing to compute them over.
"""
from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence

from cockpit.core.review import bootstrap as B
from cockpit.core.review import canary_audit, outcomes
from cockpit.core.review.consensus import (
    AXES,
    NAMES,
    adjudicated_consensus,
    consensus,
    human_matrix,
    verdict_matrix,
)
from cockpit.core.review.judges import FIGURES as JUDGES_FIGURES
from cockpit.core.review.judges import judge_rows, k_label
from cockpit.core.review.kappa import cohen_kappa, fleiss_kappa, percent_agreement
from cockpit.core.review.outcomes import (
    agent_runs,
    assisted_success,
    failure_categories,
    not_executable_runs,
    ratio,
    steps_histogram,
    success_rates,
)
from cockpit.core.store.adjudications import adjudications as _adjudications
from cockpit.core.store.labels import verdicts as _verdicts

#: Up to this many annotators, Fleiss' group search tries every subset of three or more.
_SUBSET_SEARCH_LIMIT = 10


# ---------------------------------------------------------------------------
# From the store
# ---------------------------------------------------------------------------

def pairwise_items(store, axis: str = "success") -> dict[tuple[str, str], list[tuple[int, int]]]:
    """For every pair of annotators (a1 < a2) with runs in common: their (a1, a2) binary answers on `axis`, one
    per run."""
    matrix = human_matrix(store, axis=axis)
    names = sorted({a for by in matrix.values() for a in by})
    out = {}
    for a1, a2 in itertools.combinations(names, 2):
        common = [(by[a1], by[a2]) for by in matrix.values() if a1 in by and a2 in by]
        if common:
            out[(a1, a2)] = common
    return out


def pairwise_cohen(store, axis: str = "success") -> list[tuple[str, str, int, float, float]]:
    """Cohen's kappa for every pair of annotators over the runs both gave a binary
    verdict (success/fail; ``unsure`` excluded).

    Rows ``(annotator1, annotator2, n, agreement, kappa)`` with ``annotator1 <
    annotator2``, agreement a fraction 0..1; pairs with no run in common are left out.
    """
    rows = []
    for (a1, a2), common in pairwise_items(store, axis).items():
        x, y = [c[0] for c in common], [c[1] for c in common]
        rows.append((a1, a2, len(common), percent_agreement(x, y), cohen_kappa(x, y)))
    return rows


def fleiss_group(store, axis: str = "success") -> tuple[list[str], list[str]]:
    """The annotators (three or more) and runs Fleiss' kappa is computed over.

    Fleiss' kappa needs the same number of ratings per run; we go further and use
    the same people, as in WebVoyager's three-annotator study. We pick the set of
    at least three annotators who all gave a binary verdict (``unsure`` excluded)
    to the most runs; ties go to the larger set, then to the alphabetically first.
    With up to 10 annotators every subset is tried; beyond that, the sets that
    labelled some run together. Returns ``([], [])`` when no run has three
    binary verdicts.
    """
    matrix = human_matrix(store, axis=axis)
    sets = Counter(frozenset(by) for by in matrix.values() if len(by) >= 3)  # few distinct sets
    if not sets:
        return [], []
    people = sorted(set().union(*sets))
    if len(people) <= _SUBSET_SEARCH_LIMIT:
        candidates = [frozenset(c) for r in range(3, len(people) + 1) for c in itertools.combinations(people, r)]
    else:
        candidates = list(sets)

    def cover(group):
        return sum(n for s, n in sets.items() if group <= s)

    best = min(candidates, key=lambda g: (-cover(g), -len(g), sorted(g)))
    runs = [run_id for run_id, by in matrix.items() if best <= by.keys()]
    return sorted(best), runs


def fleiss_table(store, axis: str = "success") -> list[list[int]]:
    """Fleiss' table over :func:`fleiss_group`: per run, [annotators saying success (yes), saying fail (no)]."""
    people, runs = fleiss_group(store, axis)
    matrix = human_matrix(store, axis=axis)
    return [[sum(1 for a in people if matrix[r][a] == v) for v in (1, 0)] for r in runs]


def fleiss(store, axis: str = "success") -> tuple[int, int, float | None]:
    """Fleiss' kappa over the runs labelled by the same three or more annotators
    (see :func:`fleiss_group`): ``(n_runs, n_raters, kappa)``, ``(0, 0, None)`` if
    there are no such runs. Categories are success and fail."""
    people, runs = fleiss_group(store, axis)
    if not runs:
        return 0, 0, None
    return len(runs), len(people), fleiss_kappa(fleiss_table(store, axis))


def judge_agreement(store, reference: dict | None = None, boot: B.Bootstrap | None = None,
                    by: str | None = None) -> list[dict]:
    """Agreement of each judge with the human consensus (or with `reference`, ``{run_id: 1 | 0}``,
    such as :func:`adjudicated_consensus`), WebVoyager Table 2's shape (computed in
    :mod:`cockpit.core.review.judges`).

    One row per (judge, k, prompt_version) present among the verdicts, sorted by
    judge, then k (1, 2, 3, ..., then 0 = all screenshots), then prompt version; with `by` (one of
    :data:`~cockpit.core.review.judges.SPLITS`: site, agent, level, prompt-version) one row per group and
    judge, the group's value in ``group`` (None without a split).
    ``n`` counts runs with both a human consensus and a decided verdict of the judge's own: every figure is
    over those n; ``automatic`` counts the runs with a consensus whose verdict was scored without asking the
    judge (the run gave no answer: 0, as in WebVoyager), left out of the n and of every figure, and
    ``automatic_agreeing`` how many of those the consensus agrees with; ``undecided`` counts runs with a consensus whose judge verdict was undecided; ``not_binary`` counts runs
    whose consensus is neither success nor fail (left out, never counted as failures).
    Keys: judge, k, k_label, prompt_version, group, n, agreement and accuracy (the same fraction, None if
    n = 0), kappa (Cohen's, judge vs consensus; None if n = 0), undecided, not_binary, tp, fn, fp, tn
    (success is the positive class: tp = both say success, fn = human success but
    judge fail), precision tp / (tp + fp), recall tp / (tp + fn) (AgentRewardBench's measure:
    the judge's success is the positive class), fpr (false-positive rate) fp / (fp + tn) (None when there
    is nothing to divide by) and confusion ``{human: {judge: count}}`` over 'success'/'fail'; human_rate
    and judge_rate (success rates over the n runs) and gap = judge_rate - human_rate (the success-rate gap
    Online-Mind2Web reports). With `boot`, also agreement_ci, accuracy_ci, kappa_ci, precision_ci,
    recall_ci, fpr_ci and gap_ci: bootstrap intervals over the n runs
    (:mod:`cockpit.core.review.bootstrap`), ``(lo, hi)`` or None.
    """
    return judge_rows(store, consensus(store) if reference is None else reference, boot, by)


#: What is bootstrapped for a judge against the humans, and for a pair of annotators (pairs: (reference, other)).
JUDGE_FIGURES = JUDGES_FIGURES
PAIR_FIGURES = {"agreement": B.pair_agreement, "kappa": B.pair_kappa}


def disagreements(store, judge: str | None = None, k: int | None = None, *,
                  annotators: bool = True) -> list[dict]:
    """Runs to look at again: the human consensus differs from a judge's decided
    verdict (only this judge and/or k when given), or, with ``annotators``, the
    annotators disagree among themselves (two of success, fail and not executable were given;
    ``unsure`` does not count as disagreeing).

    One dict per run, oldest run first: run_id, task, task_id, site, model,
    human (consensus 1/0, None when the annotators tie), labels ``{annotator:
    'success'|'fail'|'unsure'}``, annotators_disagree (bool), judges (the
    disagreeing verdicts, each ``{judge, k, k_label, prompt_version, verdict}``)
    and reasons (short sentences for a list view).
    """
    raw = human_matrix(store, binary=False)
    matrix = verdict_matrix(store)  # not executable (2) disagrees with success and fail too
    cons = consensus(store, matrix)
    against: dict[str, list[dict]] = defaultdict(list)
    for v in _verdicts(store):
        if judge is not None and v["judge"] != judge:
            continue
        if k is not None and (v["k"] or 0) != k:
            continue
        if v["verdict"] is None or v["run_id"] not in cons or int(v["verdict"]) == cons[v["run_id"]]:
            continue
        against[v["run_id"]].append({"judge": v["judge"], "k": v["k"] or 0, "k_label": k_label(v["k"]),
                                     "prompt_version": v["prompt_version"] or "", "verdict": int(v["verdict"])})
    out = []
    for run_id, run in agent_runs(store).items():
        split = annotators and len(set(matrix.get(run_id, {}).values())) > 1
        if not split and run_id not in against:
            continue
        reasons = []
        if split:
            votes = Counter(matrix[run_id].values())
            reasons.append(f"annotators disagree ({votes[1]} success, {votes[0]} fail"
                           + (f", {votes[2]} not executable)" if votes[2] else ")"))
        for j in against.get(run_id, []):
            reasons.append(f"{j['judge']} (k={j['k_label']}) says {NAMES[j['verdict']]}, "
                           f"humans say {NAMES[cons[run_id]]}")
        out.append({"run_id": run_id, "task": run["task"], "task_id": run["task_id"], "site": run["site"],
                    "model": run["model"], "human": cons.get(run_id), "labels": raw.get(run_id, {}),
                    "annotators_disagree": bool(split), "judges": against.get(run_id, []), "reasons": reasons})
    return out


def report(store, *, bins: int | Sequence[int] = 10, disagreement_list: bool = True,
           judge: str | None = None, k: int | None = None, boot: B.Bootstrap | None = None,
           by: str | None = None, flagged_in_rates: bool = False) -> dict:
    """Everything ``cockpit agreement`` shows, as one JSON-ready dict; with `boot`, bootstrap intervals
    (``*_ci`` keys, and ``intervals``: how they were computed). Each judge row carries ``canary``: how that
    judge did on the canary runs (:mod:`cockpit.core.review.canary_audit`); ``flagged_judges`` lists the
    flagged ones. With `by`, ``split`` holds the judge rows split that way (``{"by": ..., "judges": [...]}``).
    The success rates and the assisted success leave a flagged judge's verdicts out (unless `flagged_in_rates`):
    ``rates_leave_out`` lists those judges with the runs their verdicts would have decided."""
    annotators = _annotator_agreement(store, "success", boot)
    canaries = canary_audit.audit(store.root)
    judges = _with_canaries(judge_agreement(store, boot=boot), canaries)
    distrust = frozenset() if flagged_in_rates else frozenset(key for key, c in canaries.items() if c["flagged"])
    out = {
        **({"intervals": boot.describe()} if boot is not None else {}),
        "pairwise_cohen": annotators["pairwise_cohen"],
        "fleiss": annotators["fleiss"],
        "axes": {axis: _annotator_agreement(store, axis, boot) for axis in AXES[1:]},
        "judges": judges,
        "flagged_judges": [{"judge": r["judge"], "k": r["k"], "k_label": r["k_label"],
                            "prompt_version": r["prompt_version"], "canary": r["canary"]}
                           for r in judges if r["canary"]["flagged"]],
        **({"split": {"by": by, "judges": _with_canaries(judge_agreement(store, boot=boot, by=by), canaries)}}
           if by else {}),
        "success_by_site": [dict(zip(("site", "n", "successes", "rate", "sources"), r))
                            for r in success_rates(store, "site", distrust)],
        "success_by_model": [dict(zip(("model", "n", "successes", "rate", "sources"), r))
                             for r in success_rates(store, "model", distrust)],
        "rates_leave_out": [{"judge": j, "k": k, "prompt_version": p, "runs": n}
                            for (j, k, p), n in outcomes.left_out_judges(store, distrust).most_common()],
        "failure_categories": failure_categories(store),
        "not_executable": not_executable_runs(store),
        "steps_histogram": [dict(zip(("lo", "hi", "count"), r)) for r in steps_histogram(store, bins)],
        "adjudication": adjudication_summary(store, boot),
        "assisted": assisted_success(store, distrust),
    }
    if disagreement_list:
        out["disagreements"] = disagreements(store, judge, k)
    return out


def _with_canaries(rows: list[dict], canaries: dict) -> list[dict]:
    for r in rows:
        r["canary"] = canary_audit.result_for(canaries, r["judge"], r["k"], r["prompt_version"])
    return rows


def _annotator_agreement(store, axis: str, boot: B.Bootstrap | None) -> dict:
    """Pairwise Cohen's and Fleiss' kappa on one axis (with intervals when `boot`); for side effects and
    repetition also how many runs have an answer and in how many the annotators' majority saw them."""
    n_runs, n_raters, kappa = fleiss(store, axis)
    people, _ = fleiss_group(store, axis)
    pairs = [dict(zip(("annotator1", "annotator2", "n", "agreement", "kappa"), r)) for r in pairwise_cohen(store, axis)]
    if boot is not None:
        items = pairwise_items(store, axis)
        for row in pairs:
            cis = boot.intervals(items[(row["annotator1"], row["annotator2"])], PAIR_FIGURES)
            row.update({f"{name}_ci": ci for name, ci in cis.items()})
    fl = {"n_runs": n_runs, "n_raters": n_raters, "kappa": kappa, "annotators": people}
    if boot is not None:
        rows = [tuple(r) for r in fleiss_table(store, axis)] if n_runs else []
        fl["kappa_ci"] = boot.intervals(rows, {"kappa": B.fleiss_rows})["kappa"]
    out = {"pairwise_cohen": pairs, "fleiss": fl}
    if axis != "success":
        majority = consensus(store, human_matrix(store, axis=axis))
        out.update(answered=len(majority), seen=sum(majority.values()),
                   rate=ratio(sum(majority.values()), len(majority)))
    return out


def adjudication_summary(store, boot: B.Bootstrap | None = None) -> dict:
    """What adjudication changed: ``adjudicated`` (runs with an adjudicated verdict), ``changed``
    (run ids whose verdict now differs from the consensus, or that had none: a tie or only unsure
    labels) and ``judges``: :func:`judge_agreement` against the adjudicated consensus (agreement,
    kappa, precision and recall after adjudication; ``judges`` of :func:`report` is before)."""
    cons = consensus(store)
    after = adjudicated_consensus(store, cons)
    # a new or other verdict, or a consensus gone (adjudicated not executable: only adjudication takes runs out)
    changed = sorted({r for r, v in after.items() if cons.get(r) != v} | (cons.keys() - after.keys()))
    return {"adjudicated": len(_adjudications(store)), "changed": changed,
            "judges": _with_canaries(judge_agreement(store, after, boot), canary_audit.audit(store.root))}
