"""`cockpit store check | set-aside`: is the run database sound; move a damaged one aside for a new one."""
from __future__ import annotations

from cockpit.cli import common

HELP = "check the run database, or set-aside one Cockpit cannot use (moved aside, kept) and start anew"
DESCRIPTION = """check: read every page of the run database (cockpit.db in the data folder) and say whether
Cockpit can use it (exit 0) or what is wrong with it: damaged, not a Cockpit database, or written by a newer
Cockpit (exit 1). set-aside: move the database, its -wal and -shm files and its runs' files into a new folder
set-aside-<time> of the data folder, and start with a new, empty store; nothing is deleted, and the folder is a
data folder of its own (COCKPIT_HOME=<folder> cockpit store check looks at it again). A database that Cockpit
can use is set aside only with --force; one that another program has open, never."""


def add_parser(sub) -> None:
    p = sub.add_parser("store", help=HELP, description=DESCRIPTION)
    p.add_argument("action", choices=("check", "set-aside"), help="check the database, or move it aside")
    p.add_argument("--force", action="store_true", help="set-aside: also a database Cockpit can use")


def run(args) -> int:
    from cockpit.core import paths
    from cockpit.core.store.db import DB_NAME
    db = paths.home() / DB_NAME
    if not db.exists():
        print(f"no run database at {db} yet: Cockpit makes a new one when it first records a run")
        return 0
    sound, problem = _check()
    if args.action == "check":
        if problem is None:
            print(f"{db} is sound: {sound}")
            return 0
        return common.fail(str(problem), 1)
    if problem is None and not args.force:
        return common.fail(f"{db} is sound ({sound}); give --force to set it aside all the same", 2)
    if problem is not None and problem.damage is None and not args.force:  # locked, read-only, disk full
        return common.fail(f"{problem}. It is not damaged: it was left where it is", 2)
    from cockpit.core.store.damage import set_aside
    try:
        folder = set_aside(db.parent)
    except (OSError, RuntimeError) as e:
        return common.fail(f"could not set {db} aside: {e}", 2)
    print(f"moved {db.name} (with its -wal, -shm and runs' files, where there were any) to {folder}; "
          "the next run starts a new, empty store")
    print(f"to look at it again: COCKPIT_HOME={folder} cockpit store check")
    return 0


def _check():
    """(a summary of a sound store, None) or ("", the StoreError that says what is wrong with it)."""
    from cockpit.core.store import Store, StoreError
    from cockpit.core.words import plural
    try:
        with Store(check=True) as store:
            n = store.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            return f"schema {store.version}, {plural(n, 'run')}", None
    except StoreError as e:
        return "", e
