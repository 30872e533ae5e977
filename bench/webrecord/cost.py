"""Recording on against off, in one bench run: the real agent on the demo shop (step_bench's browsing policy,
an instant loopback model unless a delay is asked for), runs with recording on and off taking turns in one
browser, each step's time outside the model call, and the archive's size per step."""
from __future__ import annotations

import time
from pathlib import Path

from bench import harness
from bench.step_bench import browsing_policy
from bench.webrecord.sizes import per_step
from cockpit.core import resources
from cockpit.core.agent import events as ev
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserSession
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.localserver import LocalSite
from cockpit.core.store import Store


def measure(home: Path, rounds: int, steps: int, model_delay: float) -> dict:
    """{"on": [ms per step], "off": [...], "sizes": [bytes per step of the recorded runs]}."""
    out = {"on": [], "off": [], "sizes": [], "phases": {"on": {}, "off": {}}}

    def policy(body):
        text = browsing_policy(body)
        return Reply(text=text, delay=model_delay) if model_delay else text

    with resources.path("demo_site") as shop, LocalSite(shop) as site, ModelServer(policy) as srv, \
            Store(home) as store, BrowserSession() as session:
        client = ModelClient(ModelConfig(base_url=srv.base_url, model="bench", max_retries=0), api_key="x")
        for r in range(rounds):
            for mode in (("on", "off") if r % 2 == 0 else ("off", "on")):  # neither always goes first
                started, model_s, overhead = {}, {}, []

                def listen(e, started=started, model_s=model_s, overhead=overhead):
                    now = time.perf_counter()
                    if isinstance(e, ev.StepStarted):
                        started[e.step] = now
                    elif isinstance(e, ev.ModelReplied):
                        model_s[e.step] = e.seconds
                    elif isinstance(e, ev.StepFinished) and e.step in model_s:
                        overhead.append((now - started[e.step] - model_s[e.step]) * 1000)

                session.fresh_context()
                agent = Agent(session, client, store, config=AgentConfig(max_steps=steps, approval_policy="never",
                                                                         record_web=mode == "on"), listener=listen)
                result = agent.run(Fresh("Browse the shop", site.url("index.html")))
                out[mode] += overhead[1:]  # the first step opens the page: the same either way, and noisy
                for row in store.steps(result.run_id, with_request=False)[1:]:
                    for k in ("observe_ms", "act_ms", "store_ms"):
                        out["phases"][mode].setdefault(k, []).append((row.get("timings") or {}).get(k) or 0.0)
                if mode == "on":
                    out["sizes"] += list(per_step(store.run_dir(result.run_id)).values())
        client.close()
    return out


def report(m: dict, model_delay: float) -> dict:
    on, off = harness.summary(m["on"]), harness.summary(m["off"])
    ratio = on["median"] / off["median"] if off["median"] else harness.NAN
    table = harness.Table(("mode", "per step outside the model", "<30"), ("n", "steps", ">5d"),
                          ("median_ms", "median", ">7.0f", "ms"), ("p95_ms", "p95", ">7.0f", "ms"))
    print(f"cost on the demo shop (model {'instant' if not model_delay else f'{model_delay:g} s'}):")
    print(table.header())
    print(table.row("recording off", len(m["off"]), off["median"], off["p95"], record={"mode": "off"}))
    print(table.row("recording on", len(m["on"]), on["median"], on["p95"], record={"mode": "on"}))
    for k in ("observe_ms", "act_ms", "store_ms"):
        a, b = (harness.median(m["phases"][mode].get(k, [])) for mode in ("off", "on"))
        print(f"  {k[:-3]:<8} median off {a:6.0f}ms  on {b:6.0f}ms")
    print(f"recording on / off, median per step: {ratio:.3f} ({(ratio - 1) * 100:+.1f} %; target <= +10 %)")
    sizes = harness.summary(m["sizes"])
    print(f"archive per step on the demo shop: median {sizes['median'] / 1e3:.1f} kB, p95 {sizes['p95'] / 1e3:.1f} kB "
          f"({len(m['sizes'])} steps; target median <= 1 MB)")
    return {"model_delay_s": model_delay, "rows": table.rows, "ratio": ratio, "size_median_b": sizes["median"],
            "size_p95_b": sizes["p95"], "size_steps": len(m["sizes"])}
