"""Adjudication: the runs to settle, with every verdict and its reason side by side.

A run needs adjudicating when its annotators disagree (two of success, fail and not executable were given;
``unsure`` does not count), or when the annotators' consensus and a judge's decided verdict differ. The
adjudicated verdict itself is stored by :mod:`cockpit.core.store.adjudications`; the agreement
report then reads it in place of the consensus (:func:`cockpit.core.review.consensus.adjudicated_consensus`).

A batch's QA reviewer goes over every run of the batch (``every``), not only the disputed ones: each item also
carries the run's key points and every annotator's ticks, so the final key points are settled with the verdict.
"""
from __future__ import annotations

from cockpit.core.review.agreement import k_label
from cockpit.core.review.consensus import NAMES, consensus, verdict_matrix
from cockpit.core.review.key_points import of_run
from cockpit.core.store import key_points as KP
from cockpit.core.store.adjudications import adjudications
from cockpit.core.store.assignments import assignments, get_batch
from cockpit.core.store.labels import labels, verdicts


def to_adjudicate(store, batch: str | None = None, *, every: bool = False, whole=()) -> list[dict]:
    """Runs to adjudicate (only the runs of `batch` when given; with `every`, all of them: the QA reviewer's
    pass), oldest first; `whole`: batches whose every run is listed too, besides the disputed ones (Review's list
    for a QA reviewer of them, in one pass). One dict per run:
    run_id, task, consensus (1/0, None on a tie), annotators_disagree, judge_disagrees (bool),
    labels (each annotator's verdict, category and comment, by name), judges (every judge verdict
    with its reply: judge, k_label, prompt_version, verdict 'success'/'fail'/'undecided', reason),
    adjudication (the stored one, or None: verdict, reason, by, created, category, key_points), key_points (the
    run's key points, texts) and ticks (``{annotator: {position: step}}``, every annotator who ticked)."""
    runs = None
    if batch:
        get_batch(store, batch)
        runs = {a["run_id"] for a in assignments(store, batch)}
    listed_whole = {a["run_id"] for b in whole for a in assignments(store, b)}
    if every and runs is not None:
        listed_whole |= runs
    matrix = verdict_matrix(store)
    cons = consensus(store, matrix)
    judged: dict[str, list[dict]] = {}
    for v in verdicts(store):
        judged.setdefault(v["run_id"], []).append(v)
    settled = {a["run_id"]: a for a in adjudications(store)}
    out = []
    for run in store.run_summaries():
        rid = run["id"]
        if runs is not None and rid not in runs:
            continue
        split = len(set(matrix.get(rid, {}).values())) > 1
        against = rid in cons and any(v["verdict"] is not None and int(v["verdict"]) != cons[rid]
                                      for v in judged.get(rid, []))
        if not (split or against or rid in listed_whole):
            continue
        ticks: dict[str, dict[int, int]] = {}
        for t in KP.ticks(store, rid):
            ticks.setdefault(t["annotator"], {})[t["position"]] = t["step"]
        out.append({"run_id": rid, "task": run["task"], "consensus": cons.get(rid),
                    "annotators_disagree": split, "judge_disagrees": against,
                    "labels": {x["annotator"]: {"verdict": x["verdict"], "category": x["category"] or "",
                                                "comment": x["comment"] or ""} for x in labels(store, rid)},
                    "judges": [{"judge": v["judge"], "k_label": k_label(v["k"]),
                                "prompt_version": v["prompt_version"] or "",
                                "verdict": NAMES.get(v["verdict"], "undecided"), "reason": v["reply"] or ""}
                               for v in judged.get(rid, [])],
                    "adjudication": settled.get(rid), "key_points": of_run(store, run).points, "ticks": ticks})
    return out
