"""Each judge against the humans' majority, read as an instrument is read against a reference.

One row per judge (model, k, prompt version), and with a split per (group, judge, k, prompt version), where
the group is the run's site, agent (the run's model, with its harness when it was imported), task level
(Online-Mind2Web's easy / medium / hard, where the task has one) or the judge's prompt version. Verdicts of
different prompt versions are never pooled: the prompt version is part of every row's key.

The figures, success being the positive class (the judge's SUCCESS is what is tested):

* accuracy (= agreement): the share of runs where judge and humans say the same;
* precision tp / (tp + fp), recall tp / (tp + fn);
* false-positive rate fp / (fp + tn): of the runs the humans failed, the share the judge called a success
  (the figure published judges do worst on);
* Cohen's kappa, judge vs the humans' majority;
* gap: the judge's success rate minus the humans' over the same runs.

With a :class:`~cockpit.core.review.bootstrap.Bootstrap`, each gets its percentile interval (``<name>_ci``).

Runs whose human majority is neither success (1) nor fail (0), such as a run the humans call not executable,
are skipped and counted (``not_binary``), never treated as failures; undecided judge verdicts are counted
(``undecided``) and left out.

Verdicts by rule are not the judge's judgement: a run that gave no answer is scored 0 without asking the judge
(WebVoyager's rule; the verdict's reply is ``NO_ANSWER_REPLY``). They are left out of every figure above and
counted apart (``automatic``, and ``automatic_agreeing``: how many of them the humans' majority agrees with), so a
judge whose replies could never be read has n = 0 and no agreement, not 100 % over the rule's zeros (walkthrough
10, B4). The window and ``cockpit agreement`` both show these rows.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from cockpit.core.review import bootstrap as B
from cockpit.core.review import canary_audit
from cockpit.core.review.consensus import NAMES, consensus
from cockpit.core.review.judge_prompt import NO_ANSWER_REPLY
from cockpit.core.review.kappa import cohen_kappa, confusion_matrix, percent_agreement
from cockpit.core.review.outcomes import ratio, runs_by_id
from cockpit.core.store.db import open_for_reading
from cockpit.core.store.labels import verdicts as _verdicts

#: The splits of ``cockpit agreement --by``.
SPLITS = ("site", "agent", "level", "prompt-version")
#: What a run without a value of the split is grouped under.
NONE = "(none)"

#: What is bootstrapped for a judge against the humans (pairs: (human, judge)).
FIGURES = {"accuracy": B.pair_agreement, "agreement": B.pair_agreement, "kappa": B.pair_kappa,
           "precision": B.precision, "recall": B.recall, "fpr": B.false_positive_rate, "gap": B.rate_gap}


def k_label(k: int) -> str:
    """How a judge's k reads in tables: the number of screenshots, or 'all' for 0."""
    return "all" if not k else str(k)


def groups_of(store, by: str | None) -> dict[str, str]:
    """Each run's value of the split `by` (:data:`SPLITS`; None or prompt-version: no per-run value)."""
    if by not in SPLITS:
        if by is not None:
            raise ValueError(f"unknown split {by!r} (one of {', '.join(SPLITS)})")
        return {}
    if by == "prompt-version":
        return {}
    if by == "level":
        return store.run_levels()
    out = {}
    for run_id, r in runs_by_id(store).items():
        if by == "site":
            out[run_id] = r["site"] or NONE
        else:
            harness = r["source"] if r["source"] and r["source"] != "cockpit" else ""
            out[run_id] = (r["model"] or NONE) + (f" ({harness})" if harness else "")
    return out


def judge_rows(store, reference: dict, boot: B.Bootstrap | None = None, by: str | None = None) -> list[dict]:
    """The judges against `reference` (``{run_id: 1 | 0 | other}``, the humans' majority), one row per
    (group, judge, k, prompt version), sorted by group, then judge, k (1, 2, 3, ..., then 0 = all), prompt
    version. See :func:`cockpit.core.review.agreement.judge_agreement` for the keys; ``group`` is the split's
    value (None without a split)."""
    groups = groups_of(store, by)
    buckets: dict[tuple, list] = defaultdict(list)
    for v in _verdicts(store):
        pv = v["prompt_version"] or ""
        if by is None:
            group = None
        elif by == "prompt-version":
            group = pv or NONE
        else:
            group = groups.get(v["run_id"], NONE)
        buckets[(group or "", v["judge"], v["k"] or 0, pv, group)].append(v)
    rows = []
    for key in sorted(buckets, key=lambda g: (g[0], g[1], g[2] == 0, g[2], g[3])):
        _, judge, k, pv, group = key
        rows.append(_row(buckets[key], reference, boot) | {"judge": judge, "k": k, "k_label": k_label(k),
                                                             "prompt_version": pv, "group": group})
    return rows


def _row(vs: list[dict], reference: dict, boot: B.Bootstrap | None) -> dict:
    human, pred, undecided, not_binary, automatic, automatic_agreeing = [], [], 0, 0, 0, 0
    for v in vs:
        if v["run_id"] not in reference:
            continue
        h = reference[v["run_id"]]
        if h not in (0, 1):  # not executable, or any verdict that is neither success nor fail: apart
            not_binary += 1
            continue
        if v["verdict"] is None:
            undecided += 1
            continue
        if v.get("reply") == NO_ANSWER_REPLY:  # a run without an answer: scored 0, the judge not asked
            automatic += 1
            automatic_agreeing += int(v["verdict"]) == h
            continue
        human.append(int(h))
        pred.append(int(v["verdict"]))
    m = confusion_matrix([NAMES[h] for h in human], [NAMES[p] for p in pred], ("success", "fail"))
    tp, fn, fp, tn = m["success"]["success"], m["success"]["fail"], m["fail"]["success"], m["fail"]["fail"]
    agreement = percent_agreement(human, pred) if human else None
    row = {"n": len(human), "agreement": agreement, "accuracy": agreement,
           "kappa": cohen_kappa(human, pred) if human else None, "undecided": undecided, "not_binary": not_binary,
           "automatic": automatic, "automatic_agreeing": automatic_agreeing,
           "tp": tp, "fn": fn, "fp": fp, "tn": tn, "confusion": m,
           "precision": ratio(tp, tp + fp), "recall": ratio(tp, tp + fn), "fpr": ratio(fp, fp + tn),
           "human_rate": ratio(sum(human), len(human)), "judge_rate": ratio(sum(pred), len(pred)),
           "gap": B.rate_gap(Counter(zip(human, pred))) if human else None}
    if boot is not None:
        cis = boot.intervals(list(zip(human, pred)), FIGURES)
        row.update({f"{name}_ci": ci for name, ci in cis.items()})
    return row


def audited_judges(store_root, by: str | None = None, boot: B.Bootstrap | None = None) -> list[dict]:
    """:func:`judge_rows` against the human consensus, each row with its ``canary`` result
    (:mod:`cockpit.core.review.canary_audit`): what the Reports tab shows. Opens the store at `store_root`
    itself, so it may run on a worker thread."""
    with open_for_reading(store_root) as store:
        rows = judge_rows(store, consensus(store), boot, by)
    canaries = canary_audit.audit(store_root)
    for r in rows:
        r["canary"] = canary_audit.result_for(canaries, r["judge"], r["k"], r["prompt_version"])
    return rows
