"""Grounding bench (issue #16): Cockpit's marks against what a person could click, on real apps.

    .venv/bin/python -m bench.apps install         # once: the apps, into bench/.apps/
    .venv/bin/python -m bench.grounding.run [--apps a,b] [--states N] [--only ID,ID] [-v]
                                            [--repeat N] [--json FILE] [--shots DIR] [--quick]

For each app (apps.py: Datasette, Sphinx, MkDocs Material, Flask-Admin,
Streamlit), one at a time: start it on 127.0.0.1, open one browser with the
agent's settings (BrowserSession/BrowserConfig: headless Chromium, 1024x768),
and for each of its states (states.py):

1. Open the start URL with ``Goto [url]`` and do the recipe, each step the way
   the agent does it: observe, find the target among the marks, parse the
   action (``parse_action``) and run it with ``Executor``, which settles after
   it (Cockpit's own settle: load, no fetch/XHR, DOM quiet 120 ms).
2. Observe at once: **the observation at settle time**, what the agent would
   see. Settle ms = from the start of the navigation (a state with no steps)
   or from the end of the last action (the start of Cockpit's settle after it)
   to this observation.
3. Wait until the page is idle: 4.5 s, then until no new resource entry and
   no DOM mutation for 1 s (at most 5 s more).
4. Observe again (**the eventual observation**) and build the **reference**
   (reference.py: accessibility tree + listener-only clickables, visible and
   not covered; independent of som.js).

Scores, per state, then summed per app and in total:

* matching rule: a mark and a reference element (boxes clipped to the
  viewport) match when IoU >= 0.5, or the mark's centre lies in the
  reference box and the reference's centre in the mark's box (2 px slack)
  and neither box is more than 4x the other's area (a page-sized container
  does not match whatever lies under its centre).
  Marks and references are paired one-to-one, best IoU first.
* recall = reference elements paired with a settle-time mark / reference elements.
* precision = settle-time marks that match some reference element / marks.
* duplicates = marks that match only reference elements already paired with
  another mark, plus marks whose box is another mark's (IoU >= 0.9).
* late-render misses = marks of the eventual observation that match no mark
  of the settle-time observation (same rule): seen only by waiting.
* spurious = marks matching no reference element; missed = reference
  elements no mark was paired with (both listed with -v: tag, text, box).

Targets of issue #16: recall >= 0.99, precision >= 0.98, <= 2 duplicates, 0 late-render misses.
"""
from __future__ import annotations

import io
import sys
import time
import traceback
from pathlib import Path

from PIL import Image

from bench import harness
from bench.grounding import apps as apps_mod
from bench.grounding.reference import reference
from bench.grounding.states import STATES, State
from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.execute import Executor
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.page import images, overlay
from cockpit.core.page.marks import Mark
from cockpit.core.page.observation import observe

MATCH_RULE = ("a mark and a reference element match when IoU >= 0.5, or the mark's centre is inside the "
              "reference box and the reference's centre inside the mark (2 px slack) and the areas are within 4x; "
              "boxes clipped to the viewport; one-to-one, best IoU first")
IDLE_MIN_S, IDLE_EXTRA_S = 4.5, 5.0

_FIND_JS = r"""
const [css, text] = arguments;
const ms = window.__cockpitMarks || [];
if (css) {
  for (const el of document.querySelectorAll(css)) {
    let i = ms.indexOf(el);
    if (i >= 0) return i + 1;
    let best = -1, area = Infinity;
    ms.forEach((m, j) => { if (m && m.contains && m.contains(el)) { const r = m.getBoundingClientRect(); if (r.width * r.height < area) { area = r.width * r.height; best = j; } } });
    if (best >= 0) return best + 1;
    i = ms.findIndex(m => m && el.contains(m));
    if (i >= 0) return i + 1;
  }
  return null;
}
return null;
"""


# ------------------------------------------------------------------ geometry and matching
def _clip(b, vw, vh):
    x, y, w, h = b
    x1, y1, x2, y2 = max(0, x), max(0, y), min(vw, x + w), min(vh, y + h)
    return (x1, y1, max(x1, x2), max(y1, y2))


def _area(b):
    return (b[2] - b[0]) * (b[3] - b[1])


def _iou(a, b):
    i = _area((max(a[0], b[0]), max(a[1], b[1]), max(a[0], b[0], min(a[2], b[2])),
               max(a[1], b[1], min(a[3], b[3]))))
    u = _area(a) + _area(b) - i
    return i / u if u > 0 else 0.0


def _inside(pt, b, slack=2):
    return b[0] - slack <= pt[0] <= b[2] + slack and b[1] - slack <= pt[1] <= b[3] + slack


def _centre(b):
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def match(a, b) -> float:
    """> 0 (the IoU, at least a tiny positive) when boxes a and b (x1, y1, x2, y2) match, else 0."""
    iou = _iou(a, b)
    small, big = sorted((_area(a), _area(b)))
    if iou >= 0.5 or (_inside(_centre(a), b) and _inside(_centre(b), a) and big <= 4 * max(small, 1)):
        return max(iou, 1e-6)
    return 0.0


def pair(marks: list, refs: list) -> tuple[dict, dict]:
    """One-to-one pairing, best IoU first: (mark index -> ref index, candidates mark index -> [ref indices])."""
    cand = {}
    pairs = []
    for i, m in enumerate(marks):
        for j, r in enumerate(refs):
            s = match(m, r)
            if s:
                cand.setdefault(i, []).append(j)
                pairs.append((s, i, j))
    pairs.sort(reverse=True)
    m2r, used = {}, set()
    for _s, i, j in pairs:
        if i in m2r or j in used:
            continue
        m2r[i] = j
        used.add(j)
    return m2r, cand


def _mark_info(m, box) -> dict:
    return {"id": m.id, "tag": m.tag, "role": m.role, "reason": m.reason, "text": m.label[:80],
            "box": [box[0], box[1], box[2] - box[0], box[3] - box[1]]}


def score(early, late, refs: list[dict]) -> dict:
    vw, vh = early.viewport if early.viewport[0] else (1024, 768)
    eb = [_clip(m.bbox, vw, vh) for m in early.marks]
    lb = [_clip(m.bbox, vw, vh) for m in late.marks]
    rb = [(r["box"][0], r["box"][1], r["box"][0] + r["box"][2], r["box"][1] + r["box"][3]) for r in refs]
    m2r, cand = pair(eb, rb)
    matched_refs = set(m2r.values())
    dup_ids = {i for i in cand if i not in m2r}  # matches only elements another mark already has
    for i in range(len(eb)):  # the same box twice
        for k in range(i):
            if i not in dup_ids and _iou(eb[i], eb[k]) >= 0.9 and _area(eb[i]) > 0:
                dup_ids.add(i)
    spurious = [_mark_info(m, eb[i]) for i, m in enumerate(early.marks) if i not in cand]
    missed = [dict(r) for j, r in enumerate(refs) if j not in matched_refs]
    # late-render misses: eventual marks that match no settle-time mark
    l2e, lcand = pair(lb, eb)
    late_only = [_mark_info(m, lb[i]) for i, m in enumerate(late.marks) if i not in lcand]
    return {"refs": len(refs), "marks": len(early.marks), "late_marks": len(late.marks),
            "matched": len(matched_refs), "marks_matching": len(cand), "duplicates": len(dup_ids),
            "late_render_misses": len(late_only), "missed": missed, "spurious": spurious,
            "duplicate_marks": [_mark_info(early.marks[i], eb[i]) for i in sorted(dup_ids)],
            "late_render": late_only}


# ------------------------------------------------------------------ doing a state
def _find_mark(s: BrowserSession, obs, target: dict) -> int | None:
    if "css" in target:
        return s.js(_FIND_JS, target["css"], None)
    want = target["text"].strip().lower()
    labels = [(m.id, (m.label or "").strip().lower()) for m in obs.marks]
    for test in (lambda l: l == want, lambda l: l.startswith(want), lambda l: want in l):
        for mid, l in labels:
            if l and test(l):
                return mid
    return None


def _action(step: dict, n: int) -> tuple[str, bool]:
    if "click" in step:
        return f"Click [{n}]", True
    if "hover" in step:
        return f"Hover [{n}]", True
    if "select" in step:
        return f"Select [{n}]; {step['text']}", True
    if "type" in step:
        return f"Type [{n}]; {step['text']}", step.get("enter", True)
    raise ValueError(f"unknown step {step}")


def _timed_settle(s: BrowserSession) -> None:
    """Record when Cockpit's settle starts and ends (the session's own method, wrapped on this instance)."""
    orig = s.settle

    def settle():
        s._g_settle_start = time.perf_counter()
        try:
            return orig()
        finally:
            s._g_settle_end = time.perf_counter()
    s.settle = settle


def wait_idle(s: BrowserSession) -> float:
    """Idle wait before the eventual observation: IDLE_MIN_S, then until 1 s without a new resource
    entry or DOM mutation (at most IDLE_EXTRA_S more). Returns the seconds waited."""
    t0 = time.perf_counter()
    s.js("if (!window.__gMO) { window.__gMut = 0; window.__gMO = new MutationObserver(ms => "
         "{ window.__gMut += ms.length; }); window.__gMO.observe(document, {subtree: true, childList: true, "
         "attributes: true, characterData: true}); }")
    time.sleep(IDLE_MIN_S)
    probe = "return [performance.getEntriesByType('resource').length, window.__gMut || 0]"
    last = s.js(probe)
    end = time.perf_counter() + IDLE_EXTRA_S
    while time.perf_counter() < end:
        time.sleep(1.0)
        now = s.js(probe)
        if now == last:
            break
        last = now
    s.js("if (window.__gMO) { window.__gMO.disconnect(); delete window.__gMO; }")
    return time.perf_counter() - t0


def run_state(s: BrowserSession, ex: Executor, app: apps_mod.App, st: State, shots: Path | None) -> dict:
    out = {"id": st.id, "app": st.app, "kind": st.kind, "url": app.base + st.path, "steps": [], "note": st.note}
    t_nav = time.perf_counter()
    ex.run(parse_action(f"Goto [{app.base + st.path}]"), [])
    start = t_nav
    for step in st.steps:
        target = next(step[k] for k in ("click", "type", "select", "hover") if k in step)
        n = None
        for attempt in range(4):  # noqa: B007 - as an agent would: look again (after a Wait) when the target is not there
            obs = observe(s, render=False)
            n = _find_mark(s, obs, target)
            if n is not None:
                break
            time.sleep(1.0)
        if n is None:
            raise RuntimeError(f"target {target} of step {step} was never marked")
        text, enter = _action(step, n)
        ex.run(parse_action(text), obs.marks, press_enter=enter)
        out["steps"].append({"action": text, "looks": attempt + 1, "settle": s._g_settle_end - s._g_settle_start})
        start = s._g_settle_start  # the action's end: Cockpit's settle starts there
    t_obs = time.perf_counter()
    early = observe(s)
    out["settle_ms"] = round((t_obs - start) * 1000)
    out["settle_only_ms"] = round((s._g_settle_end - s._g_settle_start) * 1000)
    out["idle_s"] = round(wait_idle(s), 1)
    late = observe(s)
    refs = reference(s)
    out.update(score(early, late, refs))
    out["reference"] = refs
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
        (shots / f"{st.id}-{s._g_try}-settle.png").write_bytes(early.render())
        (shots / f"{st.id}-{s._g_try}-eventual.png").write_bytes(late.render())
        ref_marks = [Mark(id=i + 1, bbox=tuple(r["box"]), tag=r["tag"]) for i, r in enumerate(refs)]
        (shots / f"{st.id}-{s._g_try}-reference.png").write_bytes(
            images.encode(overlay.draw_marks(Image.open(io.BytesIO(late.screenshot)).convert("RGB"), ref_marks), "png"))
    return out


# ------------------------------------------------------------------ report
def _sum(rows: list[dict]) -> dict:
    ok = [r for r in rows if "error" not in r]
    refs = sum(r["refs"] for r in ok)
    marks = sum(r["marks"] for r in ok)
    return {"states": len(ok), "failed": len(rows) - len(ok), "refs": refs, "marks": marks,
            "recall": sum(r["matched"] for r in ok) / refs if refs else float("nan"),
            "precision": sum(r["marks_matching"] for r in ok) / marks if marks else float("nan"),
            "duplicates": sum(r["duplicates"] for r in ok),
            "late_render_misses": sum(r["late_render_misses"] for r in ok),
            "late_states": sum(1 for r in ok if r["late_render_misses"]),
            "settle_ms_median": harness.median(r["settle_ms"] for r in ok)}


HEAD = (f"{'':<12} {'states':>6} {'fail':>4} {'refs':>5} {'marks':>5} {'recall':>6} {'prec':>6} "
        f"{'dups':>4} {'late':>4} {'late-st':>7} {'settle ms':>9}")


def _line(name, t) -> str:
    return (f"{name:<12} {t['states']:>6} {t['failed']:>4} {t['refs']:>5} {t['marks']:>5} {t['recall']:>6.3f} "
            f"{t['precision']:>6.3f} {t['duplicates']:>4} {t['late_render_misses']:>4} {t['late_states']:>7} "
            f"{t['settle_ms_median']:>9.0f}")


def _el(d) -> str:
    b = d["box"]
    what = d.get("role") or d.get("via") or ""
    text = d.get("name") or d["text"]
    return f"<{d['tag']}{' ' + what if what else ''}> {text[:50]!r} @{b[0]},{b[1]} {b[2]}x{b[3]}"


def print_state(r: dict, verbose: bool) -> None:
    if "error" in r:
        print(f"  {r['id']:<22} ERROR {r['error']}")
        return
    rec = r["matched"] / r["refs"] if r["refs"] else float("nan")
    prec = r["marks_matching"] / r["marks"] if r["marks"] else float("nan")
    print(f"  {r['id']:<22} {r['kind']:<12} refs {r['refs']:>3} marks {r['marks']:>3} (eventual {r['late_marks']:>3})"
          f"  recall {rec:.3f} prec {prec:.3f} dups {r['duplicates']} late {r['late_render_misses']}"
          f"  settle {r['settle_ms']} ms")
    if not verbose:
        return
    for d in r["missed"]:
        print(f"      missed   {_el(d)}")
    for d in r["spurious"]:
        print(f"      spurious {_el(d)}")
    for d in r["duplicate_marks"]:
        print(f"      dup      {_el(d)}")
    for d in r["late_render"]:
        print(f"      late     {_el(d)}")


def main(argv=None) -> int:
    ap = harness.Arguments(__doc__, quick={"states": 1}, json_help="write everything to this file")
    ap.add_argument("--apps", help="comma-separated: " + ",".join(apps_mod.APPS))
    ap.add_argument("--states", type=int, help="at most N states per app")
    ap.add_argument("--only", help="comma-separated state ids")
    ap.add_argument("-v", "--verbose", action="store_true", help="list missed, spurious, duplicate, late marks")
    ap.add_argument("--repeat", type=int, default=1, help="do every state N times (late renders vary)")
    ap.add_argument("--shots", type=Path, help="save each state's screenshots here: Cockpit's marks at settle time "
                    "and eventually, and the reference's boxes drawn the same way")
    a = ap.parse_args(argv)
    names = a.apps.split(",") if a.apps else list(apps_mod.APPS)
    for n in names:
        if n not in apps_mod.APPS:
            ap.error(f"unknown app {n}")
    only = set(a.only.split(",")) if a.only else None
    print(f"matching: {MATCH_RULE}")
    print(f"reference: accessibility tree + listener-only clickables after an idle wait "
          f"({IDLE_MIN_S:g} s + up to {IDLE_EXTRA_S:g} s until quiet); see reference.py")
    rows: list[dict] = []
    for name in names:
        todo = [st for st in STATES if st.app == name and (only is None or st.id in only)]
        if a.states:
            todo = todo[:a.states]
        if not todo:
            continue
        print(f"{name}: {apps_mod.APPS[name].what}", flush=True)
        with apps_mod.serve(name) as app:
            with BrowserSession(BrowserConfig(headless=True, viewport=(1024, 768))) as s:
                s.goto("about:blank")  # a fresh Chromium may show chrome://new-tab-page, which the nav guard refuses
                _timed_settle(s)
                ex = Executor(s)
                for rep, st in [(k, st) for k in range(a.repeat) for st in todo]:
                    s._g_try = rep + 1
                    try:
                        r = run_state(s, ex, app, st, a.shots)
                    except Exception as e:  # a state that cannot be reached is reported, not fatal
                        r = {"id": st.id, "app": st.app, "kind": st.kind, "error": f"{type(e).__name__}: {e}"}
                        if a.verbose:
                            traceback.print_exc()
                    r["try"] = rep + 1
                    rows.append(r)
                    print_state(r, a.verbose)
                    sys.stdout.flush()
    print()
    print(HEAD)
    per_app = {}
    for name in names:
        app_rows = [r for r in rows if r["app"] == name]
        if app_rows:
            per_app[name] = _sum(app_rows)
            print(_line(name, per_app[name]))
    total = _sum(rows)
    print(_line("TOTAL", total))
    print("targets (issue #16): recall >= 0.99, precision >= 0.98, duplicates <= 2, late-render misses 0")
    harness.write_json(a.json, {"match_rule": MATCH_RULE, "per_app": per_app, "total": total, "states": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
