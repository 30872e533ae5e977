"""The approval gate's bench: today's classifier against hand-labelled actions on real web apps (issue #17).

For every case in cases.toml it starts the case's app (one at a time; see
gateapps.py), restores the app's seeded database, drives Cockpit's own
BrowserSession (headless, the agent's default settings) through the case's
recipe to the page state, takes observe(session), finds the mark whose box
matches the element the case's selector names, builds the Action and calls
cockpit.core.safety.risk.classify(...) with no site rules. It prints recall on
irreversible actions, the false-alarm rate on the rest (read-only or
state-changing cases the gate would ask about, i.e. classified irreversible)
and the 3x3 confusion matrix. Cases whose target is not found are listed, not
dropped silently.

    .venv/bin/python -m bench.apps install              # once: install and seed the apps
    .venv/bin/python -m bench.gate.run [-v] [--json out.json] [--app NAME] [--case ID] [--per-app N] [--quick]
    .venv/bin/python -m bench.gate.run --probe djadmin /admin/library/book/1/change/

--probe prints the marks of one page (logged in as the app's user), to write cases with.
"""
from __future__ import annotations

import sqlite3
import sys
import time
import tomllib
import traceback
from collections import Counter
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from bench import harness
from bench.apps import NOT_INSTALLED, Running
from bench.gate import gateapps as g
from cockpit.core.actions.grammar import parse_action
from cockpit.core.browser.session import BrowserConfig, BrowserSession
from cockpit.core.page.observation import observe
from cockpit.core.safety.risk import LEVELS, classify

GATE = Path(__file__).resolve().parent

MIN_IOU = 0.3  # a mark matches the case's element when their boxes overlap at least this much (intersection/union)
SHORT = {"read-only": "read-only", "state-changing": "state-chg", "irreversible": "irrevers."}


class CaseError(Exception):
    """The recipe or the target failed: the case is reported, not counted."""


# ---------- finding elements ----------
_CLICKABLE = ("self::a or self::button or self::input or self::summary or self::label or self::select "
              "or self::textarea or @role='button' or @role='link' or @role='menuitem' or @role='tab'")


def _xpath_literal(s: str) -> str:
    if "'" not in s:
        return f"'{s}'"
    return "concat(" + ", \"'\", ".join(f"'{p}'" for p in s.split("'")) + ")"


def find(b: BrowserSession, sel: str):
    """The first displayed element for `sel`: CSS, or text=..., or xpath=..."""
    if sel.startswith("text="):
        t = _xpath_literal(sel[5:].strip())
        by, what = By.XPATH, (f"//*[{_CLICKABLE}][normalize-space(.)={t} or @value={t} or @aria-label={t} "
                              f"or @title={t}]")
    elif sel.startswith("xpath="):
        by, what = By.XPATH, sel[6:]
    else:
        by, what = By.CSS_SELECTOR, sel
    deadline = time.monotonic() + 3
    while True:
        els = b.driver.find_elements(by, what)
        shown = [e for e in els if e.is_displayed()]
        if shown:
            return shown[0]
        if time.monotonic() > deadline:
            raise CaseError(f"no displayed element for {sel!r} ({len(els)} hidden) on {b.url}")
        time.sleep(0.2)


def step(b: BrowserSession, base: str, s: str) -> None:
    """One recipe step: goto PATH | fill SEL = TEXT | click SEL | select SEL = OPTION | check SEL | hover SEL
    | set SEL = VALUE (sets a possibly hidden field's value by script, for widgets that hide their input)."""
    verb, _, rest = s.strip().partition(" ")
    if verb == "goto":
        b.goto(base + rest if rest.startswith("/") else rest)
        return
    if verb == "set":
        sel, _, value = rest.partition(" = ")
        els = b.driver.find_elements(By.CSS_SELECTOR, sel.strip())
        if not els:
            raise CaseError(f"no element for {sel!r} on {b.url}")
        b.js("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))",
             els[0], value)
        return
    if verb in ("fill", "select"):
        sel, _, text = rest.partition(" = ")
        el = find(b, sel.strip())
        if verb == "fill":
            el.clear()
            el.send_keys(text)
        else:
            Select(el).select_by_visible_text(text)
        return
    el = find(b, rest)
    b.js("arguments[0].scrollIntoView({block: 'center'})", el)
    if verb == "click" or (verb == "check" and not el.is_selected()):
        try:
            el.click()
        except Exception:
            b.js("arguments[0].click()", el)
        b.settle()
    elif verb == "hover":
        from selenium.webdriver.common.action_chains import ActionChains
        ActionChains(b.driver).move_to_element(el).perform()
        b.settle()
    elif verb != "check":
        raise CaseError(f"unknown step {s!r}")


# ---------- matching a mark ----------
def iou(a, b) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    iw = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    ih = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = iw * ih
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def target_mark(b: BrowserSession, sel: str):
    """(observation, mark or None, best IoU, element box) for the case's element, scrolled into view."""
    el = find(b, sel)
    b.js("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", el)
    b.settle()
    for _ in range(3):  # a transition still moving the element: look again a little later
        obs = observe(b, render=False)
        r = b.js("var r = arguments[0].getBoundingClientRect(); return [r.x, r.y, r.width, r.height]", el)
        box = tuple(round(v) for v in r)
        scored = sorted(((iou(m.bbox, box), m) for m in obs.marks), key=lambda t: -t[0])
        best, mark = scored[0] if scored else (0.0, None)
        if best >= MIN_IOU:
            return obs, mark, best, box
        time.sleep(0.5)
    return obs, None, best, box



# ---------- checking a label against what the action does (--check-effects) ----------
# Tables that change on mere page views or background pings, not on the action: left out of the comparison.
VOLATILE_TABLES = ("analytics_", "wagtailadmin_editingsession", "django_session", "thumbnail_kvstore",
                   "wagtailusers_userprofile")  # the last one: made on demand when a page is first viewed
VOLATILE_COLUMNS = {"auth_user": ("last_login",)}
SESSION_COOKIES = ("sessionid", "oscar_open_basket", "session")


def db_snapshot(app: g.App) -> dict[str, list]:
    """Every non-volatile table's rows, per database file of the app."""
    out = {}
    for db in app.dbs:
        con = sqlite3.connect(f"file:{g.DATA / db}?mode=ro", uri=True)
        try:
            tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
            for t in tables:
                if t.startswith(VOLATILE_TABLES) or t.startswith("sqlite_"):
                    continue
                skip = VOLATILE_COLUMNS.get(t, ())
                cols = [r[1] for r in con.execute(f'pragma table_info("{t}")') if r[1] not in skip]
                sql = "select " + ", ".join(f'"{c}"' for c in cols) + f' from "{t}"'
                out[f"{db}:{t}"] = sorted(repr(r) for r in con.execute(sql))
        finally:
            con.close()
    return out


def cookie_state(b: BrowserSession) -> dict:
    return {c["name"]: c["value"] for c in b.driver.get_cookies() if c["name"] in SESSION_COOKIES}


def perform(b: BrowserSession, sel: str, action_text: str) -> None:
    """Do the case's action on its element as a user would (a JS confirm is accepted), then let the page settle."""
    from selenium.webdriver.common.keys import Keys
    head, sep, arg = action_text.partition(";")
    head = head.strip().lower()
    el = find(b, sel)
    if head == "click":
        try:
            el.click()
        except Exception:
            b.js("arguments[0].click()", el)
    elif head == "type":
        el.clear()
        el.send_keys(arg.strip() + Keys.ENTER)
    elif head == "select":
        Select(el).select_by_visible_text(arg.strip())
    else:
        raise CaseError(f"--check-effects cannot perform {action_text!r}")
    for _ in range(3):
        time.sleep(0.4)
        if b.open_dialog() is not None:
            b.answer_dialog(True)
    b.settle()
    time.sleep(0.3)


def observed_effect(before_db, after_db, before_c, after_c) -> tuple[str, list[str]]:
    changed = sorted(k for k in set(before_db) | set(after_db) if before_db.get(k) != after_db.get(k))
    if changed:
        return "data", changed
    cookies = sorted(k for k in set(before_c) | set(after_c) if before_c.get(k) != after_c.get(k))
    if cookies:
        return "session", ["cookie " + k for k in cookies]
    return "none", []


def effect_agrees(case: dict, effect: str) -> bool:
    """read-only must leave data and session alone; the other labels must change one of them.

    A case may name a change that is the app's bookkeeping, not the action's effect (`bookkeeping`,
    e.g. Oscar initialising its checkout session on a GET); for it, that change counts as none.
    """
    if effect != "none" and effect == case.get("bookkeeping"):
        effect = "none"
    return (effect == "none") == (case["label"] == "read-only")


# ---------- one case ----------
class Driver:
    """The browser plus which app is running and whether it is logged in."""

    def __init__(self, b: BrowserSession, apps_cfg: dict, log_dir: Path):
        self.b, self.apps_cfg, self.log_dir = b, apps_cfg, log_dir
        self.running: Running | None = None
        self.logged_in = False

    def use(self, name: str) -> g.App:
        app = g.APPS[name]
        if self.running is None or self.running.app.name != name:
            self.stop()
            g.reset(app)
            self.running = g.start(app, self.log_dir)
            self.b.driver.delete_all_cookies()
            self.logged_in = False
        return app

    def stop(self):
        if self.running is not None:
            self.running.close()
            self.running = None

    def session(self, app: g.App, anonymous: bool) -> None:
        login = self.apps_cfg.get(app.name, {}).get("login", [])
        if anonymous:  # cookies are per host, not per port: all apps share 127.0.0.1's
            self.b.driver.delete_all_cookies()
            self.logged_in = False
        elif login and not self.logged_in:
            self.b.driver.delete_all_cookies()
            for s in login:
                step(self.b, app.base, s)
            self.logged_in = True


def run_case(d: Driver, case: dict, check: bool = False) -> dict:
    out = {k: case.get(k, "") for k in ("id", "app", "category", "label", "reason", "action", "target")}
    try:
        app = d.use(case["app"])
        g.reset(app)
        d.session(app, bool(case.get("anonymous")))
        d.b.goto(app.base + case["url"])
        for s in case.get("steps", []):
            step(d.b, app.base, s)
        head, sep, arg = case["action"].partition(";")
        if case.get("target"):
            obs, mark, best, box = target_mark(d.b, case["target"])
            out.update(iou=round(best, 2), element_box=list(box), url=obs.url)
            if mark is None:
                out.update(status="not-found", level=None,
                           error=f"no mark over the element (best IoU {best:.2f}, box {box})")
                return out
            text = f"{head.strip()} [{mark.id}]" + (f"; {arg.strip()}" if sep else "")
        else:
            obs, mark = observe(d.b, render=False), None
            out["url"] = obs.url
            text = case["action"]
        action = parse_action(text)
        risk = classify(action, mark, obs.marks, obs.url, ())
        out.update(status="ok", action_text=str(action), level=risk.level, evidence=list(risk.evidence),
                   mark=mark.to_dict() if mark else None)
        if check and case.get("target"):
            before_db, before_c = db_snapshot(app), cookie_state(d.b)
            perform(d.b, case["target"], case["action"])
            effect, what = observed_effect(before_db, db_snapshot(app), before_c, cookie_state(d.b))
            out.update(effect=effect, effect_detail=what, effect_agrees=effect_agrees(case, effect))
            if effect != "none":
                d.logged_in = False  # log in afresh for the next case: the action may have logged out
    except CaseError as e:
        out.update(status="not-found", level=None, error=str(e))
    except Exception as e:  # a broken recipe is reported with the case, the bench goes on
        out.update(status="error", level=None, error=f"{type(e).__name__}: {e}",
                   trace=traceback.format_exc(limit=3))
    return out


# ---------- report ----------
def summarize(results: list[dict]) -> dict:
    ok = [r for r in results if r["status"] == "ok"]
    conf = {lab: {lev: 0 for lev in LEVELS} for lab in LEVELS}
    for r in ok:
        conf[r["label"]][r["level"]] += 1
    irr = [r for r in ok if r["label"] == "irreversible"]
    rest = [r for r in ok if r["label"] != "irreversible"]
    caught = sum(r["level"] == "irreversible" for r in irr)
    alarms = sum(r["level"] == "irreversible" for r in rest)
    return {
        "cases": len(results), "classified": len(ok),
        "not_found": [r["id"] for r in results if r["status"] == "not-found"],
        "errors": [r["id"] for r in results if r["status"] == "error"],
        "irreversible": len(irr), "caught": caught, "recall": caught / len(irr) if irr else None,
        "others": len(rest), "false_alarms": alarms, "false_alarm_rate": alarms / len(rest) if rest else None,
        "exact": sum(r["level"] == r["label"] for r in ok),
        "confusion": conf,
    }


def print_report(results: list[dict], s: dict, verbose: bool) -> None:
    by_app = Counter(r["app"] for r in results)
    by_cat = Counter(r["category"] for r in results)
    print(f"\n{s['cases']} cases, {s['classified']} classified; apps: "
          + ", ".join(f"{a} {n}" for a, n in sorted(by_app.items())))
    print("categories: " + ", ".join(f"{c} {n}" for c, n in sorted(by_cat.items())))
    for r in results:
        if r["status"] != "ok":
            print(f"  {r['status'].upper()}: {r['id']} ({r['app']}): {r.get('error')}")
    if s["recall"] is not None:
        print(f"\nrecall on irreversible: {s['recall']:.2f} ({s['caught']} of {s['irreversible']})")
    if s["false_alarm_rate"] is not None:
        print(f"false alarms on the rest: {s['false_alarm_rate']:.2f} ({s['false_alarms']} of {s['others']} "
              "read-only or state-changing cases classified irreversible)")
    print(f"exact level: {s['exact']} of {s['classified']}")
    print("\nconfusion (rows: hand label, columns: classify)")
    print(f"{'':>16}" + "".join(f"{SHORT[lv]:>11}" for lv in LEVELS))
    for lab in LEVELS:
        print(f"{lab:>16}" + "".join(f"{s['confusion'][lab][lv]:>11}" for lv in LEVELS))
    checked = [r for r in results if "effect" in r]
    if checked:
        bad = [r for r in checked if not r["effect_agrees"]]
        print(f"\nlabel check (--check-effects): {len(checked) - len(bad)} of {len(checked)} labels agree with what "
              "the action did (read-only: no data or session change; the others: some change)")
        for r in bad:
            print(f"  DISAGREES: {r['id']}: label {r['label']}, observed {r['effect']} {r['effect_detail']}")
    if verbose:
        wrong = [r for r in results if r["status"] == "ok" and r["level"] != r["label"]]
        print(f"\n{len(wrong)} cases where the level differs from the label:")
        for r in wrong:
            print(f"\n- {r['id']} ({r['app']}, {r['category']}): {r['action_text']} on {r['url']}")
            m = r.get("mark") or {}
            if m:
                print(f"    target: <{m['tag']}> {m.get('text') or m.get('aria_label') or m.get('value')!r}"
                      f" href={m.get('href')!r} form={m.get('form_method')!r} submit={m.get('submit')}")
            print(f"    label {r['label']}: {r['reason']}")
            print(f"    classify {r['level']}: " + "; ".join(r["evidence"]))


def probe(d: Driver, app_name: str, path: str, steps: list[str]) -> None:
    app = d.use(app_name)
    d.session(app, False)
    d.b.goto(app.base + path)
    for s in steps:
        step(d.b, app.base, s)
    obs = observe(d.b, render=False)
    print(obs.url, obs.title)
    for m in obs.marks:
        print(f"[{m.id}] <{m.tag}{' ' + m.type if m.type else ''}> text={m.text[:50]!r} aria={m.aria_label[:40]!r} "
              f"value={m.value[:30]!r} href={m.href[:60]!r} form={m.form_method!r} submit={m.submit} "
              f"bbox={m.bbox}")


def main():
    ap = harness.Arguments(__doc__, quick={"per_app": 2},
                           json_help="write every case's result and the summary as JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every case whose level differs from its label")
    ap.add_argument("--cases", default=str(GATE / "cases.toml"))
    ap.add_argument("--app", action="append", help="only this app's cases (repeatable)")
    ap.add_argument("--case", action="append", help="only this case id (repeatable)")
    ap.add_argument("--per-app", type=int, help="only the first N cases of each app")
    ap.add_argument("--check-effects", action="store_true",
                    help="after classifying, perform each action and compare the app's data and session cookies "
                         "before and after, to check the hand labels (read-only changes nothing)")
    ap.add_argument("--probe", nargs="+", metavar=("APP PATH", "STEP"),
                    help="print the marks of APP's page PATH (after the steps) and exit")
    args = ap.parse_args()
    if not g.installed():
        sys.exit(NOT_INSTALLED)
    spec = tomllib.loads(Path(args.cases).read_text())
    cases = spec["case"]
    ids = Counter(c["id"] for c in cases)
    if dup := [i for i, n in ids.items() if n > 1]:
        sys.exit(f"duplicate case ids: {dup}")
    bad = [c["id"] for c in cases if c["label"] not in LEVELS]
    if bad:
        sys.exit(f"cases with an unknown label: {bad}")
    if args.app:
        cases = [c for c in cases if c["app"] in args.app]
    if args.case:
        cases = [c for c in cases if c["id"] in args.case]
    if args.per_app:
        seen = Counter()
        cases = [c for c in cases if seen.update([c["app"]]) or seen[c["app"]] <= args.per_app]
    order = list(g.APPS)
    cases.sort(key=lambda c: order.index(c["app"]))  # one app at a time; stable within an app
    log_dir = GATE / "out" / "logs"
    with BrowserSession(BrowserConfig()) as b:
        d = Driver(b, spec.get("apps", {}), log_dir)
        try:
            if args.probe:
                probe(d, args.probe[0], args.probe[1], args.probe[2:])
                return
            results = []
            t0 = time.monotonic()
            for i, c in enumerate(cases, 1):
                r = run_case(d, c, args.check_effects)
                results.append(r)
                mark = "ok " if r["status"] == "ok" and r["level"] == r["label"] else (
                    "-- " if r["status"] == "ok" else "?? ")
                print(f"{mark}{i:>3}/{len(cases)} {r['id']:<34} label {r['label']:<15} "
                      f"classify {r['level'] or r['status']}", flush=True)
        finally:
            d.stop()
    s = summarize(results)
    s["seconds"] = round(time.monotonic() - t0, 1)
    print_report(results, s, args.verbose)
    if args.json:
        harness.write_json(args.json, {"summary": s, "cases": results})
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
