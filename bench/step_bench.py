"""Per-step agent overhead outside the model call, on the bundled demo shop.

Runs the real agent loop (real Chromium, real store in a temp dir, the real
openai client) against an instant loopback "model" that browses the shop:
scroll down, scroll up, open a product, go back, search, and so on. For each
step it takes the wall time from StepStarted to StepFinished minus the model
call's own time, i.e. observe + prompt + execute + settle + store. Prints the
median and p95 per phase. Target (issue #3): well under 1 s per step.

--tickers serves the shop with the page rhythm many real pages have (issue #32): a one-second
countdown (setInterval) and a 100 ms poll re-armed from its own callback on every page, which the
action did not cause and settling must not wait for. Target: <= 0.35 s per step outside the model.

    .venv/bin/python -m bench.step_bench [--steps 60] [--tickers] [--quick] [--json FILE]
"""
from __future__ import annotations

import re
import shutil
import tempfile
import time
from pathlib import Path

from bench import harness
from cockpit.core import resources
from cockpit.core.agent import events as ev
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserSession
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import LocalSite
from cockpit.core.store import Store

CYCLE = ["Scroll [WINDOW]; down", "Scroll [WINDOW]; up", "product", "GoBack", "search", "product", "GoBack"]


def browsing_policy(body: dict) -> str:
    n = sum(1 for m in body["messages"] if m["role"] == "assistant")
    text = body["messages"][-1]["content"][0]["text"]
    what = CYCLE[n % len(CYCLE)]
    if what == "product":
        links = re.findall(r"^\[(\d+)\]: <a> \"([^\"]*)\"", text, re.M)
        m = next((k for k, label in links if label not in ("Demo Shop",) and not label.startswith("Cart")), None)
        what = f"Click [{m}]" if m else "Scroll [WINDOW]; down"
    elif what == "search":
        m = re.search(r"^\[(\d+)\]: <input[^>]*> \"Search products\"", text, re.M)
        what = f"Type [{m.group(1)}]; headphones" if m else "GoBack"
    return f"Thought: keep browsing.\nAction: {what}"


TICKERS = """<div style="position:fixed;right:8px;bottom:8px">Offer ends in <span id="left">60</span> s</div>
<script>
let left = 60, polls = 0;
setInterval(() => { left = left > 0 ? left - 1 : 60; document.getElementById("left").textContent = left; }, 1000);
function poll() { polls++; setTimeout(poll, 100); }
setTimeout(poll, 100);
</script>
"""


def with_tickers(src: Path, dest: Path) -> Path:
    """A copy of the shop whose every page runs a countdown and a self-re-arming poll."""
    shutil.copytree(src, dest)
    for page in dest.glob("*.html"):
        page.write_text(page.read_text().replace("</body>", TICKERS + "</body>"))
    return dest


def main():
    ap = harness.Arguments(__doc__, quick={"steps": 8})
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--tickers", action="store_true",
                    help="every page runs a 1 s countdown and a 100 ms self-re-arming poll")
    args = ap.parse_args()
    marks = {}
    started, model_s, overhead, phases = {}, {}, [], {"observe_ms": [], "act_ms": [], "commit_ms": []}
    finished_at = {}

    def listen(e):
        now = time.perf_counter()
        if isinstance(e, ev.StepStarted):
            started[e.step] = now
        elif isinstance(e, ev.ObservationReady):
            marks[e.step] = len(e.marks)
        elif isinstance(e, ev.ModelReplied):
            model_s[e.step] = e.seconds
        elif isinstance(e, ev.StepFinished):
            finished_at[e.step] = now
            overhead.append((now - started[e.step] - model_s[e.step]) * 1000)

    with tempfile.TemporaryDirectory() as home, resources.path("demo_site") as shop, \
            LocalSite(with_tickers(shop, Path(home) / "shop") if args.tickers else shop) as site, \
            ModelServer(browsing_policy) as srv, Store(home) as store, BrowserSession() as session:
        client = ModelClient(ModelConfig(base_url=srv.base_url, model="bench", max_retries=0), api_key="x")
        agent = Agent(session, client, store, config=AgentConfig(max_steps=args.steps, approval_policy="never"),
                      listener=listen)
        t0 = time.perf_counter()
        result = agent.run(Fresh("Browse the shop", site.url("index.html")))
        wall = time.perf_counter() - t0
        rows = store.steps(result.run_id)
        for r in rows:
            t = r["timings"]
            phases["observe_ms"].append(t["observe_ms"])
            phases["act_ms"].append(t["act_ms"])
        for r, oh in zip(rows, overhead, strict=False):
            phases["commit_ms"].append(oh - r["timings"]["observe_ms"] - r["timings"]["act_ms"])
        client.close()
    statuses = {}
    for r in rows:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    print(f"{len(rows)} steps on the demo shop{' with tickers' if args.tickers else ''} in {wall:.1f} s "
          f"({result.status}); statuses {statuses}; marks per page median {harness.median(marks.values()):.0f}")
    table = harness.Table(("phase", "per step, outside the model call", "<36"), ("median_ms", "median", ">6.0f", "ms"),
                          ("p95_ms", "p95", ">6.0f", "ms"), ("mean_ms", "mean", ">6.0f", "ms"))
    print(table.header())
    labels = {"overhead_ms": "total overhead", "observe_ms": "  observe + write files",
              "act_ms": "  execute + settle (after the model)", "commit_ms": "  prompt building + commit + events"}
    for name, vals in {"overhead_ms": overhead, **phases}.items():
        s = harness.summary(vals)
        print(table.row(labels[name], s["median"], s["p95"], s["mean"], record={"key": name}))
    model_ms = harness.median(model_s.values()) * 1000
    print(f"model call median (loopback, instant): {model_ms:.0f}ms")
    harness.write_json(args.json, {"steps": len(rows), "wall_s": wall, "status": result.status, "statuses": statuses,
                                   "tickers": args.tickers, "phases": table.rows, "model_ms_median": model_ms})


if __name__ == "__main__":
    main()
