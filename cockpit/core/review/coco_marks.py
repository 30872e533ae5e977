"""The Set-of-Mark boxes of recorded steps as a COCO object-detection data set, with the humans' corrections
applied (:func:`coco_marks`): training data for better marking. ``cockpit export --format coco`` writes it
with :func:`cockpit.core.review.exports.write_json`."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

from PIL import Image

from cockpit.core.review.label_tables import run_ids_or_all
from cockpit.core.store import corrections
from cockpit.core.store.db import Store
from cockpit.core.store.stepmarks import step_marks

#: The single COCO category every element box belongs to (see :func:`coco_marks`).
COCO_CATEGORIES = [{"id": 1, "name": "interactive", "supercategory": "element"}]


def coco_marks(store: Store, run_ids=None, *, include_spurious: bool = True) -> dict:
    """The Set-of-Mark boxes of every step with a clean screenshot and recorded marks, as a COCO
    object-detection data set, with the humans' corrections applied.

    Decisions:

    * ``images``: one per step that has a readable clean screenshot *and* a marks file; a step
      without recorded marks (e.g. imported from WebVoyager) is left out, since an image with no
      boxes would claim it holds no elements. ``file_name`` is the path relative to the data
      dir (``info.image_root``); extra fields ``run_id``, ``step``, ``url``.
    * ``categories``: a single category, ``interactive`` (id 1), for every box. A box a human
      added is the same kind of thing as one the marker found (an element it missed), so it is
      not a class of its own; where a box came from is in ``source``. The element's ``tag``,
      ``role`` and ``label`` (its text) are extra fields.
    * ``annotations``: ``bbox`` [x, y, w, h] in screenshot pixels, clipped to the image (a box
      wholly outside is left out), ``area``, ``iscrowd`` 0, plus ``mark_id`` (None for human
      boxes), ``source`` ("som" or "human"), ``spurious`` (a human said the box is on nothing).
    * Spurious marks are kept, flagged ``spurious: true``, by default, so the data set still
      says what the marker produced; ``include_spurious=False`` leaves them out (for training a
      detector, whose tools ignore extra fields). Missing marks a human added become
      annotations with ``source: "human"``, ``spurious: false`` and the human's label.
    """
    images, annotations = [], []
    for rid in run_ids_or_all(store, run_ids):
        corrs: dict[int, list[dict]] = {}
        for c in corrections.of(store, rid):
            corrs.setdefault(c["step"], []).append(c)
        for s in store.steps(rid):
            marks = step_marks(store, s)
            if marks is None or not s.get("screenshot_clean"):
                continue
            try:
                with Image.open(store.file(s["screenshot_clean"])) as im:
                    w, h = im.size
            except (OSError, ValueError):
                continue
            image_id = len(images) + 1
            images.append({"id": image_id, "file_name": Path(s["screenshot_clean"]).as_posix(),
                           "width": w, "height": h, "run_id": rid, "step": s["step"], "url": s.get("url") or ""})
            step_corrs = corrs.get(s["step"], [])
            spurious = {c["mark_id"] for c in step_corrs if c["kind"] == "spurious"}
            for m in marks:
                if m.id in spurious and not include_spurious:
                    continue
                _add_box(annotations, image_id, m.bbox, w, h, mark_id=m.id, source="som",
                         spurious=m.id in spurious, tag=m.tag, role=m.role, label=m.label)
            for c in step_corrs:
                if c["kind"] == "missing" and c["bbox"]:
                    el = c["element"] or {}
                    _add_box(annotations, image_id, c["bbox"], w, h, mark_id=None, source="human",
                             spurious=False, tag=el.get("tag", ""), role=el.get("role", ""),
                             label=c["label"] or el.get("text", ""))
    return {"info": {"description": "Cockpit Set-of-Mark element boxes with human corrections",
                     "date_created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                     "image_root": str(store.root)},
            "licenses": [], "images": images, "categories": COCO_CATEGORIES, "annotations": annotations}


def _add_box(annotations: list, image_id: int, bbox, W: int, H: int, **extra) -> None:
    x, y, w, h = (float(v) for v in bbox)
    x0, y0, x1, y1 = max(0.0, x), max(0.0, y), min(float(W), x + w), min(float(H), y + h)
    if x1 <= x0 or y1 <= y0:
        return
    box = [x0, y0, x1 - x0, y1 - y0]
    box = [int(v) if v.is_integer() else v for v in box]
    annotations.append({"id": len(annotations) + 1, "image_id": image_id, "category_id": 1, "bbox": box,
                        "area": box[2] * box[3], "iscrowd": 0, **extra})
