"""Streamed replies (#38): what streaming costs a call, and how promptly Stop ends a reply being written.

Three measures, the model being the scripted server on 127.0.0.1 (the real openai client, real HTTP):

* call: a reply of `--pieces` pieces sent at once, asked with streaming (the reply so far handed to a
  watcher, as the agent does) and without; the whole call's time, median and p95 of `--repeats`.
* cancel: a reply written a piece every 40 ms; the watcher sets the cancel event at the 10th piece.
  Time from setting it until the call has raised ModelCancelled, and until the server has seen the
  connection close (it stops writing).
* stop: the same in the real agent loop on a fixture page in real Chromium: RunControl.stop() at the
  10th piece of the step's reply, until ``Agent.run`` has returned (the step recorded as stopped).

    .venv/bin/python -m bench.stream_bench [--repeats 15] [--pieces 400] [--quick] [--json FILE]
"""
from __future__ import annotations

import tempfile
import threading
import time

from bench import harness
from cockpit.core.agent import events as ev
from cockpit.core.agent.control import RunControl
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.client import ModelCancelled, ModelClient, ModelConfig
from cockpit.core.llm.modelserver import ModelServer, Reply
from cockpit.core.localserver import LocalSite
from cockpit.core.store import Store

USER = [{"role": "user", "content": "Open the page"}]


def client_for(srv) -> ModelClient:
    return ModelClient(ModelConfig(base_url=srv.base_url, model="m", max_retries=0, timeout=60), api_key="k")


def call_times(pieces: int, repeats: int) -> dict:
    text = "Thought: " + "word " * pieces + "\nAction: Wait"
    out = {"streamed": [], "plain": []}
    with ModelServer(lambda b: Reply(text=text)) as srv, client_for(srv) as client:
        for _ in range(repeats):
            with harness.timed(out["streamed"]):
                client.chat(USER, on_delta=lambda p: None)
            with harness.timed(out["plain"]):
                client.chat(USER)
    return out


def cancel_times(repeats: int) -> dict:
    text = "Thought: " + "word " * 1000 + "\nAction: Wait"
    out = {"raised": [], "hung_up": []}
    for _ in range(repeats):
        with ModelServer(lambda b: Reply(text=text, token_delay=0.04)) as srv, client_for(srv) as client:
            cancel, at = threading.Event(), {}

            def watch(p, cancel=cancel, at=at):
                if p.pieces >= 10 and not cancel.is_set():
                    at["t"] = time.perf_counter()
                    cancel.set()
            try:
                client.chat(USER, on_delta=watch, cancel=cancel)
            except ModelCancelled:
                out["raised"].append(harness.since_ms(at["t"]))
            while not srv.abandoned and harness.since_ms(at["t"]) < 5000:
                time.sleep(0.002)
            out["hung_up"].append(harness.since_ms(at["t"]) if srv.abandoned else harness.NAN)
    return out


def stop_times(repeats: int) -> list[float]:
    text = "Thought: " + "I am looking at this page very carefully. " * 200 + "\nAction: Wait"
    times = []
    with LocalSite(harness.TEST_PAGES) as site, BrowserSession(BrowserConfig()).start() as browser, \
            tempfile.TemporaryDirectory() as home, Store(home) as store, \
            ModelServer(lambda b: Reply(text=text, token_delay=0.04)) as srv, client_for(srv) as client:
        for _ in range(repeats):
            control, at = RunControl(), {}

            def listener(e, control=control, at=at):
                if isinstance(e, ev.ModelStreaming) and e.tokens >= 10 and "t" not in at:
                    at["t"] = time.perf_counter()
                    control.stop()
            agent = Agent(browser, client, store, control=control, listener=listener, config=AgentConfig())
            result = agent.run(Fresh("Look around", site.url("agent_start.html")))
            assert result.status == "stopped", result
            times.append(harness.since_ms(at["t"]))
    return times


def main() -> None:
    args = harness.Arguments(__doc__, repeats=15, quick={"repeats": 3, "pieces": 100})
    args.add_argument("--pieces", type=int, default=400, help="pieces of the reply timed in 'call' (default 400)")
    ns = args.parse_args()
    table = harness.Table(("measure", "measure", "<34"), ("n", "n", ">3"), ("median", "median", ">8.1f", " ms"),
                          ("p95", "p95", ">8.1f", " ms"), ("max", "max", ">8.1f", " ms"))
    print(table.header())
    calls = call_times(ns.pieces, ns.repeats)
    for how in ("plain", "streamed"):
        s = harness.summary(calls[how])
        print(table.row(f"call, {ns.pieces} pieces, {how}", s["n"], s["median"], s["p95"], s["max"]))
    cancels = cancel_times(ns.repeats)
    for what, label in (("raised", "cancel -> call raised"), ("hung_up", "cancel -> server saw the hang-up")):
        s = harness.summary(v for v in cancels[what] if v == v)
        print(table.row(label, s["n"], s["median"], s["p95"], s["max"]))
    s = harness.summary(stop_times(ns.repeats))
    print(table.row("Stop mid-reply -> run ended", s["n"], s["median"], s["p95"], s["max"]))
    harness.write_json(ns.json, {"rows": table.rows})


if __name__ == "__main__":
    main()
