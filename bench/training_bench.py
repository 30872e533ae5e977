"""training_bench: exporting training data from a store of 8,000 runs (issue #43), time and size per layout.

The store is built first, in a temporary folder, the way the agent writes one (rows through the store,
files in the runs folder): each run has 6 steps (the last an ANSWER) on Set-of-Mark screenshots of
1024x768 with 12 marks, and the request each step sent: WebVoyager's system prompt, the task, the
history with the three newest screenshots as references and the element list of each observation.
A quarter of the runs are labelled success by an annotator, a tenth more have one step corrected in
Review (a wrong target with the right box) and one step edited at the gate, and every twentieth has a
rejection; runs share 8 distinct screenshots (the files are real, the rows name their own copies).
Give ``--store PATH`` (a COCKPIT_HOME) to export from a store you have instead, e.g. the scale bench's.

Then each layout is exported from the whole store (no filter), one after the other, and its wall time,
rows, runs per second and size on disk printed. Target (#43): none in numbers; the issue asks for the
time and the size, quoted in bench/README.md.

    .venv/bin/python -m bench.training_bench [--runs 8000] [--layouts sft:openai,sft:hf,...] [--store PATH]
"""
from __future__ import annotations

import io
import shutil
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw

from bench import harness
from cockpit.core.llm import prompt
from cockpit.core.store import Store
from cockpit.core.store import labels as L
from cockpit.core.store.newrun import NewRun
from cockpit.core.training.export import ExportOptions, export
from testkit.fakeruns import screenshot

LAYOUTS = "sft:openai,sft:hf,sft:sharegpt,preference:trl,process:trl,grounding:screenspot,grounding:hf"


def _shots(n: int = 8) -> list[tuple[bytes, bytes, list[dict]]]:
    out = []
    for k in range(n):
        clean, marks = screenshot(k)
        img = Image.open(io.BytesIO(clean)).convert("RGB")
        d = ImageDraw.Draw(img)
        for m in marks:
            x, y, w, h = m["bbox"]
            d.rectangle([x, y, x + w, y + h], outline=(0, 0, 0), width=2)
            d.text((x + 2, y + 2), str(m["id"]), fill=(0, 0, 0))
        buf = io.BytesIO()
        img.save(buf, "PNG", compress_level=1)
        out.append((clean, buf.getvalue(), marks))
    return out


def _observation(marks: list[dict], url: str, title: str) -> str:
    elements = "\n".join(f'[{m["id"]}]: <button> "{m["text"]}";' for m in marks)
    return prompt.observation_text(elements, url=url, title=title)


def build(home: Path, runs: int, steps: int) -> float:
    """The store; returns the seconds it took."""
    t0 = time.perf_counter()
    shots = _shots()
    system = prompt.system_prompt()
    with Store(home) as store:
        for i in range(runs):
            task, url = f"Find item {i} in the catalogue and report its price", f"https://shop.example/{i % 97}"
            rid = store.new_run(NewRun(task, url, task_id=f"Shop--{i}", site=f"site{i % 7}", model=f"model-{i % 3}",
                                       config={"model": {"model": f"model-{i % 3}", "image_format": "jpeg"},
                                               "agent": {"keep_images": 3}}, status="running"))
            conv = prompt.Conversation(system, 3)
            lead = prompt.task_text(task, url)
            with store.atomic():
                for k in range(1, steps + 1):
                    clean, marked, marks = shots[(i + k) % len(shots)]
                    files = store.write_step_files(rid, k, screenshot=clean, marked=marked, marks=marks)
                    conv.add_observation(k, _observation(marks, f"{url}/p{k}", f"Page {k}"), lead=lead)
                    last = k == steps
                    action = "ANSWER; $12" if last else f"Click [{(k % 12) + 1}]"
                    reply = f"Thought: step {k} of run {i}.\nAction: {action}"
                    status, decision = _gate(i, k, action)
                    store.commit_step(rid, dict(step=k, url=f"{url}/p{k}", title=f"Page {k}", thought=f"step {k}",
                                                action=action, action_text=action, reply=reply,
                                                target=None if last else (k % 12) + 1, request=conv.request(),
                                                status=status or ("answered" if last else "ok"), n_marks=len(marks),
                                                **files), decision)
                    conv.add_reply(reply)
                    lead = "Result of your last action: clicked."
                store.finish_run(rid, "answered", answer="$12")
            _supervise(store, rid, i)
    return time.perf_counter() - t0


def _gate(i: int, k: int, action: str) -> tuple[str, dict | None]:
    """(status, a person's decision) of step k of run i: an edit at step 3 of every tenth, a rejection at step 2
    of every twentieth."""
    if i % 10 == 1 and k == 3:
        return "", {"action": action, "approved": 1, "by": "human:ada", "edited_action": "Click [7]"}
    if i % 20 == 3 and k == 2:
        return "refused", {"action": action, "approved": 0, "by": "human:ada", "message": "not that one"}
    return "", None


def _supervise(store: Store, rid: str, i: int) -> None:
    if i % 4 == 0:
        L.set_label(store, rid, "ada", "success")
    if i % 10 == 1:
        L.set_step_label(store, rid, 2, "bo", "wrong_target", corrected_target=5)


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> None:
    ap = harness.Arguments(__doc__, quick={"runs": 200})
    ap.add_argument("--runs", type=int, default=8000, help="runs in the store built (default 8000)")
    ap.add_argument("--steps", type=int, default=6, help="steps per run (default 6)")
    ap.add_argument("--layouts", default=LAYOUTS, help=f"kind:layout pairs to export (default {LAYOUTS})")
    ap.add_argument("--store", type=Path, metavar="PATH", help="export from this COCKPIT_HOME instead of building one")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="training-bench-"))
    try:
        home = args.store or tmp / "home"
        if args.store is None:
            seconds = build(home, args.runs, args.steps)
            print(f"store: {args.runs:,} runs of {args.steps} steps built in {seconds:.0f} s, "
                  f"{_size(home) / 1e6:,.0f} MB")
        table = harness.Table(("kind", "kind", "<11"), ("layout", "layout", "<11"), ("rows", "rows", ">8,"),
                              ("runs", "from runs", ">9,"), ("seconds", "seconds", ">8.1f"),
                              ("per_s", "runs/s", ">7.0f"), ("mb", "size MB", ">9,.1f"))
        print(table.header())
        with Store(home) as store:
            for pair in args.layouts.split(","):
                kind, layout = pair.split(":")
                out = tmp / f"{kind}-{layout}"
                r = export(store, ExportOptions(kind, layout), out)
                print(table.row(kind, layout, r.rows, len(r.tally.runs), r.seconds,
                                len(r.run_ids) / r.seconds if r.seconds else 0.0, r.bytes / 1e6,
                                record={"selected": len(r.run_ids), "made": dict(r.tally.made),
                                        "notes": r.notes, "files": r.files}), flush=True)
                shutil.rmtree(out, ignore_errors=True)
        harness.write_json(args.json, {"runs": args.runs, "rows": table.rows})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
