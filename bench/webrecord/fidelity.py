"""Fidelity on a changed real app: Datasette (PyPI, from bench/.apps) serving a small shop database.

Each recorded run opens the products sorted by price, opens one product, goes back to the table, sorts it by
price again and answers (4 steps). Then the data is reseeded: every price changes (the list reorders), one
product is renamed and another added. Each run is branched at its last step twice, live and ``recorded``;
a branch is faithful when it reaches that step with the same marks (tag, label, box) and a near-identical
screenshot (at most 1 % of pixels differ) as the recording had. Recorded replays run in a browser whose every
request, to this machine's servers too, goes to a proxy that forwards nothing (proxy.py): what it sees left
the browser. Chromium sends some requests of its own whatever page it shows (its component updater, Google
accounts, the default search engine); a browser that opens no page for as long as a replay takes is counted
too, and the two kinds are told apart by host.
"""
from __future__ import annotations

import io
import re
import sqlite3
import time
from pathlib import Path
from urllib.parse import urlsplit

from PIL import Image, ImageChops

from bench.apps import BIN, NOT_INSTALLED, App, Running, installed
from bench.webrecord.proxy import CountingProxy
from cockpit.core.agent.approval import PolicyApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh, RunContext
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.replay.branch import branch
from cockpit.core.replay.replay import ReplayOptions, replay
from cockpit.core.store import Store
from cockpit.core.store.stepmarks import step_marks

APP = App("datasette-shop", 8771, "Datasette 0.65 serving a shop database (products, prices)")
PRODUCTS = ["Blue teapot", "Red kettle", "Green mug", "Yellow cup", "Black pan", "White plate", "Oak board",
            "Steel knife", "Glass jar", "Clay bowl", "Tin box", "Cork mat"]
MAX_PIXELS = 0.01


def seed(db: Path, changed: bool = False) -> None:
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE IF NOT EXISTS products (id INTEGER PRIMARY KEY, name TEXT, price REAL, stock INT)")
    con.execute("DELETE FROM products")
    for i, name in enumerate(PRODUCTS, 1):
        price = (i * 7) % 13 + 3 if not changed else (i * 5) % 11 + 4.5
        if changed and name == "Red kettle":
            name = "Crimson kettle"
        con.execute("INSERT INTO products VALUES (?,?,?,?)", (i, name, price, 10 + i))
    if changed:
        con.execute("INSERT INTO products VALUES (?,?,?,?)", (len(PRODUCTS) + 1, "Copper pot", 1.0, 3))
    con.commit()
    con.close()


def shopper(target: int):
    """Open product `target` from the table sorted by price, back to the table, sort by price, answer."""
    def link(text: str, label: str) -> str:
        m = re.search(rf'^\[(\d+)\]: <a> "{re.escape(label)}"', text, re.M)
        if not m:
            raise AssertionError(f"no link {label!r} on the page:\n{text[:3000]}")
        return m.group(1)

    def respond(body):
        n = sum(1 for m in body["messages"] if m["role"] == "assistant")
        text = body["messages"][-1]["content"][0]["text"]
        if n == 0:
            return f"Thought: open it\nAction: Click [{link(text, str(target))}]"
        if n == 1:
            return f"Thought: back to the table\nAction: Click [{link(text, 'products')}]"
        if n == 2:
            return f"Thought: cheapest first\nAction: Click [{link(text, 'price')}]"
        return "Thought: that is the list\nAction: ANSWER; done"
    return respond


def pixels_differ(a: bytes, b: bytes) -> float:
    ia, ib = Image.open(io.BytesIO(a)).convert("RGB"), Image.open(io.BytesIO(b)).convert("RGB")
    if ia.size != ib.size:
        return 1.0
    diff = ImageChops.difference(ia, ib).convert("L").point(lambda v: 255 if v > 16 else 0)
    return diff.histogram()[255] / (ia.size[0] * ia.size[1])


def same_page(store: Store, parent: str, k: int, child: str) -> tuple[bool, str]:
    """Whether branch `child`'s first step saw what step `k` of `parent` saw: marks, and the screenshot."""
    rows = store.steps(child, with_request=False)
    if not rows:
        return False, "no step"
    was = next(r for r in store.steps(parent, with_request=False) if r["step"] == k)
    now = rows[0]
    key = [(m.tag, m.label, tuple(m.bbox)) for m in (step_marks(store, was) or [])]
    if key != [(m.tag, m.label, tuple(m.bbox)) for m in (step_marks(store, now) or [])]:
        return False, "marks differ"
    share = pixels_differ(store.read_file(was["screenshot_clean"]), store.read_file(now["screenshot_clean"]))
    return share <= MAX_PIXELS, f"{share * 100:.2f} % of pixels differ"


def measure(home: Path, runs: int, data: Path) -> dict:
    if not installed():
        raise SystemExit(NOT_INSTALLED)
    data.mkdir(parents=True, exist_ok=True)
    db = data / "shop.db"
    seed(db)
    cmd = [str(BIN / "datasette"), "serve", str(db), "-h", "127.0.0.1", "-p", str(APP.port)]
    out = {"recorded": [], "live": [], "replay_requests": [], "replay_missing": [], "branch_after": [],
           "replay_site": [], "replay_seconds": []}
    app = Running(APP, data, cmd=cmd, cwd=data, nice=5)
    app.start()
    proxy = CountingProxy()
    try:
        with Store(home) as store:
            start = f"{APP.base}/shop/products?_sort=price"
            run_ids = []
            with BrowserSession() as session:
                for i in range(runs):
                    target = 1 + (i * 5) % len(PRODUCTS)
                    with ModelServer(shopper(target)) as srv:
                        client = ModelClient(ModelConfig(base_url=srv.base_url, model="bench", max_retries=0),
                                             api_key="x")
                        session.fresh_context()
                        res = Agent(session, client, store, config=AgentConfig(max_steps=6, wait_seconds=0.5),
                                    approver=PolicyApprover(True)).run(Fresh(f"product {target}", start))
                        client.close()
                    if res.status != "answered":
                        raise SystemExit(f"recording run {i} did not finish: {res.status} {res.error}")
                    run_ids.append(res.run_id)
            seed(db, changed=True)  # the site changes under the recordings
            answer = ["Thought: here\nAction: ANSWER; done"] * (4 * runs)
            with ModelServer(answer) as srv:
                client = ModelClient(ModelConfig(base_url=srv.base_url, model="bench", max_retries=0), api_key="x")
                watched = BrowserConfig(extra_args=proxy.chrome_args)
                for rid in run_ids:
                    k = store.run(rid)["steps"]
                    before, t0 = len(proxy.seen), time.monotonic()  # the browser's start counts too
                    with BrowserSession(watched) as s:  # replay only, as recorded: what leaves the browser
                        done = replay(RunContext(s, store), rid, None, ReplayOptions(recorded=True))
                    out["replay_seconds"].append(time.monotonic() - t0)
                    sent = proxy.seen[before:]
                    out["replay_requests"].append(len(sent))
                    out["replay_site"].append(sum(urlsplit(APP.base).netloc in r for r in sent))
                    out["replay_missing"].append(sum(len(d.missing) for d in done))
                    for mode in ("recorded", "live"):
                        with BrowserSession(watched if mode == "recorded" else BrowserConfig()) as s:
                            before = len(proxy.seen)
                            b = branch(RunContext(s, store, client, PolicyApprover(True)), rid, k,
                                       AgentConfig(max_steps=1), recorded=mode == "recorded")
                            if mode == "recorded":
                                out["branch_after"].append(len(proxy.seen) - before)
                        ok, why = (False, f"diverged: {b.divergence.reason}") if b.divergence is not None else \
                            same_page(store, rid, k, b.run_id)
                        out[mode].append((ok, why))
                client.close()
        out["proxy_seen"] = list(proxy.seen)
        before, t0 = len(proxy.seen), time.monotonic()
        with BrowserSession(watched):  # the browser alone, opening nothing, as long as a replay took
            time.sleep(max(0.0, sum(out["replay_seconds"]) / max(1, len(out["replay_seconds"]))
                           - (time.monotonic() - t0)))
        out["idle_requests"] = proxy.seen[before:]
    finally:
        proxy.close()
        app.close()
    return out


def report(m: dict) -> dict:
    n = len(m["recorded"])
    rec, live = sum(ok for ok, _ in m["recorded"]), sum(ok for ok, _ in m["live"])
    print(f"fidelity on Datasette after reseeding (prices, order, a renamed and a new product), {n} runs of 4 steps,"
          " branched at the last step:")
    print(f"  recorded: {rec}/{n} reach it with the same marks and screenshot ({rec / n * 100:.0f} %; target 100 %)")
    print(f"  live:     {live}/{n} ({live / n * 100:.0f} %); why not: "
          + ", ".join(sorted({why for ok, why in m["live"] if not ok})))
    if rec < n:
        print("  recorded misses: " + ", ".join(why for ok, why in m["recorded"] if not ok))
    site = urlsplit(APP.base).netloc
    hosts = sorted({r.split()[1].split("/")[2] if "://" in r else r.split()[1].split(":")[0]
                    for r in m["proxy_seen"]} - {site})
    print(f"requests to the recorded site during the {n} recorded replays: {sum(m['replay_site'])} (target 0); "
          f"not in the recording: {sum(m['replay_missing'])}")
    print(f"all requests that left the browser during them: {sum(m['replay_requests'])} (per replay "
          f"{m['replay_requests']}), to {', '.join(hosts) or 'nowhere'}: Chromium's own; a browser opening no "
          f"page sent {len(m['idle_requests'])} in as long")
    return {"runs": n, "recorded_ok": rec, "live_ok": live, "recorded": m["recorded"], "live": m["live"],
            "replay_requests": m["replay_requests"], "replay_missing": m["replay_missing"],
            "replay_site_requests": m["replay_site"], "idle_requests": m["idle_requests"],
            "proxy_seen": m["proxy_seen"],
            "branch_requests_after_replay": m["branch_after"]}
