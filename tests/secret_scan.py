"""Looking for a secret everywhere Cockpit writes: files (Parquet read as text), the store's every cell, prompts
(tests/faults/test_secrets.py, test_secret_fields.py)."""
from __future__ import annotations

import gzip
import json
import re
import sqlite3
from pathlib import Path
from urllib.parse import quote, quote_plus

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-proj-CockpitFAKEkey-7d3f9a2b1c0e4d5f8a6b"
KEY_FRAGMENT = KEY[8:30]  # a truncated copy ("sk-proj-Cockpit...") counts as a leak too
PASSWORD = "S3cr3t-Pa55"
CARD = "4111 1111 1111 1111"
EXPORT_FORMATS = ("webvoyager", "labels-jsonl", "labels-csv", "html", "gif", "coco", "har")
#: Training data (issue #43), every kind and layout: (format, layout), each into its own folder.
TRAINING_EXPORTS = (("sft", "openai"), ("sft", "hf"), ("sft", "sharegpt"), ("preference", "trl"),
                    ("preference", "sharegpt"), ("process", "trl"), ("grounding", "hf"), ("grounding", "screenspot"))


# ---------------------------------------------------------------- searching

def needles(secret: str, *extra: str) -> list[bytes]:
    forms = {secret, quote(secret, safe=""), quote_plus(secret), *extra}
    return [f.encode() for f in forms]


def count(data: bytes | str, find: list[bytes]) -> int:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    return max(data.count(n) for n in find)


def parquet_text(path: Path) -> bytes:
    """A Parquet file's values as text (its pages are compressed: its raw bytes would hide a leak)."""
    import pyarrow.parquet as pq

    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v.decode("latin-1") if isinstance(v, bytes) else v
    return json.dumps(plain(pq.read_table(path).to_pylist()), ensure_ascii=False).encode()


def scan_files(roots, find: list[bytes], exclude=()) -> dict[str, int]:
    """Occurrences per file, every file under `roots` read as bytes (db, WAL, PNG, GIF alike; Parquet decoded; the
    web archive's gzip-compressed bodies and snapshots as they decompress)."""
    found = {}
    for root in roots:
        root = Path(root)
        for p in [root] if root.is_file() else sorted(root.rglob("*")):
            if p.is_file() and p not in exclude:
                try:
                    if p.suffix == ".parquet":
                        data = parquet_text(p)
                    else:
                        data = p.read_bytes()
                        if p.suffix == ".gz":
                            data += gzip.decompress(data)
                    n = count(data, find)
                except OSError:  # a file that vanished (a WAL checkpointed away) while we looked
                    continue
                if n:
                    found[str(p)] = n
    return found


def dump_db(path: Path) -> dict[str, str]:
    """Every table (FTS shadow tables too), every row and column, as text."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        out = {}
        for t in tables:
            cur = con.execute(f'SELECT * FROM "{t}"')
            cols = [d[0] for d in cur.description]
            for i, row in enumerate(cur):
                for c, v in zip(cols, row):
                    if v is not None:
                        out[f"{t}[{i}].{c}"] = v.decode("latin-1") if isinstance(v, bytes) else str(v)
        return out
    finally:
        con.close()


def db_hits(path: Path, find: list[bytes]) -> dict[str, int]:
    return {k: n for k, v in dump_db(path).items() if (n := count(v, find))}


# ---------------------------------------------------------------- the API key, whole CLI session

def prompt_text(body) -> str:
    """Everything the request says in text (not the images)."""
    parts = []
    for m in body["messages"]:
        c = m["content"]
        parts += [c] if isinstance(c, str) else [p.get("text", "") for p in c if p.get("type") == "text"]
    return "\n".join(parts)


def mark_of(body, pattern: str) -> int:
    """The number of the element whose prompt line matches `pattern`, read like a model would."""
    text = prompt_text({"messages": [m for m in body["messages"] if m["role"] == "user"][-1:]})
    for line in text.splitlines():
        m = re.match(r"\[(\d+)\]: (.*)", line)
        if m and re.search(pattern, m.group(2)):
            return int(m.group(1))
    raise AssertionError(f"no element matching {pattern!r} in the prompt:\n{text}")
