"""The files of each layout: where rows go, in the form the library that trains on them reads.

    openai      OpenAI fine-tuning chat JSONL (SFT): ``{"messages": [...], "tools": [...]}`` a line, the images
                as data URLs; earlier assistant turns carry ``"weight": 0`` (only the last reply is learnt).
                Its limits are kept and reported: at most 10 images an example (older screenshots of a longer
                history become WebVoyager's omitted note), 10 MB an image, JPEG/PNG/WEBP in RGB(A); a file
                holds at most 50,000 examples with images and 512 MB (the Files API's size), else it is split
                into parts; fewer than 10 examples is said on the card (a job needs at least 10).
    hf          Hugging Face ``datasets`` Parquet with Image features (:mod:`.parquet`): SFT and grounding
    trl         TRL's layouts, in the same Parquet: preference (prompt / chosen / rejected / images) and
                stepwise supervision (prompt / completions / labels) for process labels
    sharegpt    LLaMA-Factory's ShareGPT multimodal layout (SFT, and preference with ``ranking``), JSON lines
                with the images as files beside them and the ``dataset_info.json`` entry that names the columns
    screenspot  ScreenSpot's grounding annotations (``img_filename``, ``bbox`` [x, y, w, h] in image pixels,
                ``instruction``, ``data_type``, ``data_source``) with the clean screenshots beside them
"""
from __future__ import annotations

import io
import json
from pathlib import Path

from cockpit.core.llm import prompt
from cockpit.core.training.chat import Images, hf_messages, sharegpt, with_data_urls
from cockpit.core.training.parquet import ParquetRows, image_value
from cockpit.core.training.samples import Sample
from cockpit.core.training.supervision import RunFacts
from cockpit.core.words import plural

LAYOUTS = {"sft": ("openai", "hf", "sharegpt"), "preference": ("trl", "sharegpt"), "process": ("trl",),
           "grounding": ("screenspot", "hf")}
PARQUET = ("hf", "trl")
#: OpenAI fine-tuning's documented limits on image data.
OPENAI_MAX_IMAGES = 10
OPENAI_MAX_IMAGE_BYTES = 10 * 1024 * 1024
OPENAI_MAX_IMAGE_EXAMPLES = 50_000
OPENAI_MAX_FILE_BYTES = 512 * 1024 * 1024
OPENAI_MIN_EXAMPLES = 10


class Sink:
    """Rows of one kind in one layout; :meth:`close` returns the files written (relative to the folder)."""

    def __init__(self, out: Path, kind: str, images: Images):
        self.out, self.kind, self.images = out, kind, images
        self.notes: dict[str, int] = {}  # what the layout had to do or leave out, with counts
        self.rows = 0

    def note(self, what: str) -> None:
        self.notes[what] = self.notes.get(what, 0) + 1

    def add(self, facts: RunFacts, item) -> bool:  # pragma: no cover - each layout's
        raise NotImplementedError

    def close(self) -> list[str]:  # pragma: no cover
        raise NotImplementedError


class OpenAISink(Sink):
    def __init__(self, out, kind, images, max_file_bytes: int = OPENAI_MAX_FILE_BYTES):
        super().__init__(out, kind, images)
        self.max_file_bytes = max_file_bytes
        self.parts: list[Path] = []
        self._fh = None
        self._bytes = self._with_images = 0

    def _open(self) -> None:
        if self._fh is not None:
            self._fh.close()
        self.parts.append(self.out / f"sft.openai-{len(self.parts) + 1:05d}.jsonl")
        self._fh = open(self.parts[-1], "w", encoding="utf-8")
        self._bytes = self._with_images = 0

    def add(self, facts: RunFacts, s: Sample) -> bool:
        msgs = s.messages
        if len(prompt.image_steps(msgs)) > OPENAI_MAX_IMAGES:
            msgs = prompt.clip(msgs, OPENAI_MAX_IMAGES)
            self.note(f"examples with more than {plural(OPENAI_MAX_IMAGES, 'screenshot')}: the oldest became the omitted note")
        msgs, datas = with_data_urls(msgs, facts, self.images)
        for data in datas:
            if len(data) > OPENAI_MAX_IMAGE_BYTES:
                self.note("examples left out: an image over 10 MB")
                return False
            if not _rgb(data):
                self.note("examples left out: an image not in RGB or RGBA")
                return False
        last = max(i for i, m in enumerate(msgs) if m.get("role") == "assistant")
        msgs = [dict(m, weight=0) if m.get("role") == "assistant" and i != last else m for i, m in enumerate(msgs)]
        row = {"messages": msgs}
        if s.tools:
            row["tools"] = s.tools
        line = (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
        if self._fh is None or self._bytes + len(line) > self.max_file_bytes or \
                datas and self._with_images >= OPENAI_MAX_IMAGE_EXAMPLES:
            if self._fh is not None:
                self.note("files split to stay within 512 MB and 50,000 image examples a file")
            self._open()
        self._fh.write(line.decode("utf-8"))
        self._bytes += len(line)
        self._with_images += bool(datas)
        self.rows += 1
        return True

    def close(self) -> list[str]:
        if self._fh is None:
            self._open()
        self._fh.close()
        if len(self.parts) == 1:  # one file: the plain name
            one = self.out / "sft.openai.jsonl"
            self.parts[0].replace(one)
            self.parts = [one]
        if self.rows < OPENAI_MIN_EXAMPLES:
            self.note(f"fewer than {OPENAI_MIN_EXAMPLES} examples: OpenAI fine-tuning needs at least "
                      f"{OPENAI_MIN_EXAMPLES}")
        return [p.name for p in self.parts]


def _rgb(data: bytes) -> bool:
    from PIL import Image
    try:
        with Image.open(io.BytesIO(data)) as im:
            return im.mode in ("RGB", "RGBA") and im.format in ("JPEG", "PNG", "WEBP")
    except OSError:
        return False


class ParquetSink(Sink):
    def __init__(self, out, kind, images):
        super().__init__(out, kind, images)
        self.file = "data/train-00000-of-00001.parquet"
        self.writer = ParquetRows(out / self.file, kind)

    def add(self, facts: RunFacts, item) -> bool:
        collected: list[bytes] = []
        if self.kind == "sft":
            row = dict(item.meta, source=item.source, messages=hf_messages(item.messages, facts, self.images, collected),
                       tools=json.dumps(item.tools) if item.tools else None)
        elif self.kind == "preference":
            row = dict(item.meta, source=item.source, message=item.message,
                       prompt=hf_messages(item.messages, facts, self.images, collected),
                       chosen=hf_messages([item.chosen], facts, self.images, collected),
                       rejected=hf_messages([item.rejected], facts, self.images, collected),
                       tools=json.dumps(item.tools) if item.tools else None)
        elif self.kind == "process":
            row = dict(item, prompt=hf_messages(item["prompt"], facts, self.images, collected))
        else:
            data = facts.store.read_file(item["image"], "screenshot")
            row = dict(item, image=image_value(data, f"{facts.run['id']}/step-{item['step']:03d}.png"))
        if self.kind != "grounding":
            row["images"] = [image_value(d) for d in collected]
        self.writer.add(row)
        self.rows += 1
        return True

    def close(self) -> list[str]:
        self.writer.close()
        return [self.file]


class ShareGPTSink(Sink):
    def __init__(self, out, kind, images):
        super().__init__(out, kind, images)
        self.file = f"{kind}.sharegpt.jsonl"
        self._fh = open(out / self.file, "w", encoding="utf-8")

    def add(self, facts: RunFacts, s: Sample) -> bool:
        msgs = s.messages if self.kind == "sft" else s.messages + [s.chosen]
        system, turns, paths = sharegpt(msgs, facts, self.images)
        row = {"conversations": turns if self.kind == "sft" else turns[:-1], "system": system, "images": paths,
               "tools": json.dumps(s.tools) if s.tools else ""}
        if self.kind == "preference":
            row["chosen"] = turns[-1]
            row["rejected"] = sharegpt([s.rejected], facts, self.images)[1][-1]
            row["message"] = s.message
        row.update(run_id=s.run_id, step=s.step, source=s.source)
        self._fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        self.rows += 1
        return True

    def close(self) -> list[str]:
        self._fh.close()
        columns = {"messages": "conversations", "system": "system", "tools": "tools", "images": "images"}
        if self.kind == "preference":
            columns.update(chosen="chosen", rejected="rejected")
        entry = {"file_name": self.file, "formatting": "sharegpt", "columns": columns}
        if self.kind == "preference":
            entry["ranking"] = True
        info = self.out / "dataset_info.json"
        (info).write_text(json.dumps({f"cockpit_{self.kind}": entry}, indent=2) + "\n", encoding="utf-8")
        return [self.file, info.name]


class ScreenSpotSink(Sink):
    def __init__(self, out, kind, images):
        super().__init__(out, kind, images)
        self.file = "screenspot_web.json"
        self.entries: list[dict] = []

    def add(self, facts: RunFacts, row: dict) -> bool:
        if row.get("bbox") is None:
            self.note("grounding samples left out: a point with no box (ScreenSpot needs the box)")
            return False
        name = f"clean-{row['step']:03d}.png"
        rel = self.images.copy_file(facts, row["image"], name)
        self.entries.append({"img_filename": rel, "bbox": row["bbox"], "instruction": row["instruction"],
                             "data_type": row["data_type"], "data_source": row["site"] or "web",
                             "point": row["point"], "image_size": row["image_size"], "run_id": row["run_id"],
                             "step": row["step"], "source": row["source"], "thought": row["thought"]})
        self.rows += 1
        return True

    def close(self) -> list[str]:
        (self.out / self.file).write_text(json.dumps(self.entries, ensure_ascii=False, indent=1) + "\n",
                                          encoding="utf-8")
        return [self.file]


def sink(layout: str, out: Path, kind: str, images: Images) -> Sink:
    return {"openai": OpenAISink, "hf": ParquetSink, "trl": ParquetSink, "sharegpt": ShareGPTSink,
            "screenspot": ScreenSpotSink}[layout](out, kind, images)
