"""`cockpit import bundle FILE` and `cockpit import labels FILE`: the terminal side of exchanging labels."""
from __future__ import annotations

from cockpit.cli import common


def run_bundle_or_labels(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.review.label_import import import_label_file
    from cockpit.core.store import Store
    from cockpit.core.store.bundle_import import import_bundle
    try:
        with Store() as store:
            if args.format == "bundle":
                report = import_bundle(store, args.dir)
                merge = report.labels
            else:
                report, merge = None, import_label_file(store, args.dir)
    except CockpitError as e:
        return common.fail(str(e), 2)
    except OSError as e:
        return common.fail(f"{e.filename or args.dir}: {e.strerror or e}; nothing was imported", 2)
    if report:
        print(f"imported {len(report.imported)} runs, skipped {len(report.skipped)} already here (same content)")
        for rid in report.imported:
            print(f"  added {rid}")
        for rid in report.skipped:
            print(f"  skipped {rid}: already here, same content")
    print(f"labels: {merge.added} added, {merge.same} already here, {len(merge.conflicts)} conflicting "
          "relabel(s) (the newer kept)")
    for c in merge.conflicts:
        print(f"  conflict: {c}")
    adj = report.adjudications if report else None
    if adj and (adj.added or adj.same or adj.conflicts):
        print(f"adjudicated verdicts: {adj.added} added, {adj.same} already here, {len(adj.conflicts)} "
              "conflicting (the newer kept)")
        for c in adj.conflicts:
            print(f"  conflict: {c}")
    return 0
