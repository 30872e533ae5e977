"""`cockpit export --format sft|preference|process|grounding`: training data, with progress and a summary."""
from __future__ import annotations

import sys

from cockpit.cli import common
from cockpit.core.words import plural


def write_training(store, args, flt, refs: list[str] | None) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.training.export import ExportOptions, export
    ids = None
    if refs is not None:
        try:
            ids = [store.resolve(ref) for ref in refs]
        except CockpitError as e:
            return common.fail(str(e), 2)
    if args.out.exists() and not args.out.is_dir():
        return common.fail(f"--out {args.out} is a file; training data is written into a folder", 2)
    options = ExportOptions(args.format, args.layout or "", args.steps, flt, ids)
    tty = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if tty:
            print(f"\rcockpit: {done:,}/{plural(total, 'run', grouped=True)} read", end="" if done < total else "\n", file=sys.stderr,
                  flush=True)
    try:
        result = export(store, options, args.out, progress)
    except CockpitError as e:
        return common.fail(str(e), 2)
    except OSError as e:
        return common.fail(f"cannot write {args.out}: {e.strerror or e}")
    o, t = result.options, result.tally
    made = ", ".join(f"{n:,} {k}" for k, n in sorted(t.made.items())) or "nothing"
    print(f"{o.kind} ({o.layout}): {plural(result.rows, 'row', grouped=True)} from {len(t.runs):,} of "
          f"{plural(len(result.run_ids), 'run', grouped=True)} "
          f"({made}) in {result.out}, {result.bytes / 1e6:,.2f} MB, {result.seconds:.1f} s")
    for why, n in sorted({**t.skipped, **result.notes}.items()):
        print(f"  {why}: {n:,}")
    print(f"  files: {', '.join(result.files)}")
    return 0
