"""Bundles: runs with their files and labels in one portable zip, for exchanging labels between machines.

A bundle is a zip holding ``manifest.json`` and, per run, ``runs/<id>/run.json`` (the run's row, its
steps and approval decisions, as the store holds them), ``runs/<id>/labels.json`` (every annotator's
run and step labels and key-point ticks, the key points typed for the run's task, and the run's adjudicated
verdict with its final key points) and ``runs/<id>/files/...`` (everything in the run's folder: screenshots, marks, the web archive; its
``web/credentials.jsonl`` only when asked for).
The manifest names the format and its version, lists the runs with a hash of each one's content
(rows and files, not labels) and holds the sha256 of every other member. Reading checks all of it
before anything is used (:func:`read_bundle`); merging a bundle into a store is in
:mod:`cockpit.core.store.bundle_import`.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from cockpit.core.store import key_points
from cockpit.core.store.adjudications import adjudications
from cockpit.core.store.db import Store, StoreError
from cockpit.core.store.schema import SCHEMA_VERSION
from cockpit.core.store.webarchive import is_credentials_file

FORMAT = "cockpit-bundle"
VERSION = 1
MANIFEST = "manifest.json"
#: Label rows as a bundle carries them (the store's own row id is left out).
LABEL_COLUMNS = ("run_id", "annotator", "verdict", "category", "comment", "seconds", "blind", "side_effects",
                 "repetition", "created")
STEP_LABEL_COLUMNS = ("run_id", "step", "annotator", "judgement", "corrected_target", "comment", "created")
TICK_COLUMNS = ("run_id", "annotator", "position", "point", "step", "created")
KEY_POINT_COLUMNS = ("task_key", "position", "text", "by", "created")
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class BundleError(StoreError):
    """A bundle cannot be read or merged; the message says why. Nothing was changed."""


@dataclass
class BundleRun:
    content: dict  # {"run": row, "steps": [rows], "decisions": [rows without id]}
    labels: list[dict]
    step_labels: list[dict]
    adjudications: list[dict] = field(default_factory=list)  # the run's adjudicated verdict, if any (0 or 1)
    files: dict[str, bytes] = field(default_factory=dict)  # path inside the run's folder -> bytes
    content_hash: str = ""
    ticks: list[dict] = field(default_factory=list)  # every annotator's key-point ticks (bundles of schema 11 on)
    key_points: list[dict] = field(default_factory=list)  # the key points typed for the run's task

    @property
    def id(self) -> str:
        return self.content["run"]["id"]


# ---------------------------------------------------------------- the content of a run

def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_hash(content: dict, file_hashes: dict[str, str]) -> str:
    """The hash that says whether two stores hold the same run: its rows and its files' hashes (the web
    archive's local-only credentials aside: a bundle may carry them or not)."""
    file_hashes = {r: h for r, h in file_hashes.items() if not is_credentials_file(r)}
    blob = json.dumps({"content": content, "files": dict(sorted(file_hashes.items()))}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
    return _sha(blob.encode("utf-8"))


def run_content(store: Store, run_id: str) -> dict:
    """A run's rows as the store holds them (JSON columns as their text): run, steps, decisions."""
    run = store.rows("SELECT * FROM runs WHERE id = ?", [run_id])
    if not run:
        raise StoreError(f"no run {run_id!r} in {store.path}")
    steps = store.rows("SELECT * FROM steps WHERE run_id = ? ORDER BY step", [run_id])
    decisions = store.rows("SELECT * FROM decisions WHERE run_id = ? ORDER BY id", [run_id])
    return {"run": run[0], "steps": steps, "decisions": [{k: v for k, v in d.items() if k != "id"}
                                                         for d in decisions]}


def run_files(store: Store, run_id: str, *, credentials: bool = False) -> dict[str, Path]:
    """Every file in the run's folder, by its path inside that folder (POSIX); the web archive's
    credentials (``web/credentials.jsonl``) only when asked for."""
    root = store.run_dir(run_id)
    if not root.is_dir():
        return {}
    files = {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}
    return {r: p for r, p in files.items() if credentials or not is_credentials_file(r)}


def store_hash(store: Store, run_id: str) -> str:
    """The content hash of a run in the store (see :func:`content_hash`)."""
    files = {rel: _sha(p.read_bytes()) for rel, p in run_files(store, run_id).items()}
    return content_hash(run_content(store, run_id), files)


def run_key_points(store: Store, run: dict) -> tuple[list[dict], list[dict]]:
    """The key-point ticks of `run` (its row in the store), and the key points typed for its task
    (:func:`~cockpit.core.store.key_points.task_key`)."""
    ticks = store.rows(f"SELECT {', '.join(TICK_COLUMNS)} FROM key_point_ticks WHERE run_id = ? "
                        "ORDER BY annotator, position", [run["id"]])
    typed = store.rows(f"SELECT {', '.join(KEY_POINT_COLUMNS)} FROM key_points WHERE task_key = ? "
                        "ORDER BY position", [key_points.task_key(run)])
    return ticks, typed


def run_labels(store: Store, run_id: str) -> tuple[list[dict], list[dict]]:
    labels = store.rows(f"SELECT {', '.join(LABEL_COLUMNS)} FROM labels WHERE run_id = ? ORDER BY annotator",
                         [run_id])
    steps = store.rows(f"SELECT {', '.join(STEP_LABEL_COLUMNS)} FROM step_labels WHERE run_id = ? "
                        "ORDER BY step, annotator", [run_id])
    return labels, steps


# ---------------------------------------------------------------- writing

def write_bundle(store: Store, run_ids: list[str], out: Path | str, *, credentials: bool = False) -> Path:
    """Write the runs, their files and all their labels to the zip ``out`` (written whole or not at all).
    The web archives go too, without their credentials unless `credentials`."""
    out = Path(out)
    members: dict[str, bytes] = {}
    runs = []
    for rid in run_ids:
        content = run_content(store, rid)
        if content["run"]["status"] == "running":
            raise StoreError(f"run {rid} is still running; bundle it when it has finished")
        labels, step_labels = run_labels(store, rid)
        files = {rel: p.read_bytes() for rel, p in run_files(store, rid, credentials=credentials).items()}
        members[f"runs/{rid}/run.json"] = _json(content)
        ticks, typed = run_key_points(store, content["run"])
        members[f"runs/{rid}/labels.json"] = _json({"labels": labels, "step_labels": step_labels,
                                                    "adjudications": adjudications(store, rid),
                                                    "key_point_ticks": ticks, "key_points": typed})
        members |= {f"runs/{rid}/files/{rel}": data for rel, data in files.items()}
        runs.append({"id": rid, "demo": bool(content["run"]["demo"]),
                     "content_hash": content_hash(content, {r: _sha(d) for r, d in files.items()})})
    manifest = {"format": FORMAT, "version": VERSION, "schema": SCHEMA_VERSION,
                "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "runs": runs, "members": {name: _sha(data) for name, data in members.items()}}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(MANIFEST, _json(manifest))
            for name, data in members.items():
                z.writestr(name, data)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out


def _json(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=1).encode("utf-8")


# ---------------------------------------------------------------- reading

def read_bundle(path: Path | str) -> list[BundleRun]:
    """The runs of a bundle, every member checked against the manifest; BundleError when anything is
    off (not a zip, another format or version, a member missing, added or changed)."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as z:
            manifest = _manifest(z, path)
            members = _checked_members(z, manifest, path)
    except zipfile.BadZipFile:
        raise BundleError(f"{path} is not a Cockpit bundle (not a zip file)") from None
    except OSError as e:
        raise BundleError(f"cannot read {path}: {e.strerror or e}") from e
    return [_bundle_run(entry, members, path) for entry in manifest["runs"]]


def _manifest(z: zipfile.ZipFile, path: Path) -> dict:
    try:
        manifest = json.loads(z.read(MANIFEST))
    except KeyError:
        raise BundleError(f"{path} is not a Cockpit bundle (it has no {MANIFEST})") from None
    except (ValueError, zipfile.BadZipFile) as e:
        raise BundleError(f"{path}: {MANIFEST} is damaged ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BundleError(f"{path} is not a Cockpit bundle ({MANIFEST} names format "
                          f"{manifest.get('format') if isinstance(manifest, dict) else None!r}, not {FORMAT!r})")
    if manifest.get("version") != VERSION:
        raise BundleError(f"{path} is a bundle of version {manifest.get('version')!r}; this Cockpit reads "
                          f"version {VERSION}")
    if not isinstance(manifest.get("schema"), int) or manifest["schema"] > SCHEMA_VERSION:
        raise BundleError(f"{path} was written by a newer Cockpit (store schema {manifest.get('schema')!r}, "
                          f"this one knows {SCHEMA_VERSION}); upgrade Cockpit to import it")
    if not isinstance(manifest.get("runs"), list) or not isinstance(manifest.get("members"), dict):
        raise BundleError(f"{path}: {MANIFEST} lists no runs or no members")
    return manifest


def _checked_members(z: zipfile.ZipFile, manifest: dict, path: Path) -> dict[str, bytes]:
    listed = manifest["members"]
    extra = sorted(set(z.namelist()) - set(listed) - {MANIFEST})
    if extra:
        raise BundleError(f"{path} holds {extra[0]}, which its manifest does not list: the bundle was altered")
    members = {}
    for name, digest in listed.items():
        if not _safe_member(name):
            raise BundleError(f"{path}: the member name {name!r} is not allowed")
        try:
            data = z.read(name)
        except KeyError:
            raise BundleError(f"{path} lacks {name}, which its manifest lists: the bundle is incomplete") from None
        except zipfile.BadZipFile as e:
            raise BundleError(f"{path}: {name} is damaged ({e})") from None
        if _sha(data) != digest:
            raise BundleError(f"{path}: {name} does not match its sha256 in the manifest: the bundle was "
                              "damaged or altered")
        members[name] = data
    return members


def _safe_member(name: str) -> bool:
    p = PurePosixPath(name)
    return (isinstance(name, str) and not p.is_absolute() and "\\" not in name
            and all(part not in ("", ".", "..") for part in name.split("/")))


def _bundle_run(entry, members: dict[str, bytes], path: Path) -> BundleRun:
    rid = entry.get("id") if isinstance(entry, dict) else None
    if not isinstance(rid, str) or not _SAFE_ID.match(rid):
        raise BundleError(f"{path}: the manifest lists a run with the bad id {rid!r}")
    try:
        content = json.loads(members[f"runs/{rid}/run.json"])
        labels = json.loads(members[f"runs/{rid}/labels.json"])
    except KeyError as e:
        raise BundleError(f"{path}: run {rid} has no {e.args[0]}") from None
    except ValueError as e:
        raise BundleError(f"{path}: the rows of run {rid} are damaged ({e})") from None
    prefix = f"runs/{rid}/files/"
    files = {name[len(prefix):]: data for name, data in members.items() if name.startswith(prefix)}
    run = BundleRun(content, labels.get("labels", []), labels.get("step_labels", []),
                    labels.get("adjudications", []), files,  # bundles from before schema 7 have none
                    ticks=labels.get("key_point_ticks", []), key_points=labels.get("key_points", []))
    if not all(isinstance(x, dict) for x in run.labels + run.step_labels + run.adjudications + run.ticks
               + run.key_points):
        raise BundleError(f"{path}: the labels of run {rid} are damaged (a row is not an object)")
    if content.get("run", {}).get("id") != rid or any(
            lab.get("run_id") != rid for lab in run.labels + run.step_labels + run.adjudications + run.ticks):
        raise BundleError(f"{path}: the rows of run {rid} name another run")
    run.content_hash = content_hash(content, {r: _sha(d) for r, d in files.items()})
    if run.content_hash != entry.get("content_hash"):
        raise BundleError(f"{path}: run {rid} does not match its content hash in the manifest: the bundle "
                          "was damaged or altered")
    return run
