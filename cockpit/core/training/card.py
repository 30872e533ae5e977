"""The dataset card (README.md) of a training-data export: what was kept, counts, filters, source runs, models.

Its YAML header is the Hub's dataset-card metadata: ``configs`` names the data files, so
``datasets.load_dataset(<folder>)`` finds them. ``sources.jsonl`` beside it lists every source run (id, task,
site, model, start, outcome, rows made from it); the card shows the first of them.
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from cockpit.core.store import Store
from cockpit.core.training.samples import KEEP

MARKER = "<!-- cockpit training data -->"
SHOWN_RUNS = 50
_WHAT = {"sft": "supervised fine-tuning samples: the prompt each step was sent, and the reply executed",
         "preference": "preference pairs: the prompt, the corrected action (chosen) and the model's (rejected)",
         "process": "process labels: per run, the model's replies in order with a label each (TRL stepwise supervision)",
         "grounding": "grounding samples: a clean screenshot, an instruction, the target's box and a point"}
_SOURCES = {"accepted": "the model's own reply, accepted", "edited": "an action a person edited at the gate",
            "target": "a mark target corrected in Review (W, then the right box)",
            "point": "a point corrected in Review (W, then a click)", "takeover": "a step a person took over",
            "rejected": "a rejection at the gate (chosen: the next action on the same page)",
            "run": "a run", "missing mark": "a box a person drew round an element the marks missed"}
_DATA_FILES = {"openai": "sft.openai*.jsonl", "hf": "data/train-*.parquet", "trl": "data/train-*.parquet",
               "sharegpt": "*.sharegpt.jsonl", "screenspot": None}
_LOAD = {"openai": "Upload `sft.openai.jsonl` (or each part) as a fine-tuning file (purpose `fine-tune`).",
         "hf": "`datasets.load_dataset(\"parquet\", data_files=\"data/*.parquet\")` or `datasets.load_dataset(\"<this folder>\")`.",
         "trl": "`datasets.load_dataset(\"parquet\", data_files=\"data/*.parquet\", split=\"train\")`, then the TRL trainer.",
         "sharegpt": "Copy this folder into LLaMA-Factory's `data/` and merge `dataset_info.json` into its own.",
         "screenspot": "`json.load(open(\"screenspot_web.json\"))`; `img_filename` is relative to this folder."}


def is_card(path: Path) -> bool:
    try:
        return MARKER in path.read_text(encoding="utf-8")[:2000]
    except OSError:
        return False


def _filters(result) -> list[str]:
    f = result.options.filter
    out = []
    for name in ("search", "site", "model", "status", "human", "judge", "annotator", "agreement", "side_effects",
                 "repetition"):
        if getattr(f, name):
            out.append(f"{name.replace('_', ' ')}: {getattr(f, name)}")
    for name in ("since", "until"):
        if getattr(f, name):
            when = dt.datetime.fromtimestamp(getattr(f, name), dt.timezone.utc).isoformat(timespec="minutes")
            out.append(f"{name}: {when}")
    if result.options.run_ids is not None:
        out.append(f"runs named: {len(result.options.run_ids)}")
    return out or ["none: every finished run"]


def write(store: Store, result, out: Path) -> str:
    o, t = result.options, result.tally
    sources = []
    for rid in result.run_ids:
        if rid in t.runs:
            r = store.run(rid)
            sources.append({"run_id": rid, "task": r.get("task") or "", "site": r.get("site") or "",
                            "model": r.get("model") or "", "started": r.get("started"), "status": r.get("status")})
    with open(out / "sources.jsonl", "w", encoding="utf-8") as fh:
        for s in sources:
            fh.write(json.dumps(s, ensure_ascii=False) + "\n")
    lines = ["---"]
    pattern = _DATA_FILES[o.layout]
    if pattern:
        lines += ["configs:", "- config_name: default", "  data_files:", "  - split: train", f"    path: \"{pattern}\""]
    lines += ["tags:", "- cockpit", "- web-agents", f"- {o.kind}", "---", MARKER, "",
              f"# Cockpit training data: {o.kind} ({o.layout} layout)", "",
              f"{_WHAT[o.kind].capitalize()}. Made by Cockpit on "
              f"{dt.datetime.now(dt.timezone.utc).isoformat(timespec='seconds')}"
              + (" (**cancelled before the end: the counts are of the runs read so far**)" if result.cancelled else "")
              + ".", "", "## What was kept", ""]
    if o.kind in ("sft", "grounding"):
        lines.append(f"Steps kept (`{o.keep}`): {KEEP[o.keep]}.")
    lines += ["Text typed into secret fields never reaches the store, so steps that typed a secret are left out; "
              "no API key is ever stored.", "", "## Counts", "",
              f"- runs the filter selected: {len(result.run_ids):,}",
              f"- runs that gave rows: {len(t.runs):,}",
              f"- rows made: {t.total:,}; written: {result.rows:,}", ""]
    lines += ["| made from | rows |", "| --- | ---: |"]
    lines += [f"| {_SOURCES.get(k, k)} | {n:,} |" for k, n in sorted(t.made.items())]
    if t.skipped or result.notes:
        lines += ["", "Left out or changed, and why:", ""]
        lines += [f"- {why}: {n:,}" for why, n in sorted({**t.skipped, **result.notes}.items())]
    lines += ["", "## Filters", ""] + [f"- {f}" for f in _filters(result)]
    lines += ["", "## Models", "", "| model | rows |", "| --- | ---: |"]
    lines += [f"| {m} | {n:,} |" for m, n in t.models.most_common()]
    lines += ["", "## Files", ""] + [f"- `{f}`" for f in result.files + ["sources.jsonl"]]
    lines += ["", _LOAD[o.layout], "", f"## Source runs ({len(sources):,}; all of them in `sources.jsonl`)", "",
              "| run | model | site | task |", "| --- | --- | --- | --- |"]
    for s in sources[:SHOWN_RUNS]:
        task = " ".join(s["task"].split()).replace("|", "\\|")[:80]
        lines.append(f"| {s['run_id']} | {s['model']} | {s['site']} | {task} |")
    if len(sources) > SHOWN_RUNS:
        lines.append(f"| … {len(sources) - SHOWN_RUNS:,} more | | | |")
    (out / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return "README.md"
