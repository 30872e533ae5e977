"""Corrected clicks of pixel-grounded runs, for training: "the click should have been here".

A human corrects a pixel step's point in two ways: a point correction (table
``corrections``, kind ``point``: the point, and the box when one was drawn), or
a "wrong target" step label with the right mark picked (its box's centre). Each
becomes one example: the clean screenshot, the task, the step's thought, the
predicted point and the corrected one.

Two shapes:

* :func:`click_rows`: JSONL rows, one per corrected step. Points are given in
  viewport CSS pixels (``predicted``, ``corrected``) and in the screenshot's
  own pixels (``predicted_px``, ``corrected_px``: CSS pixels times the
  screenshot's scale, 2 at device scale 2), so a trainer can use the image as is.
* :func:`click_coco`: COCO keypoints (category ``click``, keypoints
  ``predicted`` and ``corrected``, visibility 2, in image pixels), the box being
  the corrected box when one was drawn, else the element the corrected point is on,
  else a 16-pixel square around it.
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from PIL import Image

from cockpit.core.actions.grammar import parse_action
from cockpit.core.errors import ActionParseError
from cockpit.core.review.label_tables import run_ids_or_all
from cockpit.core.store import Store, corrections, labels
from cockpit.core.store.stepmarks import step_marks

CATEGORY = {"id": 1, "name": "click", "supercategory": "action", "keypoints": ["predicted", "corrected"],
            "skeleton": [[1, 2]]}


def click_rows(store: Store, run_ids=None) -> list[dict]:
    """One row per pixel step a human corrected (newest correction of the step wins)."""
    rows = []
    for rid in run_ids_or_all(store, run_ids):
        run = store.run(rid) or {}
        fixes = _fixes(store, rid)
        for s in store.steps(rid, with_request=False):
            fix = fixes.get(s["step"])
            point = _point(s.get("action"))
            if fix is None or point is None or not s.get("screenshot_clean"):
                continue
            try:
                with Image.open(store.file(s["screenshot_clean"])) as im:
                    size = im.size
            except (OSError, ValueError):
                continue
            viewport = ((s.get("pointer") or {}).get("frame") or {}).get("viewport") or list(size)
            scale = size[0] / viewport[0] if viewport[0] else 1.0
            rows.append({"image": Path(s["screenshot_clean"]).as_posix(), "image_size": list(size), "scale": scale,
                         "run_id": rid, "step": s["step"], "instruction": run.get("task") or "",
                         "thought": s.get("thought") or "", "action": s.get("action") or "",
                         "predicted": list(point), "corrected": list(fix["point"]),
                         "predicted_px": [round(v * scale, 2) for v in point],
                         "corrected_px": [round(v * scale, 2) for v in fix["point"]],
                         "corrected_box": fix.get("box"), "by": fix.get("by") or "", "source": fix["source"]})
    return rows


def click_coco(store: Store, run_ids=None) -> dict:
    images, annotations = [], []
    for r in click_rows(store, run_ids):
        image_id = len(images) + 1
        images.append({"id": image_id, "file_name": r["image"], "width": r["image_size"][0],
                       "height": r["image_size"][1], "run_id": r["run_id"], "step": r["step"]})
        s, (px, py), (cx, cy) = r["scale"], r["predicted_px"], r["corrected_px"]
        box = [v * s for v in r["corrected_box"]] if r["corrected_box"] else [cx - 8, cy - 8, 16, 16]
        annotations.append({"id": len(annotations) + 1, "image_id": image_id, "category_id": 1,
                            "keypoints": [px, py, 2, cx, cy, 2], "num_keypoints": 2, "bbox": box,
                            "area": box[2] * box[3], "iscrowd": 0, "instruction": r["instruction"],
                            "action": r["action"], "by": r["by"]})
    return {"info": {"description": "Cockpit pixel actions with human-corrected click points",
                     "date_created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                     "image_root": str(store.root)},
            "licenses": [], "images": images, "categories": [CATEGORY], "annotations": annotations}


def write_jsonl(rows: list[dict], out: Path) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return out


def _point(action: str | None) -> tuple | None:
    try:
        return parse_action(action).point if action else None
    except ActionParseError:
        return None


def _fixes(store: Store, rid: str) -> dict[int, dict]:
    """step -> {point, box, by, source}: point corrections, then wrong-target labels with a picked mark."""
    out: dict[int, dict] = {}
    for lab in labels.step_labels(store, rid):
        if lab.get("judgement") == "wrong_target" and lab.get("corrected_target"):
            box = _mark_box(store, rid, lab["step"], lab["corrected_target"])
            if box is not None:
                out[lab["step"]] = {"point": [box[0] + box[2] / 2, box[1] + box[3] / 2], "box": box,
                                    "by": lab.get("annotator"), "source": "wrong_target label"}
    for c in corrections.of(store, rid):
        if c["kind"] == "point":
            point = c.get("point") or ([c["bbox"][0] + c["bbox"][2] / 2, c["bbox"][1] + c["bbox"][3] / 2]
                                       if c.get("bbox") else None)
            if point is not None:
                out[c["step"]] = {"point": point, "box": c.get("bbox"), "by": c.get("by"), "source": "point correction"}
    return out


def _mark_box(store: Store, rid: str, step: int, mark_id: int) -> list | None:
    marks = step_marks(store, store.step(rid, step) or {}) or []
    m = next((m for m in marks if m.id == mark_id), None)
    return list(m.bbox) if m else None
