"""What a path holds, for importing it: which of the import kinds reads it, and what each kind expects.

Detection uses the importers' own finders (the same folders and files an import would read), so what it
names is what the import then finds. An import that finds nothing raises :class:`NothingToImport`, which says
the layout the kind expected and, where the path holds another kind, which.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

from cockpit.core.errors import CockpitError
from cockpit.core.store import bu_read, m2w_read, webvoyager
from cockpit.core.store.bundle import MANIFEST

KINDS = ("webvoyager", "mind2web", "browser-use", "bundle", "labels")
#: What each kind is, as a person names it.
NAMES = {"webvoyager": "WebVoyager run folders", "mind2web": "Online-Mind2Web result folders",
         "browser-use": "browser-use histories", "bundle": "a Cockpit bundle",
         "labels": "a label file"}
#: What each kind expects to find: the layout, in one sentence.
LAYOUTS = {
    "webvoyager": "task<id>/ folders holding screenshot<k>.png, interact_messages.json or agent.log, at the folder "
                  "or anywhere below it (WebVoyager writes <results>/<date_time>/task<id>/)",
    "mind2web": "<task_id>/result.json folders (with trajectory/<k>_screenshot.png) in the folder or one level "
                "below, or a result.json in the folder itself",
    "browser-use": "a JSON file holding a \"history\" list of steps (Agent.save_history, "
                   "AgentHistoryList.save_to_file), or a folder with such files anywhere below it",
    "bundle": "a .zip written by `cockpit export --format bundle` (it holds manifest.json)",
    "labels": "a .jsonl or .csv written by `cockpit export --format labels-jsonl` or `labels-csv`, or "
              "Online-Mind2Web's human_label.json (a JSON array of objects with task_id and <agent>_human_label)",
}


class NothingToImport(CockpitError):
    """The path holds nothing the import kind reads; the message says what it expected (and what it found)."""


def nothing_found(kind: str, path: Path) -> NothingToImport:
    """The error for an import of `kind` that found nothing at `path`."""
    others = [k for k in detect(path) if k != kind]
    hint = f"; it holds {NAMES[others[0]]} instead" if others else ""
    return NothingToImport(f"found no {NAMES[kind] if kind != 'labels' else 'labels'} in {path}: expected "
                           f"{LAYOUTS[kind]}{hint}")


def detect(path: Path | str) -> list[str]:
    """The kinds that would find something to import at `path`, the likeliest first ([] when none would)."""
    return list(survey(path))


def survey(path: Path | str) -> dict[str, int]:
    """What an import of each kind would find at `path`: kind -> how many runs' folders or files (1 for a bundle
    or a label file), the likeliest kind first; {} when none would find anything."""
    path = Path(path)
    if path.is_file():
        return dict.fromkeys(_file_kinds(path), 1)
    if not path.is_dir():
        return {}
    found = {}
    try:
        for kind, find in (("mind2web", m2w_read.find_result_folders), ("webvoyager", webvoyager.find_run_folders),
                           ("browser-use", bu_read.find_histories)):
            if kind == "browser-use" and "mind2web" in found:
                continue  # result.json files are not histories
            n = len(find(path))
            if n:
                found[kind] = n
    except (CockpitError, OSError):
        pass
    return found


def _file_kinds(path: Path) -> list[str]:
    suffix = path.suffix.lower()
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                return ["bundle"] if MANIFEST in z.namelist() else []
        if suffix in (".jsonl", ".csv"):
            with open(path, encoding="utf-8-sig", errors="replace") as f:
                head = f.read(4096)
            return ["labels"] if "run_id" in head and "annotator" in head else []
        if suffix == ".json" and _has_human_labels(path):
            return ["labels"]
        if suffix == ".json" and bu_read.find_histories(path) and _has_history(path):
            return ["browser-use"]
    except (OSError, zipfile.BadZipFile):
        return []
    return []


def _has_human_labels(path: Path) -> bool:
    """Online-Mind2Web's human_label.json: an array whose first object has task_id and an <agent>_human_label."""
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        head = f.read(4096)
    return head.lstrip().startswith("[") and '"task_id"' in head and '_human_label"' in head


def _has_history(path: Path) -> bool:
    with open(path, "rb") as f:
        return b'"history"' in f.read(4096)
