"""The requests and replies behind a verdict of a judge that asks several questions per run (WebJudge:
key points, each screenshot, the outcome), kept with the verdict so a person can see why it decided."""
from __future__ import annotations

import time

from cockpit.core.store.db import Store, where_equal

FIELDS = ("stage", "step", "request", "reply", "score", "kept", "note", "prompt_tokens", "completion_tokens",
          "cost")


def save(store: Store, run_id: str, judge: str, prompt_version: str, verdict: int | None, stages: list[dict], *,
         reply: str) -> None:
    """Store the verdict (k = 0; tokens and cost summed over the stages) and its stages in one transaction,
    replacing an earlier judgement of this run by this judge and prompt version."""
    now = time.time()
    costs = [s["cost"] for s in stages if s.get("cost") is not None]
    row = {"run_id": run_id, "judge": judge, "k": 0, "prompt_version": prompt_version, "verdict": verdict,
           "reply": reply, "prompt_tokens": sum(s.get("prompt_tokens") or 0 for s in stages),
           "completion_tokens": sum(s.get("completion_tokens") or 0 for s in stages),
           "cost": sum(costs) if costs else None, "created": now}
    key = [run_id, judge, prompt_version]
    with store.atomic():
        store.db.execute("DELETE FROM verdicts WHERE run_id = ? AND judge = ? AND k = 0 AND prompt_version = ?", key)
        store.db.execute("DELETE FROM judge_stages WHERE run_id = ? AND judge = ? AND prompt_version = ?", key)
        store.db["verdicts"].insert(row)
        store.db["judge_stages"].insert_all(
            [{"run_id": run_id, "judge": judge, "prompt_version": prompt_version, "position": i, "created": now,
              **{f: s.get(f) for f in FIELDS}} for i, s in enumerate(stages)])


def of(store: Store, run_id: str, judge: str | None = None, prompt_version: str | None = None) -> list[dict]:
    """A run's stages (this judge's and prompt version's when given), in the order they were asked."""
    where, params = where_equal(run_id=run_id, judge=judge, prompt_version=prompt_version)
    return store.rows(f"SELECT * FROM judge_stages{where} ORDER BY judge, prompt_version, position", params)
