"""A run's web archive: every request and response, and each step's page, kept in the run's folder.

Layout, in ``<run folder>/web/`` (written as the run goes; a killed run keeps every line written):

``log.jsonl``
    One JSON object a line, appended and flushed as things happen: ``meta`` first (format, version,
    the clock's seed, whether the network was recorded and why not), then ``request`` (one exchange:
    method, URL, headers, status, the hashes of its request and response bodies, the step it happened
    in and whether it came after that step's action began), ``step`` (a step's page: the hash of its
    DOM snapshot, address, viewport, scroll), ``act`` (when a step's action began), ``random`` (a value
    of ``crypto.getRandomValues`` a page drew) and ``note``. A line cut short by a kill is skipped.
``credentials.jsonl``
    What stays on this computer: the ``Authorization``, ``Cookie`` and ``Set-Cookie`` headers of each
    request (in ``log.jsonl`` their values read ``(credential)``) and each step's cookies and storage.
    Bundles and HAR exports leave it out unless asked (:data:`CREDENTIALS`).
``bodies/<ab>/<sha256>.gz``
    Every body, and every snapshot, once by the SHA-256 of its content, gzip-compressed.

Text typed into secret fields never gets in: every body, header and address is scrubbed of the run's
secrets (:func:`cockpit.core.safety.redaction.scrub_bytes`: as typed, URL-encoded, JSON- and
HTML-escaped) before it is hashed and written.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import Callable, Iterable

from cockpit.core.safety import redaction

log = logging.getLogger(__name__)

FORMAT = "cockpit-web"
VERSION = 1
FOLDER = "web"
LOG = "log.jsonl"
CREDENTIALS = "credentials.jsonl"
BODIES = "bodies"
#: Headers whose values are credentials: kept only in credentials.jsonl.
CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie", "set-cookie")
CREDENTIAL = "(credential)"
#: gzip's level: 4 compresses a page's text to about what 6 does, in about half the time.
COMPRESSION = 4
#: Bodies larger than this are recorded without their content (their size is kept).
MAX_BODY = 20_000_000


def folder(run_dir: Path) -> Path:
    return Path(run_dir) / FOLDER


def is_credentials_file(rel: str) -> bool:
    """Whether a path inside a run's folder is the archive's local-only credentials file."""
    return rel == f"{FOLDER}/{CREDENTIALS}"


class ArchiveWriter:
    """Appends to one run's archive; safe to call from several threads (the recorder's and the loop's)."""

    def __init__(self, run_dir: Path, secrets: Callable[[], Iterable[str]] = tuple):
        self.root = folder(run_dir)
        (self.root / BODIES).mkdir(parents=True, exist_ok=True)
        self.secrets = secrets
        self._lock = threading.Lock()
        self._log = open(self.root / LOG, "a", encoding="utf-8")
        self._cred = open(self.root / CREDENTIALS, "a", encoding="utf-8")
        self._known: set[str] = {p.name[:-3] for p in (self.root / BODIES).glob("*/*.gz")}
        earlier = read_lines(self.root / LOG)  # a resumed run goes on with its archive
        self._seq = max((e.get("seq") or 0 for e in earlier), default=0)
        self.earlier_meta = next((e for e in earlier if e.get("kind") == "meta"), None)
        self.bytes_written = 0
        self.closed = False

    # ---------- writing ----------
    def add(self, entry: dict, credentials: dict | None = None, *, sync: bool = False) -> int:
        """Append `entry` (its texts scrubbed of secrets) to the log, and `credentials` beside it; its number."""
        with self._lock:
            if self.closed:
                return 0
            self._seq += 1
            entry = dict(entry, seq=self._seq)
            line = self._scrub_text(json.dumps(entry, ensure_ascii=False))
            self._log.write(line + "\n")
            self._log.flush()
            if credentials:
                cred = self._scrub_text(json.dumps(dict(credentials, seq=self._seq, kind=entry.get("kind")),
                                                   ensure_ascii=False))
                self._cred.write(cred + "\n")
                self._cred.flush()
            if sync:
                os.fsync(self._log.fileno())
            return self._seq

    def body(self, data: bytes | None, *, scrub: bool = True) -> dict | None:
        """Store `data` once by content hash (scrubbed of secrets first); {"sha", "size"}, or None."""
        if data is None:
            return None
        if scrub:
            data = redaction.scrub_bytes(data, list(self.secrets()))
        if len(data) > MAX_BODY:
            return {"sha": "", "size": len(data), "dropped": f"larger than {MAX_BODY // 1_000_000} MB"}
        sha = hashlib.sha256(data).hexdigest()
        with self._lock:
            if sha not in self._known:
                path = self.root / BODIES / sha[:2] / f"{sha}.gz"
                path.parent.mkdir(exist_ok=True)
                tmp = path.with_name(f".{sha}.{os.getpid()}.tmp")
                packed = gzip.compress(data, compresslevel=COMPRESSION, mtime=0)
                tmp.write_bytes(packed)
                os.replace(tmp, path)
                self._known.add(sha)
                self.bytes_written += len(packed)
        return {"sha": sha, "size": len(data)}

    def headers(self, pairs: list) -> tuple[list, list]:
        """(headers for the log, credential headers for credentials.jsonl)."""
        shown, kept = [], []
        for name, value in pairs:
            if name.lower() in CREDENTIAL_HEADERS:
                kept.append([name, value])
                shown.append([name, CREDENTIAL])
            else:
                shown.append([name, value])
        return shown, kept

    def close(self) -> None:
        with self._lock:
            if self.closed:
                return
            self.closed = True
            for f in (self._log, self._cred):
                try:
                    f.flush()
                    os.fsync(f.fileno())
                    f.close()
                except OSError as e:
                    log.debug("closing the archive: %s", e)

    def _scrub_text(self, text: str) -> str:
        secrets = [s for s in self.secrets() if s]
        if not secrets:
            return text
        return redaction.scrub_bytes(text.encode("utf-8"), secrets).decode("utf-8")


# ---------------------------------------------------------------- reading

def read_lines(path: Path) -> list[dict]:
    """The JSON lines of `path`; a line that is not JSON (cut short by a kill) is skipped."""
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
    except FileNotFoundError:
        pass
    return out


class WebArchive:
    """A run's archive read back: its entries, bodies and (when here) credentials."""

    def __init__(self, run_dir: Path):
        self.root = folder(run_dir)
        self.entries = read_lines(self.root / LOG)
        self._cred = {c.get("seq"): c for c in read_lines(self.root / CREDENTIALS)}

    @classmethod
    def of(cls, run_dir: Path) -> "WebArchive | None":
        """The run's archive, or None when the run recorded none."""
        return cls(run_dir) if (folder(run_dir) / LOG).is_file() else None

    @property
    def meta(self) -> dict:
        return next((e for e in self.entries if e.get("kind") == "meta"), {})

    @property
    def has_credentials(self) -> bool:
        return bool(self._cred)

    def requests(self) -> list[dict]:
        return [e for e in self.entries if e.get("kind") == "request"]

    def steps(self) -> dict[int, dict]:
        return {e["n"]: e for e in self.entries if e.get("kind") == "step" and "n" in e}

    def acts(self) -> dict[int, float]:
        return {e["n"]: e["t"] for e in self.entries if e.get("kind") == "act" and "n" in e}

    def randoms(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for e in self.entries:
            if e.get("kind") == "random":
                out.setdefault(e.get("url", ""), []).append(e.get("hex", ""))
        return out

    def credentials(self, entry: dict) -> dict:
        """The credentials kept beside `entry` (request: "req", "resp" headers; step: cookies, storage)."""
        return self._cred.get(entry.get("seq")) or {}

    def with_credentials(self, pairs: list, kept: list) -> list:
        """Headers with their credential values put back (in order, by name)."""
        values: dict[str, list] = {}
        for name, value in kept:
            values.setdefault(name.lower(), []).append(value)
        out = []
        for name, value in pairs:
            if value == CREDENTIAL and values.get(name.lower()):
                value = values[name.lower()].pop(0)
            out.append([name, value])
        return out

    def body(self, ref: dict | None) -> bytes | None:
        """The bytes of a body reference ({"sha": ...}); None when there is none or it is missing."""
        sha = (ref or {}).get("sha")
        if not sha:
            return None
        try:
            return gzip.decompress((self.root / BODIES / sha[:2] / f"{sha}.gz").read_bytes())
        except (OSError, EOFError, gzip.BadGzipFile):
            return None

    def size(self) -> int:
        """Bytes on disk: the log, credentials and the compressed bodies."""
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())
