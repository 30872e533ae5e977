"""The same batch run locally and on a real Selenium Grid 4, at concurrency 1, 2 and 4 (issue #21).

Starts a Grid on 127.0.0.1 (testkit.grid: a hub and 2 nodes of 2 slots; needs Java and the
jar that scripts/setup.sh fetches), serves a two-page site, and runs N tasks with a scripted model
that answers at once (open the details page, then answer), so what is measured is Cockpit and the
browser. Prints, for each place and concurrency: wall time, tasks per minute, and per step the
median observation time (settle + marks + screenshot) and action time, from the runs' own timings.

    .venv/bin/python -m bench.grid_bench [--tasks 8] [--concurrency 1,2,4] [--where local,grid]
                                         [--isolation fresh,shared] [--model-ms 1000] [--quick] [--json FILE]

Each place and concurrency runs twice (issue #32): "fresh", a clean browser per task as `cockpit run --tasks`
gives (a new browser context in the worker's Chrome, else a new browser), and "shared", each worker's tasks in
one browser (`--keep-browser-state`); the ratio of their throughputs is what isolation costs. The details page
counts earlier visits (a cookie and localStorage) and the model answers with it: "1st visit" says how many
tasks saw a first visit (all of them, when fresh). "browsers" counts the browsers the batch started.

The machine's two cores run the Grid's Java processes, every Chromium and Cockpit: compare the
rows of one run with each other, not with another day's.
"""
from __future__ import annotations

import contextlib
import re
import sys
import tempfile
import time
from pathlib import Path

from bench import harness
from cockpit.core.agent.approval import PolicyApprover
from cockpit.core.agent.batch import Batch
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.browser.session import BrowserConfig
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import LocalSite
from cockpit.core.store import Store
from cockpit.core.tasks.task import Task
from testkit import grid as gridmod

START = """<!doctype html><title>Start</title><body style="font:16px sans-serif;margin:40px">
<h1>Catalogue</h1><p><a href="details.html">Open the details page</a></p>
<ul>{items}</ul></body>"""
DETAILS = """<!doctype html><title>Details</title><body style="font:16px sans-serif;margin:40px">
<h1>Details</h1><p>Forty-two items.</p><a href="start.html">Back</a>
<script>  // counts earlier visits (a cookie and localStorage): the answer says which visit this was
const c = Number((document.cookie.match(/(?:^|; )seen=(\\d+)/) || [0, 0])[1]);
const l = Number(localStorage.getItem("seen") || 0);
document.title = "Details (visit " + Math.max(c, l) + ")";
document.cookie = "seen=" + (c + 1) + "; path=/"; localStorage.setItem("seen", String(l + 1));
</script></body>"""


MODEL_SECONDS = 0.0  # --model-ms: how long each reply takes, as a real model's would


def respond(body):
    time.sleep(MODEL_SECONDS)
    text = body["messages"][-1]["content"][0]["text"]
    if m := re.search(r"The page is 'Details \(visit (\d+)\)'", text):
        return f"Thought: here\nAction: ANSWER; visit {m.group(1)}"
    n = re.search(r"^\[(\d+)\]: <a> \"Open the details page\"", text, re.M).group(1)
    return f"Thought: go\nAction: Click [{n}]"


def run_batch(where: str, url: str | None, site: LocalSite, model_url: str, n: int, conc: int, home: Path,
              keep: bool = False):
    tasks = [Task(f"{where}-{conc}--{i}", f"how many items? ({i})", site.url("start.html")) for i in range(n)]
    browser = BrowserConfig(webdriver_url=url, extra_args=["--no-sandbox"] if url else [])
    b = Batch(tasks, ModelConfig(base_url=model_url, model="m", max_retries=0), AgentConfig(max_steps=4),
              browser, approver_factory=lambda: PolicyApprover(False), store_root=home, api_key="k",
              concurrency=conc, resume=False, keep_browser=keep)
    started = []
    real_start = b._start_session
    b._start_session = lambda: started.append(1) or real_start()  # counts the browsers the batch started
    t0 = time.monotonic()
    items = b.run()
    wall = time.monotonic() - t0
    ok = sum(1 for it in items if it.result and it.result.status == "answered")
    first = sum(1 for it in items if it.result and it.result.answer == "visit 0")
    obs, act = [], []
    with Store(home) as store:
        for it in items:
            if it.result and it.result.run_id:
                for s in store.steps(it.result.run_id):
                    t = s.get("timings") or {}
                    if "observe_ms" in t:
                        obs.append(t["observe_ms"])
                    if "act_ms" in t:
                        act.append(t["act_ms"])
    return {"wall": wall, "ok": ok, "first": first, "browsers": len(started), "steps": len(obs),
            "observe": harness.median(obs), "act": harness.median(act)}


def main(argv=None) -> int:
    ap = harness.Arguments(__doc__, quick={"tasks": 2, "concurrency": "1", "where": "local"})
    ap.add_argument("--tasks", type=int, default=8)
    ap.add_argument("--concurrency", default="1,2,4")
    ap.add_argument("--isolation", default="fresh,shared",
                    help="fresh: a clean browser per task (a new context, else a new browser); shared: each "
                         "worker's tasks share its browser (--keep-browser-state); default both, in turn")
    ap.add_argument("--where", default="local,grid", help="local, grid or both (default)")
    ap.add_argument("--model-ms", type=int, default=0, help="each model reply takes this long (default 0: at once)")
    args = ap.parse_args(argv)
    wheres = args.where.split(",")
    if "grid" in wheres and (why := gridmod.missing()):
        print(f"cannot run a Grid here: {why}", file=sys.stderr)
        return 1
    global MODEL_SECONDS
    MODEL_SECONDS = args.model_ms / 1000
    levels = [int(c) for c in args.concurrency.split(",")]
    modes = args.isolation.split(",")
    tmp = Path(tempfile.mkdtemp(prefix="grid-bench-"))
    (tmp / "site").mkdir()
    (tmp / "site" / "start.html").write_text(START.format(items="".join(f"<li>item {i}</li>" for i in range(42))))
    (tmp / "site" / "details.html").write_text(DETAILS)
    print(f"{args.tasks} tasks of 2 steps each; a scripted model that answers "
          + (f"in {args.model_ms} ms" if args.model_ms else "at once")
          + (f"; Grid 4 {gridmod.JAR_VERSION}: a hub and 2 nodes of {max(levels) // 2 or 1} slots on 127.0.0.1"
             if "grid" in wheres else ""))
    table = harness.Table(("where", "where", "<6"), ("concurrency", "conc", ">4"), ("isolation", "isolation", "<9"),
                          ("answered", "answered", ">8"), ("first_visit", "1st visit", ">9"),
                          ("browsers", "browsers", ">8"), ("wall_s", "wall s", ">7.1f"),
                          ("tasks_per_min", "tasks/min", ">9.1f"), ("observe_ms", "observe ms", ">10.0f"),
                          ("act_ms", "act ms", ">7.0f"))
    print(table.header("   (medians per step)"))
    with LocalSite(tmp / "site") as site, ModelServer(respond) as srv, \
            (gridmod.LocalGrid(nodes=2, slots=max(1, max(levels) // 2)) if "grid" in wheres
             else contextlib.nullcontext()) as grid:
        for conc in levels:
            for where in wheres:
                url = grid.url if where == "grid" else None
                rate = {}
                for mode in modes:
                    r = run_batch(where, url, site, srv.base_url, args.tasks, conc,
                                  tmp / f"home-{where}-{conc}-{mode}", keep=mode == "shared")
                    rate[mode] = args.tasks / r["wall"] * 60
                    print(table.row(where, conc, mode, f"{r['ok']:>5}/{args.tasks:<2}",
                                    f"{r['first']:>6}/{args.tasks:<2}", r["browsers"], r["wall"], rate[mode],
                                    r["observe"], r["act"]), flush=True)
                if len(rate) == 2:
                    print(f"{'':<11} fresh / shared throughput: {rate['fresh'] / rate['shared']:.0%}", flush=True)
    harness.write_json(args.json, {"tasks": args.tasks, "model_ms": args.model_ms, "rows": table.rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
