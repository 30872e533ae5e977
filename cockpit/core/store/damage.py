"""A run database Cockpit cannot use, what is wrong with it, and moving it aside for a new one.

Three kinds: the file is damaged (not an SQLite database at all, truncated, pages that do not read), it is an
SQLite database of another program (no Cockpit tables, or tables without Cockpit's columns), or a newer Cockpit
wrote it (a schema this one does not know). :class:`~cockpit.core.store.db.StoreError` carries a
:class:`Damage` as ``damage`` for each; the window offers to move the file aside and the command line says
``cockpit store set-aside``.

Moving aside deletes nothing. The database goes with its ``-wal`` and ``-shm`` files (SQLite's write-ahead log
and its index: the log may hold committed data not yet in the file, and left behind it would be replayed into
the new database) and with the ``runs`` folder of its screenshots, all into a new folder ``set-aside-<time>`` of
the data folder. That folder is itself a data folder: ``COCKPIT_HOME=<it> cockpit store check`` looks at it
again, and moving its contents back undoes the move.
"""
from __future__ import annotations

import os
import sqlite3
import struct
import time
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from cockpit.core.store.schema import SCHEMA_VERSION, missing_columns

DAMAGED, FOREIGN, NEWER = "damaged", "foreign", "newer"
#: Files that belong with a database: its write-ahead log, the log's index, a rollback journal.
COMPANIONS = ("-wal", "-shm", "-journal")
#: The runs' files beside the database (Store.files).
RUN_FILES = "runs"
PREFIX = "set-aside-"
#: What the command line offers, after the one line that says what is wrong.
CLI_FIX = "run `cockpit store set-aside` to move it aside (kept, not deleted) and start with a new, empty store"


@dataclass(frozen=True)
class Damage:
    path: Path  # the database file
    kind: str  # DAMAGED, FOREIGN or NEWER
    reason: str  # SQLite's words, or what the schema lacks

    def describe(self) -> str:
        """One line: which file and what is wrong with it."""
        if self.kind == NEWER:
            return f"the run database {self.path} was written by a newer Cockpit ({self.reason})"
        if self.kind == FOREIGN:
            return f"{self.path} is not a Cockpit run database ({self.reason})"
        return f"the run database {self.path} is damaged ({self.reason})"


def damage_of(error: sqlite3.Error, path: Path) -> Damage | None:
    """The damage an SQLite error reports (a corrupt or non-database file), or None for other errors."""
    text = str(error).lower()
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return Damage(Path(path), DAMAGED, str(error))
    return None


def schema_damage(db: sqlite_utils.Database, path: Path) -> Damage | None:
    """A newer Cockpit's database, or another program's (tables of its own, or a Cockpit schema version without
    Cockpit's tables), judged from its schema alone; None for a Cockpit database this one can open."""
    v = db.execute("PRAGMA user_version").fetchone()[0]
    if v > SCHEMA_VERSION:
        return Damage(Path(path), NEWER, f"schema {v}; this Cockpit knows {SCHEMA_VERSION}")
    if v == 0:
        others = [t for t in db.table_names() if not t.startswith("sqlite_")]
        return Damage(Path(path), FOREIGN, f"it holds other tables: {', '.join(others[:5])}"
                      + (" …" if len(others) > 5 else "")) if others else None
    lacking = missing_columns(db, v)
    return Damage(Path(path), FOREIGN, "it lacks Cockpit's " + ", ".join(lacking[:4])
                  + (f" and {len(lacking) - 4} more" if len(lacking) > 4 else "")) if lacking else None


def diagnose(path: Path, *, timeout: float = 3.0) -> Damage | None:
    """What is wrong with the database at `path`, read without writing a byte (no journal mode set, no log
    moved into the file on close): its schema, then every page (SQLite's quick_check, so damage deep in the
    file is found before a run needs it; well under a second for hundreds of megabytes once cached). None for
    a sound one, a missing one, or one that cannot be read now for another reason (a lock: the caller's open
    says it)."""
    path = Path(path)
    if not path.is_file():
        return None
    # Without a log there is nothing beside the file to read: immutable, or SQLite would make an empty -wal and
    # -shm for a file in WAL mode. With one, read-only (a reader of the log rewrites only the -shm index).
    query = "?mode=ro" if Path(f"{path}-wal").exists() else "?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(path.resolve().as_uri() + query, uri=True, timeout=timeout, isolation_level=None)
    except sqlite3.Error as e:
        return damage_of(e, path)
    try:
        found = schema_damage(sqlite_utils.Database(conn), path)
        if found is None:
            lines = [line.strip() for r in conn.execute("PRAGMA quick_check(5)") for line in str(r[0]).splitlines()]
            problems = [line for line in lines if line and line != "ok" and not line.startswith("***")]
            if problems:
                found = Damage(path, DAMAGED, "pages that do not read: " + "; ".join(problems))
        return found
    except sqlite3.Error as e:
        return damage_of(e, path)
    finally:
        conn.close()


def in_use(path: Path) -> bool:
    """True when another process has the database open: it must not be moved under it. SQLite's own locks tell
    (each open connection holds a read lock on the file, in WAL mode too), seen with F_GETLK where there is
    fcntl; elsewhere, an exclusive transaction that cannot begin. A file SQLite cannot read says False."""
    try:
        import fcntl
    except ImportError:
        return _locked(path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        probe = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)  # struct flock: the whole file
        return struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, probe))[0] != fcntl.F_UNLCK
    except OSError:
        return False
    finally:
        os.close(fd)


def _locked(path: Path) -> bool:
    try:
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=rw", uri=True, timeout=0.5,
                               isolation_level=None)
    except sqlite3.Error:
        return False
    try:
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as e:
        return "locked" in str(e).lower() or "busy" in str(e).lower()
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def aside_folder(root: Path) -> Path:
    """Where :func:`set_aside` would move the store now (a new name: never over an earlier one)."""
    base = Path(root) / (PREFIX + time.strftime("%Y%m%d-%H%M%S"))
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def set_aside(root: Path, db_name: str = "cockpit.db", folder: Path | None = None) -> Path:
    """Move the database in `root`, its companions and its runs' files into a new folder (`folder`, if it does
    not exist yet: the one a person was shown); returns the folder.

    OSError when something cannot be moved (what was moved stays moved, nothing is lost either way);
    RuntimeError when another program has the database open."""
    root = Path(root)
    db = root / db_name
    if db.exists() and in_use(db):
        raise RuntimeError(f"{db} is in use by another program (another Cockpit window or run?); close it first")
    names = [db_name, *(db_name + c for c in COMPANIONS), RUN_FILES]
    present = [n for n in names if (root / n).exists() or (root / n).is_symlink()]
    folder = folder if folder is not None and not folder.exists() else aside_folder(root)
    folder.mkdir()
    for name in present:
        os.replace(root / name, folder / name)  # the same file system: a rename, whatever the size
    return folder
