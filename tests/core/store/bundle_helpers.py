"""Stores with real runs (rows and files) for the bundle and label-exchange tests."""
import hashlib
import json

from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit, ok
from tests.images import png

#: (run id, steps, demo): six finished runs, one of them a demo run.
RUNS = [(f"r{i}", 1 + i % 3, i == 6) for i in range(1, 7)]
ALICE = {"r1": "success", "r2": "fail", "r3": "success", "r4": "fail", "r5": "success", "r6": "fail"}
BOB = {"r1": "success", "r2": "fail", "r3": "fail", "r4": "fail", "r5": "success", "r6": "success"}


def make_runs(store: Store, runs=RUNS) -> None:
    for n, (rid, steps, demo) in enumerate(runs):
        store.new_run(NewRun(f"task of {rid}", "http://example.test/", run_id=rid, task_id=f"t--{rid}",
                             site="example", model="m", demo=demo, started=1000.0 + n))
        for k in range(1, steps + 1):
            files = store.write_step_files(rid, k, screenshot=png((10 * n, k, 0)), marked=png((10 * n, k, 99)),
                                           marks=[{"id": 1, "bbox": [1, 2, 3, 4], "label": f"{rid}/{k}"}])
            store.commit_step(rid, dict(step=k, reply="Thought: t\n\nAction: Click [1]", action="Click [1]",
                                        status="ok", request=[{"role": "user", "content": "go"}],
                                        started=1000.0 + n, finished=1001.0 + n, **files))
        store.finish_run(rid, "answered", answer=f"answer of {rid}")


def label(home, who: str, verdicts: dict, category="Navigation stuck") -> None:
    from cockpit.core.store import labels as lb
    with Store(home) as store:
        for rid, v in verdicts.items():
            lb.set_label(store, rid, who, v, category=category if v == "fail" else "", comment=f"{who} on {rid}",
                         seconds=12.5)


def snapshot(home) -> tuple:
    """Everything a store holds: every table's rows and every file (with its bytes' hash) under it."""
    with Store(home) as store:
        tables = {t: sorted(json.dumps(r, sort_keys=True) for r in store.rows(f"SELECT * FROM [{t}]"))
                  for t in ("runs", "steps", "decisions", "labels", "step_labels", "annotators")}
    files = sorted((str(p.relative_to(home)), hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir")
                   for p in home.rglob("*") if not p.name.startswith("cockpit.db"))
    return tables, files


def bundle(home, out, *runs):
    return ok(cockpit(home, "export", *(runs or ["all"]), "--format", "bundle", "--out", str(out)))
