"""Upgrading the store schema (here v5 -> v6, issue #7's look-ahead columns) on a database with runs."""
from __future__ import annotations

import json

import pytest
import sqlite_utils

from cockpit.core.store import SCHEMA_VERSION, Store
from cockpit.core.store.schema import MIGRATIONS


def v5_database(root) -> None:
    db = sqlite_utils.Database(root / "cockpit.db")
    for i, migrate in enumerate(MIGRATIONS[:5], 1):
        migrate(db)
        db.execute(f"PRAGMA user_version = {i}")
    db["runs"].insert({"id": "old", "task": "an old task", "url": "http://x", "status": "interrupted", "steps": 2,
                       "prompt_tokens": 30, "config": json.dumps({"agent": {"max_steps": 5}})})
    for n in (1, 2):
        db["steps"].insert({"run_id": "old", "step": n, "url": "http://x", "status": "ok", "reply": "r",
                            "action": "Scroll [WINDOW]; down", "prompt_tokens": 15})
    db.conn.commit()
    db.conn.close()


@pytest.mark.fault("store")
def test_a_v5_database_with_runs_is_upgraded_and_keeps_them(tmp_path):
    v5_database(tmp_path)
    with Store(tmp_path) as store:
        assert store.version == SCHEMA_VERSION >= 6  # and on through later migrations
        run = store.run("old")
        assert (run["steps"], run["prompt_tokens"], run["plan_calls"], run["plan_cost"]) == (2, 30, 0, None)
        assert [(s["step"], s["prediction"], s["plan"], s["plan_calls"]) for s in store.steps("old")] == \
               [(1, None, None, 0), (2, None, None, 0)]
        store.commit_step("old", dict(step=3, status="ok", plan_calls=2, plan_prompt_tokens=10, prompt_tokens=5,
                                      plan={"chosen": 1, "candidates": []}))
        run = store.run("old")
        assert (run["steps"], run["prompt_tokens"], run["plan_calls"], run["plan_prompt_tokens"]) == (3, 35, 2, 10)


@pytest.mark.fault("store")
def test_two_programs_upgrading_the_same_database_at_once(tmp_path, monkeypatch):
    """Two Cockpits started together on an old database (a window and a `cockpit run`): both see
    version 5; the one that gets the write lock second must find the work done, not fail on it."""
    v5_database(tmp_path)
    real_tx, raced = Store._tx, []

    def tx(self):
        if not raced:  # the other program upgrades between our version check and our transaction
            raced.append(True)
            Store(tmp_path).close()
        return real_tx(self)

    monkeypatch.setattr(Store, "_tx", tx)
    with Store(tmp_path) as store:
        assert store.version == SCHEMA_VERSION
        assert store.run("old")["steps"] == 2
