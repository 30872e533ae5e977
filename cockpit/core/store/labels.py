"""Human labels and judge verdicts in the run store.

Free functions over a Store (one module per concern keeps db.py small).
A label is one annotator's view of one run; labelling again replaces it.
"""
from __future__ import annotations

import time

from cockpit.core.store.db import Store, StoreError, where_equal

#: Online-Mind2Web's third human label: the task could not be attempted at all (a CAPTCHA, the site down, a
#: login wall, a region blocked), so the run says nothing about the agent. Its reason is kept in the label's
#: category column (see NOT_EXECUTABLE_REASONS).
NOT_EXECUTABLE = "not_executable"
VERDICTS = ("success", "fail", "unsure", NOT_EXECUTABLE)
#: Why a task could not be attempted, as Online-Mind2Web's human evaluation names them; people may write their own.
NOT_EXECUTABLE_REASONS = ("CAPTCHA", "Site down", "Login wall", "Blocked region")
#: WebVoyager's four failure issues first, then Cockpit's additions. Users may add their own.
CATEGORIES = ("Navigation stuck", "Visual grounding issue", "Hallucination", "Prompt misalignment",
              "Blocked by login/CAPTCHA", "Site changed or unavailable", "Unsafe action attempted", "Loop")
STEP_JUDGEMENTS = ("correct", "wrong_target", "wrong_action", "no_progress", "harmful")
#: AgentRewardBench's three questions per trajectory: the label's verdict answers the first; the other two are
#: answered yes / no / unsure, or left unanswered (None).
AXES = ("success", "side_effects", "repetition")
AXIS_ANSWERS = ("yes", "no", "unsure")
AXIS_QUESTIONS = {"success": "Did the agent complete the task?",
                  "side_effects": "Did the agent change something nobody asked for (side effects)?",
                  "repetition": "Did the agent repeat itself, going round in a loop?"}
KEEP = object()  # set_label: keep what the annotator answered before


def add_annotator(store: Store, name: str) -> None:
    name = name.strip()
    if not name:
        raise StoreError("an annotator needs a name")
    with store.atomic():
        store.db["annotators"].insert({"name": name, "created": time.time()}, ignore=True)


def annotators(store: Store) -> list[str]:
    rows = store.rows("SELECT name FROM annotators UNION SELECT DISTINCT annotator FROM labels ORDER BY 1")
    return [r["name"] for r in rows]


def set_label(store: Store, run_id: str, annotator: str, verdict: str, *, category: str = "",
              comment: str = "", seconds: float = 0.0, blind: bool = False, side_effects=KEEP,
              repetition=KEEP) -> None:
    """Label a run (replacing this annotator's label). category: a failure's category, or why a not-executable
    run could not be attempted (its reason); other verdicts keep none. side_effects / repetition: "yes", "no",
    "unsure", None (not answered), or left out to keep this annotator's earlier answers."""
    if verdict not in VERDICTS:
        raise StoreError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
    if verdict not in ("fail", NOT_EXECUTABLE):
        category = ""
    axes = {"side_effects": side_effects, "repetition": repetition}
    for axis, answer in axes.items():
        if answer is not KEEP and answer is not None and answer not in AXIS_ANSWERS:
            raise StoreError(f"{axis.replace('_', ' ')} must be one of {', '.join(AXIS_ANSWERS)}, not {answer!r}")
    add_annotator(store, annotator)
    row = {"run_id": run_id, "annotator": annotator, "verdict": verdict, "category": category,
           "comment": comment, "seconds": round(seconds, 1), "blind": int(blind), "created": time.time()}
    with store.atomic():
        before = labels(store, run_id, annotator)
        for axis, answer in axes.items():
            row[axis] = (before[0][axis] if before else None) if answer is KEEP else answer
        store.db.execute("DELETE FROM labels WHERE run_id = ? AND annotator = ?", [run_id, annotator])
        store.db["labels"].insert(row)


def labels(store: Store, run_id: str | None = None, annotator: str | None = None) -> list[dict]:
    where, params = where_equal(run_id=run_id, annotator=annotator)
    return store.rows(f"SELECT * FROM labels{where} ORDER BY run_id, annotator", params)


def set_step_label(store: Store, run_id: str, step: int, annotator: str, judgement: str, *,
                   corrected_target: int | None = None, comment: str = "") -> None:
    if judgement not in STEP_JUDGEMENTS:
        raise StoreError(f"step judgement must be one of {', '.join(STEP_JUDGEMENTS)}, not {judgement!r}")
    row = {"run_id": run_id, "step": step, "annotator": annotator, "judgement": judgement,
           "corrected_target": corrected_target, "comment": comment, "created": time.time()}
    with store.atomic():
        store.db.execute("DELETE FROM step_labels WHERE run_id = ? AND step = ? AND annotator = ?",
                         [run_id, step, annotator])
        store.db["step_labels"].insert(row)


def step_labels(store: Store, run_id: str, annotator: str | None = None) -> list[dict]:
    sql, params = "SELECT * FROM step_labels WHERE run_id = ?", [run_id]
    if annotator:
        sql += " AND annotator = ?"
        params.append(annotator)
    return store.rows(sql + " ORDER BY step, annotator", params)


def set_verdict(store: Store, run_id: str, judge: str, k: int, prompt_version: str, verdict: int | None, *,
                reply: str = "", prompt_tokens: int = 0, completion_tokens: int = 0,
                cost: float | None = None) -> None:
    row = {"run_id": run_id, "judge": judge, "k": k, "prompt_version": prompt_version, "verdict": verdict,
           "reply": reply, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
           "cost": cost, "created": time.time()}
    with store.atomic():
        store.db.execute("DELETE FROM verdicts WHERE run_id = ? AND judge = ? AND k = ? AND prompt_version = ?",
                         [run_id, judge, k, prompt_version])
        store.db["verdicts"].insert(row)


def verdicts(store: Store, run_id: str | None = None, judge: str | None = None) -> list[dict]:
    where, params = where_equal(run_id=run_id, judge=judge)
    return store.rows(f"SELECT * FROM verdicts{where} ORDER BY run_id, judge, k", params)


def unlabelled_runs(store: Store, annotator: str, limit: int = 1000) -> list[str]:
    """Run ids this annotator has not labelled yet, oldest first: the labelling queue."""
    rows = store.rows("SELECT id FROM runs WHERE status NOT IN ('running') AND id NOT IN "
                       "(SELECT run_id FROM labels WHERE annotator = ?) ORDER BY started LIMIT ?",
                       [annotator, limit])
    return [r["id"] for r in rows]


def restore_label(store: Store, run_id: str, annotator: str, row: dict | None) -> None:
    """Put back an annotator's label on a run exactly as `row` (a labels() row) held it; None: no label (undo)."""
    with store.atomic():
        store.db.execute("DELETE FROM labels WHERE run_id = ? AND annotator = ?", [run_id, annotator])
        if row is not None:
            store.db["labels"].insert(dict(row, run_id=run_id, annotator=annotator))


def restore_step_label(store: Store, run_id: str, step: int, annotator: str, row: dict | None) -> None:
    """Put back an annotator's judgement of a step exactly as `row` (a step_labels() row); None: none (undo)."""
    with store.atomic():
        store.db.execute("DELETE FROM step_labels WHERE run_id = ? AND step = ? AND annotator = ?",
                         [run_id, step, annotator])
        if row is not None:
            store.db["step_labels"].insert(dict(row, run_id=run_id, step=step, annotator=annotator))
