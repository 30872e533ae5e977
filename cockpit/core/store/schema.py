"""The database schema, versioned with PRAGMA user_version, and its migrations.

Each migration is a function taking the sqlite-utils Database; MIGRATIONS[i]
brings a database from version i to i+1. Never edit a released migration:
add a new one.
"""
from __future__ import annotations

import functools

import sqlite_utils


def _v1(db: sqlite_utils.Database) -> None:
    db["runs"].create({
        "id": str, "task": str, "url": str, "task_id": str, "site": str,
        "model": str, "base_url": str, "config": str, "approval_policy": str,
        "status": str, "answer": str, "error": str,
        "started": float, "finished": float, "steps": int,
        "prompt_tokens": int, "completion_tokens": int, "cost": float,
        "parent_run": str, "parent_step": int, "source": str, "demo": int,
        "pid": int, "host": str, "batch": str,
    }, pk="id", defaults={"status": "running", "steps": 0, "prompt_tokens": 0,
                          "completion_tokens": 0, "source": "cockpit", "demo": 0})
    db["runs"].create_index(["task_id"])
    db["runs"].create_index(["started"])
    db["runs"].create_index(["status"])
    db["steps"].create({
        "run_id": str, "step": int, "url": str, "title": str,
        "screenshot": str, "screenshot_clean": str, "marks_file": str, "n_marks": int,
        "request": str, "reply": str, "thought": str, "action_text": str, "action": str,
        "target": int, "risk": str, "evidence": str, "decision": str,
        "status": str, "outcome": str, "error": str, "url_after": str,
        "timings": str, "prompt_tokens": int, "completion_tokens": int, "cost": float,
        "model_seconds": float, "attempts": int, "started": float, "finished": float,
    }, pk=("run_id", "step"), foreign_keys=[("run_id", "runs", "id")])
    db["decisions"].create({
        "id": int, "run_id": str, "step": int, "action": str, "target": int,
        "target_mark": str, "risk": str, "evidence": str, "policy": str,
        "approved": int, "by": str, "message": str, "edited_action": str,
        "requested_at": float, "decided_at": float,
    }, pk="id", foreign_keys=[("run_id", "runs", "id")])
    db["decisions"].create_index(["run_id", "step"])
    db["runs"].enable_fts(["task", "answer"], create_triggers=True, tokenize="porter")


def _v2(db: sqlite_utils.Database) -> None:
    """Who acted (agent or human) and human corrections of the marks."""
    db["steps"].add_column("actor", str, not_null_default="agent")
    db["steps"].add_column("note", str)
    db["corrections"].create({
        "id": int, "run_id": str, "step": int, "kind": str,  # spurious | missing
        "mark_id": int, "bbox": str, "label": str, "element": str,
        "by": str, "created": float, "withdrawn": int,
    }, pk="id", foreign_keys=[("run_id", "runs", "id")], defaults={"withdrawn": 0})
    db["corrections"].create_index(["run_id", "step"])


def _v3(db: sqlite_utils.Database) -> None:
    """Human labels (per run and per step) and LLM-judge verdicts."""
    db["labels"].create({
        "id": int, "run_id": str, "annotator": str, "verdict": str,  # success | fail | unsure
        "category": str, "comment": str, "seconds": float, "blind": int, "created": float,
    }, pk="id", foreign_keys=[("run_id", "runs", "id")])
    db["labels"].create_index(["run_id", "annotator"], unique=True)
    db["step_labels"].create({
        "id": int, "run_id": str, "step": int, "annotator": str,
        "judgement": str,  # correct | wrong_target | wrong_action | no_progress
        "corrected_target": int, "comment": str, "created": float,
    }, pk="id", foreign_keys=[("run_id", "runs", "id")])
    db["step_labels"].create_index(["run_id", "step", "annotator"], unique=True)
    db["verdicts"].create({
        "id": int, "run_id": str, "judge": str,  # judge model name, or a reference check: "ref:must_include"
        "k": int,  # screenshots shown (0 = all); 0 for reference checks
        "prompt_version": str, "verdict": int,  # 1 success, 0 not, NULL undecided
        "reply": str, "prompt_tokens": int, "completion_tokens": int, "cost": float, "created": float,
    }, pk="id", foreign_keys=[("run_id", "runs", "id")])
    db["verdicts"].create_index(["run_id", "judge", "k", "prompt_version"], unique=True)
    db["annotators"].create({"name": str, "created": float}, pk="name")


def _v4(db: sqlite_utils.Database) -> None:
    """What each action changed, and why a run paused (breakpoints, loops)."""
    db["steps"].add_column("effect", str)
    db["steps"].add_column("flags", str)  # JSON list: "noop", "repeated", "loop", "breakpoint: ..."


def _v5(db: sqlite_utils.Database) -> None:
    """Multihop tasks and procedural memory (cockpit.core.tasks.hops, cockpit.core.agent.procedural_memory)."""
    db["steps"].add_column("hops", str)  # JSON: hop progress after the step {"passed", "total", "new"}
    db["runs"].add_column("hops", str)  # JSON: the run's hop result, HopTracker.to_dict()
    db["runs"].add_column("memories", str)  # JSON list: run ids given to the agent as memories


def _v6(db: sqlite_utils.Database) -> None:
    """World-model previews and planning (cockpit.core.lookahead.worldmodel, cockpit.core.lookahead.planning)."""
    db["steps"].add_column("prediction", str)  # JSON: {action, text, model, source, tokens..., actual: {...}}
    db["steps"].add_column("plan", str)  # JSON: PlanResult.to_dict() (candidates, simulations, scores, chosen)
    # Model calls beyond the agent's own (previews, refine, simulate, score); runs hold the sums.
    for table in ("steps", "runs"):
        db[table].add_column("plan_calls", int, not_null_default=0)
        db[table].add_column("plan_prompt_tokens", int, not_null_default=0)
        db[table].add_column("plan_completion_tokens", int, not_null_default=0)
        db[table].add_column("plan_cost", float)


def _v7(db: sqlite_utils.Database) -> None:
    """Annotation batches and their assignments (cockpit.core.store.assignments), and adjudicated
    verdicts (cockpit.core.store.adjudications)."""
    db["batches"].create({
        "name": str, "guideline": str, "per_run": int, "blind": int, "created": float,
    }, pk="name", defaults={"blind": 0})
    db["assignments"].create({
        "batch": str, "run_id": str, "annotator": str, "position": int,  # the run's place in the batch
    }, pk=("batch", "run_id", "annotator"), foreign_keys=[("batch", "batches", "name"), ("run_id", "runs", "id")])
    db["assignments"].create_index(["annotator", "position"])
    db["adjudications"].create({
        "run_id": str, "verdict": str,  # success | fail
        "reason": str, "by": str, "created": float,
    }, pk="run_id", foreign_keys=[("run_id", "runs", "id")])


def _v8(db: sqlite_utils.Database) -> None:
    """Pixel-grounded models: what a step's point was and hit, and corrections at a point."""
    db["steps"].add_column("pointer", str)  # JSON: {mode, dialect, space, frame, model_action, resolved, ...}
    db["corrections"].add_column("point", str)  # JSON [x, y]: kind 'point', where the click should have been


def _v9(db: sqlite_utils.Database) -> None:
    """Judges of several requests per run (WebJudge): each request and reply, kept with the verdict."""
    db["judge_stages"].create({
        "id": int, "run_id": str, "judge": str, "prompt_version": str,  # the verdict's (k is 0)
        "stage": str,  # key_points | image | outcome
        "position": int,  # order within the run's judgement
        "step": int,  # the screenshot's step (image stage)
        "request": str,  # JSON messages as sent, images named by step
        "reply": str, "score": int,  # image stage: 0-5
        "kept": int,  # image stage: 1 when the screenshot went to the outcome request
        "note": str,  # how a malformed reply was read
        "prompt_tokens": int, "completion_tokens": int, "cost": float, "created": float,
    }, pk="id", foreign_keys=[("run_id", "runs", "id")])
    db["judge_stages"].create_index(["run_id", "judge", "prompt_version"])


def _v10(db: sqlite_utils.Database) -> None:
    """AgentRewardBench's two other questions per run, beside success: did the agent change something nobody
    asked for, did it loop (cockpit.core.store.labels.AXES)."""
    db["labels"].add_column("side_effects", str)  # yes | no | unsure | NULL (not answered)
    db["labels"].add_column("repetition", str)


def _v11(db: sqlite_utils.Database) -> None:
    """Key points per task, typed in Review (WebJudge's first stage gives them too), and each annotator's ticks,
    each with the step where the point was met (cockpit.core.store.key_points)."""
    db["key_points"].create({
        "task_key": str,  # the run's task id, or its task text when it has none
        "position": int, "text": str, "by": str, "created": float,
    }, pk=("task_key", "position"))
    db["key_point_ticks"].create({
        "run_id": str, "annotator": str, "position": int,  # the key point's place in the run's list
        "point": str,  # its text when ticked
        "step": int,  # the step shown when it was ticked: where the point was met
        "created": float,
    }, pk=("run_id", "annotator", "position"), foreign_keys=[("run_id", "runs", "id")])


def _v12(db: sqlite_utils.Database) -> None:
    """The QA reviewer of a batch, and what an adjudication settles beside the verdict: why a run adjudicated not
    executable could not be attempted, and the final key points (cockpit.core.store.adjudications)."""
    db["batches"].add_column("qa", str)  # the QA reviewer's name ('' or NULL: none)
    db["adjudications"].add_column("category", str)  # not_executable: why the task could not be attempted
    db["adjudications"].add_column("key_points", str)  # JSON [{position, point, step|null}]; NULL: not settled


def _v13(db: sqlite_utils.Database) -> None:
    """Where a run merged from a bundle came from (cockpit.core.store.origin): its row is kept as the other store
    had it (its content hash says whether two stores hold the same run), so this store notes it apart."""
    db["imports"].create({
        "run_id": str, "kind": str,  # bundle
        "origin": str,  # the file it came from
        "created": float,
    }, pk="run_id", foreign_keys=[("run_id", "runs", "id")])


MIGRATIONS = [_v1, _v2, _v3, _v4, _v5, _v6, _v7, _v8, _v9, _v10, _v11, _v12, _v13]
SCHEMA_VERSION = len(MIGRATIONS)


@functools.cache
def expected_columns(version: int = SCHEMA_VERSION) -> dict[str, frozenset[str]]:
    """The tables of schema `version` and their columns (built once per version, in memory, by the migrations)."""
    db = sqlite_utils.Database(memory=True)
    for migrate in MIGRATIONS[:version]:
        migrate(db)
    return {t.name: frozenset(t.columns_dict) for t in db.tables if not t.name.startswith("runs_fts")}


def missing_columns(db: sqlite_utils.Database, version: int = SCHEMA_VERSION) -> list[str]:
    """What schema `version` has and `db` lacks: "table labels" or "runs.task", in schema order ([] when
    nothing is missing). A database of another program marked with a Cockpit schema version lacks them."""
    missing = []
    for table, columns in expected_columns(version).items():
        have = set(db[table].columns_dict) if db[table].exists() else None
        if have is None:
            missing.append(f"table {table}")
        else:
            missing += [f"{table}.{c}" for c in sorted(columns - have)]
    return missing
