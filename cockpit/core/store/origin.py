"""Where an imported run came from, in words, for Review's run list and the run's header (walkthrough 9: an
imported copy of a run looked the same as the run it was exported from).

A run imported from another harness's folders says so itself: its ``source`` is the importer's (webvoyager,
mind2web, browser-use) and its config names the folder or file (``imported_from``). A run merged from a bundle
keeps its row as the other store had it (its content hash depends on it), so the bundle it came from is noted
apart, in the ``imports`` table (cockpit.core.store.bundle_import); ``Store.run_origin`` reads it.
"""
from __future__ import annotations

#: The harness each importer's runs came from, by the run's source.
HARNESSES = {"webvoyager": "WebVoyager", "mind2web": "Online-Mind2Web", "browser-use": "browser-use"}
#: What Review's run list puts before an imported run's task.
MARK = "[imported]"
#: The table row's columns :func:`origin_text` reads (see cockpit.core.store.queries).
ROW_COLUMNS = """CASE WHEN json_valid(runs.config) THEN json_extract(runs.config, '$.imported_from') END AS imported_from,
  (SELECT origin FROM imports WHERE imports.run_id = runs.id AND imports.kind = 'bundle') AS bundle"""


def origin_text(source: str | None, imported_from: str | None, bundle: str | None) -> str:
    """"imported from WebVoyager /data/task3", "imported from the bundle alice.zip"; "" for a run recorded here."""
    harness = ""
    if (source or "cockpit") != "cockpit":
        harness = f"{HARNESSES.get(source, source)} {imported_from or ''}".strip()
    if bundle:
        return f"imported from the bundle {bundle}" + (f" (first imported from {harness})" if harness else "")
    return f"imported from {harness}" if harness else ""
