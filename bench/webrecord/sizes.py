"""What a run's web archive costs on disk, per step: the step's snapshot, the bodies first stored during the
step (compressed, as on disk), and its log lines."""
from __future__ import annotations

import json
from pathlib import Path

from cockpit.core.store.webarchive import BODIES, WebArchive


def per_step(run_dir: Path) -> dict[int, int]:
    """Bytes on disk added by each step (what came before step 1 counts to step 1)."""
    arc = WebArchive.of(run_dir)
    if arc is None:
        return {}
    root = arc.root
    steps = arc.steps()
    begins = sorted((s["t"], n) for n, s in steps.items())
    if not begins:
        return {}

    def step_of(t: float) -> int:
        n = begins[0][1]
        for bt, bn in begins:
            if bt <= t:
                n = bn
        return n

    def on_disk(ref) -> int:
        sha = (ref or {}).get("sha")
        p = root / BODIES / sha[:2] / f"{sha}.gz" if sha else None
        return p.stat().st_size if p and p.exists() else 0

    out = {n: 0 for n in steps}
    seen: set[str] = set()
    for e in arc.entries:
        t = e.get("t") or begins[0][0]
        n = e["n"] if e.get("kind") == "step" else step_of(t)
        out[n] = out.get(n, 0) + len(json.dumps(e, ensure_ascii=False).encode()) + 1
        for ref in (e.get("body"), e.get("post"), e.get("snapshot")):
            sha = (ref or {}).get("sha")
            if sha and sha not in seen:
                seen.add(sha)
                out[n] += on_disk(ref)
    cred = root / "credentials.jsonl"
    if cred.exists():  # spread evenly: cookies and storage are taken at every step
        for n in out:
            out[n] += cred.stat().st_size // max(1, len(out))
    return out
