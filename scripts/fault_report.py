"""Run Cockpit's fault suite and print what it tried and what survived.

The fault suite is every test marked ``@pytest.mark.fault("<category>")``
(tests/faults/ and the fault tests elsewhere under tests/). This script runs them with
pytest, reads the JUnit report pytest writes, and prints per category how many
faults were tried and survived, plus the figures the tests measured with
``record_property``:

* ``inputs_tried``: bad inputs fed to Cockpit (a bad-input test that does not
  record it counts as one input);
* ``unapproved_irreversible``: irreversible actions that reached the page or
  server without a human's approval (must be 0);
* ``key_hits``: occurrences of the fake API key found in the database, logs,
  exports and crash output (must be 0);
* ``secret_hits``: occurrences of text typed into password / card fields found
  in the store, step files, exports, events and the log panel (must be 0).

Exit status: 0 when every fault test passed and both must-be-zero figures are
0; 1 otherwise; 2 when pytest could not run.

    .venv/bin/python scripts/fault_report.py            # the whole suite
    .venv/bin/python scripts/fault_report.py -k hostile # pytest's -k, passed on
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATEGORIES = {
    "kill": "process killed (SIGKILL) mid-run",
    "browser": "Chrome / chromedriver died",
    "model": "model server faults",
    "store": "store faults",
    "input": "bad input",
    "hostile": "hostile pages",
    "secrets": "secrets",
}
MUST_BE_ZERO = {
    "unapproved_irreversible": "irreversible actions executed without approval",
    "key_hits": "API key occurrences found",
    "secret_hits": "typed secret occurrences found",
}


@dataclass
class Case:
    name: str
    category: str
    outcome: str  # passed, failed, error, skipped
    seconds: float
    props: dict = field(default_factory=dict)
    message: str = ""


def read_junit(path: Path) -> list[Case]:
    cases = []
    for tc in ET.parse(path).getroot().iter("testcase"):
        props: dict[str, list[str]] = defaultdict(list)
        for p in tc.iter("property"):
            props[p.get("name", "")].append(p.get("value", ""))
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = tc.find(tag)
            if el is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                message = (el.get("message") or "").splitlines()[0][:160] if el.get("message") else ""
                break
        cases.append(Case(f"{tc.get('classname', '')}::{tc.get('name', '')}",
                          (props.get("fault") or ["?"])[0], outcome, float(tc.get("time") or 0), dict(props),
                          message))
    return cases


def figure(case: Case, name: str) -> int:
    total = 0
    for v in case.props.get(name, []):
        try:
            total += int(float(v))
        except ValueError:
            pass
    return total


def report(cases: list[Case], wall: float) -> tuple[str, bool]:
    lines = ["Cockpit fault suite", ""]
    by_cat: dict[str, list[Case]] = defaultdict(list)
    for c in cases:
        by_cat[c.category].append(c)
    lines.append(f"{'category':<36} {'tried':>5} {'survived':>8} {'failed':>6} {'skipped':>7}")
    tried = survived = failed = skipped = 0
    for cat in list(CATEGORIES) + sorted(set(by_cat) - set(CATEGORIES)):
        cs = by_cat.get(cat, [])
        t = sum(c.outcome != "skipped" for c in cs)
        s = sum(c.outcome == "passed" for c in cs)
        f = sum(c.outcome in ("failed", "error") for c in cs)
        k = sum(c.outcome == "skipped" for c in cs)
        tried, survived, failed, skipped = tried + t, survived + s, failed + f, skipped + k
        lines.append(f"{CATEGORIES.get(cat, cat):<36} {t:>5} {s:>8} {f:>6} {k:>7}")
    lines.append(f"{'all faults':<36} {tried:>5} {survived:>8} {failed:>6} {skipped:>7}")
    lines.append("")
    inputs = sum(figure(c, "inputs_tried") or 1 for c in by_cat.get("input", []) if c.outcome == "passed")
    lines.append(f"bad inputs tried (in passing tests):             {inputs}")
    zero_ok = True
    for name, label in MUST_BE_ZERO.items():
        measured = [c for c in cases if name in c.props]
        total = sum(figure(c, name) for c in measured)
        zero_ok &= total == 0 and bool(measured)
        lines.append(f"{label + ':':<48} {total}   (measured by {len(measured)} tests; must be 0)")
    bad = [c for c in cases if c.outcome in ("failed", "error")]
    if bad:
        lines += ["", "failed:"] + [f"  {c.name}: {c.message}" for c in bad]
    skipped_cases = [c for c in cases if c.outcome == "skipped"]
    if skipped_cases:
        lines += ["", "skipped:"] + [f"  {c.name}: {c.message}" for c in skipped_cases]
    lines += ["", f"{len(cases)} tests in {wall:.0f} s"]
    return "\n".join(lines), not bad and zero_ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", help="only tests matching this pytest -k expression")
    ap.add_argument("--junit", type=Path, help="read this JUnit XML instead of running the suite")
    args = ap.parse_args(argv)
    if args.junit:
        cases, wall = read_junit(args.junit), 0.0
    else:
        with tempfile.TemporaryDirectory(prefix="cockpit-faults-") as tmp:
            xml = Path(tmp) / "faults.xml"
            cmd = [sys.executable, "-m", "pytest", "-q", "-m", "fault", "-p", "no:cacheprovider",
                   "-o", "junit_family=xunit1", f"--junitxml={xml}", "tests"]
            if args.k:
                cmd += ["-k", args.k]
            print("running:", " ".join(cmd[2:]), file=sys.stderr, flush=True)
            t = time.monotonic()
            proc = subprocess.run(cmd, cwd=ROOT, stdin=subprocess.DEVNULL)
            wall = time.monotonic() - t
            if not xml.exists():
                print(f"fault_report: pytest wrote no report (exit {proc.returncode})", file=sys.stderr)
                return 2
            cases = read_junit(xml)
    text, ok = report(cases, wall)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
