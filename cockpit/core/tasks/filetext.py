"""A task file's text, read safely whatever shape it is in: lines, encodings, the first characters.

Lines are decoded as UTF-8 (a byte-order mark dropped, bad bytes replaced and
reported) or UTF-16 (what Windows PowerShell's ">" writes), and a line over
MAX_LINE_BYTES is skipped in bounded chunks, so a huge file never sits in
memory. Used by :mod:`cockpit.core.tasks.taskfile`, which turns the text into tasks.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

MAX_LINE_BYTES = 16 * 1024 * 1024


def read_lines(path: Path, problem) -> Iterator[tuple[int, str]]:
    """(line number, text) for every line, decoded; bad bytes replaced and reported."""
    with open(path, "rb") as f:
        head = f.read(4)
        f.seek(0)
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            yield from _read_utf16(path)
            return
        lineno = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES)
            if not raw:
                return
            lineno += 1
            if len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n"):
                _skip_rest_of_line(f)
                problem(lineno, f"longer than {MAX_LINE_BYTES // (1024 * 1024)} MB; skipped")
                continue
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("utf-8", errors="replace")
                problem(lineno, "not valid UTF-8; bad bytes were replaced with \ufffd")
            yield lineno, text.rstrip("\r\n")


def _read_utf16(path: Path) -> Iterator[tuple[int, str]]:
    # Windows PowerShell's ">" writes UTF-16; rare enough to not need a line cap.
    with open(path, encoding="utf-16", errors="replace", newline="") as f:
        for lineno, text in enumerate(f, 1):
            yield lineno, text.rstrip("\r\n").lstrip("\ufeff")


def _skip_rest_of_line(f) -> None:
    while True:
        chunk = f.readline(MAX_LINE_BYTES)
        if not chunk or chunk.endswith(b"\n"):
            return


def first_text(path: Path) -> str | None:
    """The first non-blank line, or None for a file with none."""
    lines = read_lines(path, lambda *a: None)
    try:
        return next((text for _, text in lines if text.strip()), None)
    finally:
        lines.close()


def first_char(path: Path) -> str:
    """The first character that is not white space or a byte-order mark ('' if none in the first 64 KB)."""
    with open(path, "rb") as f:
        head = decode_whole(f.read(64 * 1024))
    return head.lstrip("\ufeff \t\r\n")[:1]


def looks_like_one_document(first_line: str) -> bool:
    """A JSON array, or an object that does not end on its first line.

    Only then is the file read whole; everything else is streamed as JSONL.
    """
    s = first_line.lstrip("\ufeff").strip()
    if s.startswith("["):
        return True
    if not s.startswith("{"):
        return False
    if s.endswith("}"):
        return False  # one line, one object (valid or not): JSONL, streamed
    try:
        json.loads(s)
    except json.JSONDecodeError:
        return True  # a pretty-printed object's first line (or a cut-off JSONL line)
    return False


def decode_whole(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8", errors="replace")


def skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def line_at(text: str, i: int) -> int:
    return text.count("\n", 0, i) + 1
