"""Multihop tasks (MMInA): reading hop results back from the store, and the hop report.

A run's hop result is ``runs.hops`` (:meth:`HopTracker.to_dict` at the end of
the run), each step's progress ``steps.hops``; the store reads them
(``Store.run_hops``, ``Store.step_hops``, ``Store.hop_results``) and
:func:`hop_report` turns them into MMInA's hop and task success rates.
Qt-free; the store is passed in (this package sits below the store).
"""
from __future__ import annotations

import json
from typing import Iterable


def run_hops(store, run_id: str) -> dict | None:
    """A run's final hop result (``runs.hops``), or None when it was not tracked."""
    return store.run_hops(run_id)


def step_hops(store, run_id: str) -> dict[int, dict]:
    """Each tracked step's hop progress: ``{step: {"passed", "total", "new"}}``."""
    return store.step_hops(run_id)


def _bucket(n: int) -> str:
    return "1 hop" if n == 1 else ("2-4 hops" if n <= 4 else "5+ hops")


def _rate(ok: int, n: int) -> float | None:
    return ok / n if n else None


def hop_report(store, run_ids: Iterable[str] | None = None, *, batch: str | None = None) -> dict:
    """Hop and task success over runs with a hop result (running runs left out).

    * ``hop_success_rate``: hops passed / hops, over all runs;
    * ``task_success_rate``: runs with every hop passed / runs;
    * ``by_length``: MMInA Table 3's shape, one row per task length N (hops),
      ``per_hop[j]`` = share of those runs that passed hop j+1 (hops pass in
      order, so a run that passed k hops passed hops 1..k);
    * ``by_bucket``: MMInA Table 2's columns (1 hop, 2-4 hops, 5+ hops).
    Rates are None where there is nothing to divide by.
    """
    ids = None if run_ids is None else list(run_ids)
    if ids is not None and not ids:
        return _empty_report()
    rows = store.hop_results(ids, batch)
    results = []
    for r in rows:
        try:
            d = json.loads(r["hops"])
            total, passed = int(d["total"]), int(d["passed"])
        except (ValueError, KeyError, TypeError):
            continue
        if total > 0:
            results.append((r["id"], r["task_id"], total, min(passed, total)))
    rep = _empty_report()
    if not results:
        return rep
    hops = sum(t for _, _, t, _ in results)
    hops_ok = sum(p for _, _, _, p in results)
    tasks_ok = sum(1 for _, _, t, p in results if p == t)
    rep.update(runs=len(results), hops=hops, hops_passed=hops_ok, hop_success_rate=_rate(hops_ok, hops),
               tasks_passed=tasks_ok, task_success_rate=_rate(tasks_ok, len(results)))
    lengths: dict[int, list[int]] = {}
    for _, _, t, p in results:
        lengths.setdefault(t, []).append(p)
    rep["by_length"] = [{
        "hops": n, "runs": len(ps),
        "tasks_passed": sum(1 for p in ps if p == n), "task_success_rate": _rate(sum(1 for p in ps if p == n), len(ps)),
        "hop_success_rate": _rate(sum(ps), n * len(ps)),
        "per_hop": [_rate(sum(1 for p in ps if p >= j), len(ps)) for j in range(1, n + 1)],
    } for n, ps in sorted(lengths.items())]
    buckets: dict[str, list[tuple[int, int]]] = {}
    for _, _, t, p in results:
        buckets.setdefault(_bucket(t), []).append((t, p))
    rep["by_bucket"] = [{
        "bucket": b, "runs": len(tp),
        "hop_success_rate": _rate(sum(p for _, p in tp), sum(t for t, _ in tp)),
        "task_success_rate": _rate(sum(1 for t, p in tp if p == t), len(tp)),
    } for b in ("1 hop", "2-4 hops", "5+ hops") if (tp := buckets.get(b))]
    rep["runs_list"] = [{"run_id": i, "task_id": tid, "hops": t, "passed": p} for i, tid, t, p in results]
    return rep


def _empty_report() -> dict:
    return {"runs": 0, "hops": 0, "hops_passed": 0, "hop_success_rate": None, "tasks_passed": 0,
            "task_success_rate": None, "by_length": [], "by_bucket": [], "runs_list": []}
