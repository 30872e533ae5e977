"""Parquet files that Hugging Face ``datasets`` loads with real ``Image`` features (``datasets.load_dataset``).

Writing Parquet needs pyarrow, which is an optional extra (``pip install 'cockpit[parquet]'``): it is a
large package (about 40 MB installed, more in the desktop bundle) that only this export uses, and the
JSON layouts (OpenAI, ShareGPT, ScreenSpot) need nothing more. Without it, :func:`require` raises a
:class:`ParquetMissing` that says what to install and which layouts work as they are.

One fixed Arrow schema per kind, so the rows of thousands of runs stream into one file in row groups.
An image is the ``{"bytes", "path"}`` struct of the ``Image`` feature, declared in the file's
``huggingface`` schema metadata (as ``datasets`` itself writes it); images travel inside the file.
"""
from __future__ import annotations

import json
from pathlib import Path

from cockpit.core.errors import CockpitError

INSTALL = "pip install 'cockpit[parquet]'"


class ParquetMissing(CockpitError):
    """pyarrow is not installed: the Parquet layouts cannot be written."""


def require():
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise ParquetMissing("writing Parquet needs pyarrow, which is not installed: " + INSTALL
                             + " (the openai, sharegpt and screenspot layouts need nothing more)") from None
    return pyarrow


def available() -> bool:
    try:
        require()
        return True
    except ParquetMissing:
        return False


def _types(pa):
    part = pa.struct([("type", pa.string()), ("text", pa.string())])
    call = pa.struct([("id", pa.string()), ("type", pa.string()),
                      ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())]))])
    message = pa.struct([("role", pa.string()), ("content", pa.list_(part)), ("tool_calls", pa.list_(call)),
                         ("tool_call_id", pa.string())])
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    return pa.list_(message), image


META = (("run_id", "string"), ("step", "int64"), ("source", "string"), ("task", "string"), ("site", "string"),
        ("model", "string"), ("dialect", "string"), ("space", "string"))


def schema(kind: str):
    pa = require()
    messages, image = _types(pa)
    t = {"string": pa.string(), "int64": pa.int64()}
    meta = [(name, t[typ]) for name, typ in META]
    if kind == "sft":
        cols = [("messages", messages), ("images", pa.list_(image)), ("tools", pa.string())]
    elif kind == "preference":
        cols = [("prompt", messages), ("chosen", messages), ("rejected", messages), ("images", pa.list_(image)),
                ("message", pa.string()), ("tools", pa.string())]
    elif kind == "process":
        cols = [("prompt", messages), ("completions", pa.list_(pa.string())), ("labels", pa.list_(pa.bool_())),
                ("judgements", pa.list_(pa.string())), ("rewards", pa.list_(pa.float64())),
                ("label_sources", pa.list_(pa.string())), ("outcome", pa.int64()), ("outcome_source", pa.string()),
                ("steps", pa.list_(pa.int64())), ("images", pa.list_(image))]
        meta = [m for m in meta if m[0] not in ("step", "source")]
    else:  # grounding
        cols = [("image", image), ("instruction", pa.string()), ("instruction_source", pa.string()),
                ("thought", pa.string()), ("bbox", pa.list_(pa.float64())), ("point", pa.list_(pa.float64())),
                ("image_size", pa.list_(pa.int64())), ("data_type", pa.string()),
                ("element", pa.struct([("tag", pa.string()), ("text", pa.string())]))]
    images = {"image": {"_type": "Image"}} if kind == "grounding" else \
        {"images": {"_type": "Sequence", "feature": {"_type": "Image"}}}
    metadata = {b"huggingface": json.dumps({"info": {"features": images}}).encode()}
    return pa.schema(cols + meta, metadata=metadata)


class ParquetRows:
    """Rows of one kind into one Parquet file, a row group every `batch` rows."""

    def __init__(self, path: Path, kind: str, batch: int = 256):
        pa = require()
        import pyarrow.parquet as pq
        self.pa, self.kind, self.batch = pa, kind, batch
        self.schema = schema(kind)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.writer = pq.ParquetWriter(str(path), self.schema, compression="zstd")
        self.rows: list[dict] = []
        self.count = 0

    def add(self, row: dict) -> None:
        self.rows.append({f.name: row.get(f.name) for f in self.schema})
        self.count += 1
        if len(self.rows) >= self.batch:
            self.flush()

    def flush(self) -> None:
        if self.rows:
            self.writer.write_table(self.pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        self.flush()
        self.writer.close()


def image_value(data: bytes, path: str = "") -> dict:
    return {"bytes": data, "path": path or None}
