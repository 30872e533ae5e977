"""Pixel-grounded agents against mark agents, on the same tasks (issue #27).

Each task is a short script in page terms (click this element, type that, answer). The scripted model
(testkit.pixelmodel) answers it in every dialect: marks (Click [N], the mark holding the target),
and each pixel dialect in its coordinate space, pointing at the target's true centre on the live page,
converted for the screenshot the request carries. Everything else is real: Chromium, the agent loop, the
gate, the store, the openai client over HTTP.

Per dialect it prints: tasks completed (every step ok, the answer given, and the task's own check on the
page true), the distance between the executed point and the target's true centre (px; what the model's
grid rounds it to), the conversion error (executed point against the model's point converted exactly: 0
means Cockpit added nothing), the pointed steps whose feedback to the model names the very point it wrote
("clicked at 37, 169"; issue #39), and seconds per step outside the model (observe + gate + act + record).

Two more rows play a Qwen2.5-VL server started with ``max_pixels=1003520`` (vLLM's ``--mm-processor-kwargs``,
issue #39): ``qwen@1003520`` with Cockpit told that budget (``--qwen-max-pixels``), ``qwen@1003520?`` not told
(it assumes the model card's budget, as Cockpit did before it could be told).

    .venv/bin/python -m bench.pixel_bench                       # fixture tasks, device scale 1 and 2
    .venv/bin/python -m bench.pixel_bench --apps                # and the real apps of bench/grounding
    .venv/bin/python -m bench.pixel_bench --dialects plain,qwen --scales 1 -v
    .venv/bin/python -m bench.pixel_bench --quick               # marks and plain, scale 1

The real apps need `.venv/bin/python -m bench.apps install` once.
"""
from __future__ import annotations

import contextlib
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import harness
from bench.apps import NOT_INSTALLED
from cockpit.core.actions import coords
from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.approval import PolicyApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.llm.client import ModelClient, ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import LocalSite
from cockpit.core.store import Store
from testkit.pixelmodel import Move, PixelModel

PAGES = harness.TEST_PAGES
MODES = [("marks", "pixels"), ("plain", "pixels"), ("uitars", "qwen"), ("uitars", "norm1000"), ("qwen", "qwen"),
         ("claude", "pixels"), ("openai_tools", "norm1"), ("openai_computer", "pixels"),
         ("qwen", "qwen@1003520"), ("qwen", "qwen@1003520?")]
SERVED = (coords.QWEN_MIN_PIXELS, 1003520)  # the budget of the server the qwen@1003520 rows play


def served(space: str) -> tuple[str, tuple[int, int], dict]:
    """(the coordinate space, the budget the model's server uses, what Cockpit is told) of a mode's space."""
    if not space.startswith("qwen@"):
        return space, coords.QWEN_BUDGET, {}
    told = {} if space.endswith("?") else {"qwen_min_pixels": SERVED[0], "qwen_max_pixels": SERVED[1]}
    return "qwen", SERVED, told


@dataclass
class Task:
    name: str
    url: str  # a fixture page's name, or an app state's full URL
    steps: list  # ("click", sel) | ("type", sel, text, enter) | ("hover", sel) | ("press", key)
    check: str = ""  # a JS expression true on the page when the task was done
    base: str = ""


FIXTURES = [
    Task("mousedown", "pixel_shop.html", [("click", "#press")],
         "document.getElementById('status').textContent === 'highlighted'"),
    Task("form", "pixel_shop.html", [("type", "#name", "Ada", False), ("click", "#press")],
         "document.getElementById('name').value === 'Ada' && "
         "document.getElementById('status').textContent === 'highlighted'"),
    Task("link", "agent_start.html", [("click", "#details")], "location.pathname.endsWith('agent_details.html')"),
    Task("shadow", "shadow.html", [("type", "#w >>> input", "Ada", False), ("click", "#w >>> #b")],
         "document.getElementById('out').textContent === 'shadow clicked: Ada'"),
    Task("iframe", "iframe.html", [("click", "#f >>> #fb")],
         "document.getElementById('f').contentDocument.getElementById('o').textContent === 'frame clicked'"),
]


def moves_for(task: Task, dialect: str) -> list[Move]:
    out = []
    for st in task.steps:
        kind, sel = st[0], st[1]
        if kind == "type" and dialect == "marks":
            out.append(Move("type", sel, st[2]))  # Type [N]; text (clears the field, presses Enter unless told)
        elif kind == "type":
            out += [Move("click", sel), Move("type", text=st[2])] + ([Move("press", text="Enter")] if st[3] else [])
        elif kind == "press":
            out.append(Move("press", text=sel))
        else:
            out.append(Move(kind, sel))
    return out + [Move("answer", text="done")]


def app_tasks(apps: list[str] | None) -> list[Task]:
    from bench.grounding.apps import APPS
    from bench.grounding.states import STATES
    tasks = []
    for s in STATES:
        if not s.steps or (apps and s.app not in apps) or any("select" in st for st in s.steps):
            continue
        steps = []
        for st in s.steps:
            tgt = st.get("click") or st.get("type") or st.get("hover")
            sel = (tgt or {}).get("css") or ("text=" + tgt["text"] if tgt and "text" in tgt else "")
            if "click" in st:
                steps.append(("click", sel))
            elif "type" in st:
                steps.append(("type", sel, st["text"], st.get("enter", True)))
            elif "hover" in st:
                steps.append(("hover", sel))
            elif "press" in st:
                steps.append(("press", st["press"]))
        tasks.append(Task(s.id, APPS[s.app].base + s.path, steps, base=s.app))
    return tasks


@dataclass
class Tally:
    done: int = 0
    tasks: int = 0
    dist: list = field(default_factory=list)
    conv: list = field(default_factory=list)
    outside: list = field(default_factory=list)
    told: list = field(default_factory=list)  # per pointed step: did the feedback name the model's own point
    failed: list = field(default_factory=list)


def run_task(session, store, task: Task, url: str, dialect: str, mode_space: str, tally: Tally,
             verbose: bool) -> None:
    space, budget, told = served(mode_space)
    model = PixelModel(session, moves_for(task, dialect), dialect, space, qwen_pixels=budget)
    with ModelServer(model) as srv:
        cfg = ModelConfig(base_url=srv.base_url, model="scripted", max_retries=0, timeout=30, dialect=dialect,
                          coords=space, image_format="png", **told)
        with ModelClient(cfg, api_key="k") as client:
            agent = Agent(session, client, store, approver=PolicyApprover(True),
                          config=AgentConfig(max_steps=len(model.moves) + 1, wait_seconds=0.2))
            result = agent.run(Fresh(task.name, url))
    steps = store.steps(result.run_id, with_request=False)
    ok = result.status == "answered" and all(s["status"] in ("ok", "answered") for s in steps)
    if ok and task.check:
        ok = bool(session.js(f"return !!({task.check})"))
    tally.tasks += 1
    tally.done += ok
    if not ok:
        tally.failed.append(f"{task.name}: {result.status} " + "; ".join(
            f"{s['step']} {s['action']} {s['status']} {s.get('error') or ''}"[:160] for s in steps
            if s["status"] not in ("ok", "answered")))
    for i, said in enumerate(model.said):  # what the model was told after each pointed step
        if said is not None and i + 1 < len(srv.requests):
            tally.told.append(f"at {', '.join(_num(v) for v in said)}" in words_of(srv.requests[i + 1]))
    for s, target in zip(steps, model.targets, strict=False):
        t = s.get("timings") or {}
        tally.outside.append((s["finished"] - s["started"]) - (t.get("model_ms") or 0) / 1000)
        if target is None or dialect == "marks" or not s.get("action"):
            continue
        a = parse_action(s["action"])
        if a.point is None:
            continue
        tally.dist.append(((a.point[0] - target[0]) ** 2 + (a.point[1] - target[1]) ** 2) ** 0.5)
        exact = coords.to_viewport(parse_action(s["pointer"]["model_action"]).point, space,
                                   coords.Frame.from_dict(s["pointer"]["frame"]))
        tally.conv.append(((a.point[0] - exact[0]) ** 2 + (a.point[1] - exact[1]) ** 2) ** 0.5)
    if verbose:
        print(f"    {dialect:15} {mode_space:13} {task.name:18} {'ok' if ok else 'FAILED'}", flush=True)


def _num(v) -> str:
    return str(int(v)) if float(v) == int(v) else f"{v:g}"


def words_of(request: dict) -> str:
    """The text a request tells the model: its messages' (or Responses input's) text parts."""
    parts = []
    for item in request.get("messages") or request.get("input") or []:
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p.get("text", "") for p in content if isinstance(p, dict)]
    return " ".join(parts)


def fmt(xs, f="{:.2f}"):
    return f.format(statistics.mean(xs)) if xs else "-"


def main(argv=None) -> int:
    ap = harness.Arguments(__doc__, quick={"dialects": "marks,plain", "scales": "1"})
    ap.add_argument("--dialects", help="comma-separated dialects to run (default: all, marks first)")
    ap.add_argument("--scales", default="1,2", help="device scale factors (default 1,2)")
    ap.add_argument("--apps", nargs="?", const="all", help="also the real apps of bench/grounding (or a,b,...)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    modes = [m for m in MODES if not args.dialects or m[0] in args.dialects.split(",")]
    groups = [("fixtures", FIXTURES)]
    if args.apps:
        from bench.grounding import apps as grounding
        if not grounding.installed():
            print(NOT_INSTALLED, file=sys.stderr)
            return 2
        tasks = app_tasks(None if args.apps == "all" else args.apps.split(","))
        for name in dict.fromkeys(t.base for t in tasks):
            groups.append((name, [t for t in tasks if t.base == name]))
    print(f"tasks: {', '.join(f'{g} {len(ts)}' for g, ts in groups)}; dialects: {len(modes)}; "
          f"scales: {args.scales}")
    table = harness.Table(("scale", "scale", ">5g"), ("dialect", "dialect", "15"), ("space", "space", "13"),
                          ("done", "done", ">7"), ("dist_mean", "dist mean", ">9"), ("dist_max", "dist max", ">8"),
                          ("conv_max", "conv max", ">8"), ("told", "told own", ">8"), ("s_per_step", "s/step", ">7"))
    print(table.header())
    for scale in [float(v) for v in args.scales.split(",")]:
        tallies = {m: Tally() for m in modes}
        with tempfile.TemporaryDirectory() as home, Store(Path(home)) as store, LocalSite(PAGES) as site, \
                BrowserSession(BrowserConfig(device_scale_factor=scale)) as session:
            for group, tasks in groups:
                ctx = _app(group)
                with ctx:
                    for task in tasks:
                        url = site.url(task.url) if group == "fixtures" else task.url
                        for m in modes:
                            run_task(session, store, task, url, *m, tallies[m], args.verbose)
        for (dialect, space), t in tallies.items():
            print(table.row(scale, dialect, space, f"{t.done:>3}/{t.tasks:<3}", fmt(t.dist),
                            f"{max(t.dist):.2f}" if t.dist else "-", f"{max(t.conv):.2f}" if t.conv else "-",
                            f"{sum(t.told)}/{len(t.told)}" if t.told else "-",
                            fmt(t.outside, "{:.3f}"), record={"failed": t.failed}), flush=True)
            for f in t.failed:
                print(f"        failed {f}")
    harness.write_json(args.json, {"groups": {g: len(ts) for g, ts in groups}, "rows": table.rows})
    return 0


def _app(group: str):
    if group == "fixtures":
        return contextlib.nullcontext()
    from bench.grounding.apps import serve
    return serve(group)


if __name__ == "__main__":
    t0 = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - t0:.0f} s)")
    sys.exit(code)
