"""Synthetic recorded runs for benchmarks and tests of the review tools.

Writes runs straight into a Store (files and rows, as the agent would), with
screenshots drawn by Pillow. Never used by the product itself.
"""
from __future__ import annotations

import io
import random

from PIL import Image, ImageDraw

from cockpit.core.store import Store
from cockpit.core.store.newrun import NewRun


def screenshot(seed: int, size=(1024, 768)) -> tuple[bytes, list[dict]]:
    """A page-like PNG with a few 'buttons', and their marks."""
    rnd = random.Random(seed)
    img = Image.new("RGB", size, (250, 250, 250))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, size[0], 60], fill=(30, 40, 60))
    marks = []
    for i in range(12):
        x, y = rnd.randint(20, size[0] - 220), rnd.randint(80, size[1] - 60)
        w, h = rnd.randint(80, 200), rnd.randint(24, 48)
        d.rectangle([x, y, x + w, y + h], fill=(rnd.randint(60, 220), rnd.randint(60, 220), rnd.randint(60, 220)))
        d.text((x + 6, y + 6), f"Button {seed}-{i}", fill=(0, 0, 0))
        marks.append({"id": i + 1, "bbox": [x, y, w, h], "tag": "button", "text": f"Button {seed}-{i}"})
    for line in range(30):  # some text so the PNG is not trivially small
        d.text((20, 70 + line * 22), " ".join(rnd.choice(["lorem", "ipsum", "dolor", "amet", "web", "agent"])
                                                for _ in range(18)), fill=(90, 90, 90))
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue(), marks


def make_run(store: Store, *, steps: int = 10, task: str = "Find the thing", site: str = "Example",
             model: str = "gpt-test", answer: str | None = "42", status: str = "answered",
             task_id: str = "") -> str:
    run_id = store.new_run(NewRun(task, "https://example.com/", task_id=task_id, site=site, model=model))
    shots = [screenshot(k) for k in range(min(steps, 8))]  # a few distinct pages, reused
    for k in range(1, steps + 1):
        png, marks = shots[(k - 1) % len(shots)]
        files = store.write_step_files(run_id, k, screenshot=png, marked=png, marks=marks)
        last = k == steps and answer is not None
        action = f"ANSWER; {answer}" if last else f"Click [{(k % 12) + 1}]"
        store.commit_step(run_id, dict(step=k, url=f"https://example.com/p{k}", title=f"Page {k}",
                                       thought=f"thinking about step {k}", action=action, action_text=action,
                                       target=None if last else (k % 12) + 1, status="answered" if last else "ok",
                                       reply=f"Thought: thinking about step {k}\nAction: {action}",
                                       request=[{"role": "user", "content": f"step {k}"}], n_marks=len(marks),
                                       **files))
    store.finish_run(run_id, status, answer=answer)
    return run_id
