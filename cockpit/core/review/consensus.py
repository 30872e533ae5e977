"""Human labels turned into one verdict per run: each run's labels on an axis, the annotators' consensus
(the strict majority; a tie is undecided), the consensus after adjudication, and the runs the annotators found
not executable (Online-Mind2Web's third label: the task could not be attempted), which are reported apart and
never counted as failures. The conventions are those of :mod:`cockpit.core.review.agreement`, which reports
over them."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from cockpit.core.store.adjudications import adjudications as _adjudications
from cockpit.core.store.labels import NOT_EXECUTABLE
from cockpit.core.store.labels import labels as _labels

#: Binary value of each human verdict; 'unsure' is absent on purpose (excluded).
BINARY = {"success": 1, "fail": 0}
#: A run verdict's code in the consensus: the binary ones, and not executable as 2 (Online-Mind2Web's code).
CODES = {**BINARY, NOT_EXECUTABLE: 2}
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
    """The value given by more than half of the votes, else None (a tie, or no vote)."""
    c = Counter(values)
    total = sum(c.values())
    return next((v for v, n in c.items() if 2 * n > total), None)


def verdict_matrix(store) -> dict[str, dict[str, int]]:
    """Each run's decisive verdicts, ``{run_id: {annotator: 1 | 0 | 2}}`` (:data:`CODES`: success, fail, not
    executable); ``unsure`` is left out, and a run with no decisive verdict is absent."""
    out: dict[str, dict[str, int]] = {}
    for row in _labels(store):
        if row["verdict"] in CODES:
            out.setdefault(row["run_id"], {})[row["annotator"]] = CODES[row["verdict"]]
    return out


def _decided(store, matrix: dict | None) -> dict[str, int]:
    """The majority of each run (:func:`_majority`), not executable (2) included, ties left out."""
    matrix = verdict_matrix(store) if matrix is None else matrix
    out = {}
    for run_id, by in matrix.items():
        m = _majority(by.values())
        if m is not None:
            out[run_id] = m
    return out


def consensus(store, matrix: dict | None = None) -> dict[str, int]:
    """Human consensus per run, ``{run_id: 1 | 0}``: the verdict more than half of the annotators gave, over
    success, fail and not executable (``unsure`` excluded; with two verdicts, the strict majority). Ties are
    undecided and the run is absent, like a run nobody labelled; so is a run whose consensus is not executable
    (:func:`not_executable`): it counts neither as a success nor as a failure. `matrix`: another axis's
    :func:`human_matrix`, or :func:`verdict_matrix` of some runs."""
    return {run_id: v for run_id, v in _decided(store, matrix).items() if v in NAMES}


def not_executable(store) -> dict[str, dict[str, str]]:
    """The runs found not executable: those whose human consensus is not executable and that no adjudicated
    verdict took back, and those adjudicated not executable (a QA reviewer's or adjudicator's final answer):
    ``{run_id: {annotator or adjudicator: reason}}`` (each not-executable label's reason, '' when none was given;
    an adjudicated run's reason is the adjudicator's), by run id."""
    settled = {a["run_id"]: a for a in _adjudications(store)}
    runs = {r for r, v in _decided(store, None).items() if v == CODES[NOT_EXECUTABLE] and r not in settled}
    out: dict[str, dict[str, str]] = {}
    for row in _labels(store):
        if row["run_id"] in runs and row["verdict"] == NOT_EXECUTABLE:
            out.setdefault(row["run_id"], {})[row["annotator"]] = row["category"] or ""
    for run_id, a in settled.items():
        if a["verdict"] == NOT_EXECUTABLE:
            out[run_id] = {a["by"]: a.get("category") or ""}
    return dict(sorted(out.items()))


def adjudicated_consensus(store, cons: dict[str, int] | None = None) -> dict[str, int]:
    """The consensus after adjudication, ``{run_id: 1 | 0}``: a run's adjudicated verdict
    (:mod:`cockpit.core.store.adjudications`) replaces its consensus, or settles a tie; a run adjudicated not
    executable leaves it (it is in :func:`not_executable`, never a failure)."""
    out = dict(consensus(store) if cons is None else cons)
    for a in _adjudications(store):
        if a["verdict"] in BINARY:
            out[a["run_id"]] = BINARY[a["verdict"]]
        else:
            out.pop(a["run_id"], None)
    return out
