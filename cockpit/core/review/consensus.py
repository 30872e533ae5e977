"""Human labels turned into one verdict per run: each run's labels on an axis, the annotators' consensus
(the strict majority; a tie is undecided) and the consensus after adjudication. The conventions are those of
:mod:`cockpit.core.review.agreement`, which reports over them."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from cockpit.core.store.adjudications import adjudications as _adjudications
from cockpit.core.store.labels import labels as _labels

#: Binary value of each human verdict; 'unsure' is absent on purpose (excluded).
BINARY = {"success": 1, "fail": 0}
#: Binary value of a side effects / repetition answer (1: the annotator saw them).
YES_NO = {"yes": 1, "no": 0}
#: The label axes (AgentRewardBench's three questions); judges answer success only.
AXES = ("success", "side_effects", "repetition")
#: Name of a binary verdict in tables and confusion matrices.
NAMES = {1: "success", 0: "fail"}

def human_matrix(store, binary: bool = True, axis: str = "success") -> dict[str, dict[str, object]]:
    """Each run's labels as ``{run_id: {annotator: verdict}}``, on one axis (:data:`AXES`).

    With ``binary`` (default) success / yes -> 1 and fail / no -> 0, and ``unsure`` (and unanswered)
    labels are dropped (a run left with no label is absent). With ``binary=False`` the raw answers,
    ``unsure`` included. Side effects and repetition: 1 means the annotator saw them.
    """
    column = "verdict" if axis == "success" else axis
    values = BINARY if axis == "success" else YES_NO
    out: dict[str, dict[str, object]] = {}
    for row in _labels(store):
        v = row[column]
        if v is None:
            continue
        if binary:
            if v not in values:
                continue
            v = values[v]
        out.setdefault(row["run_id"], {})[row["annotator"]] = v
    return out


def _majority(values: Iterable[int]) -> int | None:
    c = Counter(values)
    if c[1] == c[0]:
        return None
    return 1 if c[1] > c[0] else 0


def consensus(store, matrix: dict | None = None) -> dict[str, int]:
    """Human consensus per run, ``{run_id: 1 | 0}``: the strict majority of the
    annotators' binary verdicts (``unsure`` excluded). Ties are undecided and the
    run is absent, like a run nobody labelled."""
    matrix = human_matrix(store) if matrix is None else matrix
    out = {}
    for run_id, by in matrix.items():
        m = _majority(by.values())
        if m is not None:
            out[run_id] = m
    return out


def adjudicated_consensus(store, cons: dict[str, int] | None = None) -> dict[str, int]:
    """The consensus after adjudication, ``{run_id: 1 | 0}``: a run's adjudicated verdict
    (:mod:`cockpit.core.store.adjudications`) replaces its consensus, or settles a tie."""
    out = dict(consensus(store) if cons is None else cons)
    out.update({a["run_id"]: BINARY[a["verdict"]] for a in _adjudications(store)})
    return out
