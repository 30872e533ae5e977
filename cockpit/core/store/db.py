"""Store: opening the database, writing runs and steps, reading them back.

The database (``cockpit.db``, WAL) sits in the data dir with one folder per
run beside it (``runs/<run id>/step-<k>/``: screenshot.png, marked.png,
marks.json). A step's files are written first and its row committed after, in
one transaction with the run's totals, so a killed process loses at most the
step in flight. Runs left 'running' by a dead process read as 'interrupted'.

Never stores an API key: run config comes from ModelConfig.to_dict(), which
holds none.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import socket
import sqlite3
import threading
import time
from pathlib import Path

import sqlite_utils

from cockpit.core import paths
from cockpit.core.errors import CockpitError
from cockpit.core.store.damage import CLI_FIX, NEWER, Damage, damage_of, diagnose, schema_damage
from cockpit.core.store.newrun import NewRun
from cockpit.core.store.queries import StoreQueries, fts_query
from cockpit.core.store.schema import MIGRATIONS, SCHEMA_VERSION

log = logging.getLogger(__name__)

DB_NAME = "cockpit.db"
#: Statuses after which a run is over; 'running' runs of dead processes become 'interrupted'.
FINAL = ("answered", "refused", "max_steps", "stopped", "failed", "interrupted", "closed", "gave_up")
#: Finished runs that a batch rerun skips (failed, stopped and interrupted ones are run again).
DONE = ("answered", "refused", "max_steps")
#: A step's files, by the steps column that holds each one's path.
STEP_FILES = {"screenshot_clean": "screenshot.png", "screenshot": "marked.png", "marks_file": "marks.json"}


class StoreError(CockpitError):
    """The run store cannot be opened, read or written; the message says why and where. ``damage``: what is wrong
    with a database that cannot be used at all (damaged, not Cockpit's, a newer Cockpit's), else None."""
    damage: Damage | None = None


def damaged(d: Damage, advice: str = "") -> StoreError:
    """The StoreError for an unusable database: what is wrong, `advice` if any, and the command that moves it
    aside."""
    err = StoreError(f"{d.describe()}; {advice + ', or ' if advice else ''}{CLI_FIX}")
    err.damage = d
    return err


def _explain(e: sqlite3.Error, path: Path) -> StoreError:
    text = str(e).lower()
    if "locked" in text or "busy" in text:
        err = StoreError(f"the run database {path} is locked by another program; "
                         "close other Cockpit windows or runs using it and try again")
        err.locked_path = path  # a caller may say more (core.batch at start-up)
        return err
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        err = StoreError(f"cannot write the run database {path}: its folder is read-only or missing "
                         "(set COCKPIT_HOME to a writable folder)")
        err.read_only = True  # open_for_reading() may still read it
        return err
    if "disk is full" in text or "disk i/o" in text:
        return StoreError(f"the run database {path} cannot be written: the disk is full or failing ({e})")
    d = damage_of(e, path)
    if d is not None:
        return damaged(d)
    return StoreError(f"run database {path}: {e}")


class Store(StoreQueries):
    """One connection to the run store. Thread-safe; open one per process or per worker.

    The named reads of other modules (review table, hops, memory, judge) are in StoreQueries."""

    def __init__(self, root: Path | str | None = None, *, timeout: float = 10.0, read_only: bool = False,
                 check: bool = False):
        self.root = Path(root) if root else paths.home()
        self.path = self.root / DB_NAME
        self.files = self.root / "runs"
        self._lock = threading.RLock()
        self._depth = 0  # > 0 inside a transaction (atomic() nests the writes it groups)
        self.read_only = read_only  # see open_for_reading(); every write raises StoreError
        self._busy_ms = int(timeout * 1000)
        if read_only:
            self._open_read_only(timeout)
            return
        d = diagnose(self.path, timeout=timeout) if check else None  # `check`: read every page first
        if d is not None:
            raise damaged(d, "upgrade Cockpit to open it" if d.kind == NEWER else "")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False,
                                   isolation_level=None)
            self.db = sqlite_utils.Database(conn)
            self.db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self._refuse_unusable()  # before anything is written to it, even the journal mode
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except StoreError:
            self.close()
            raise
        except sqlite3.Error as e:
            self.close()
            raise _explain(e, self.path) from e
        except OSError as e:
            raise StoreError(f"cannot use the data folder {self.root}: {e.strerror or e}") from e

    def _open_read_only(self, timeout: float) -> None:
        if not self.path.is_file():
            raise StoreError(f"no run database at {self.path}")
        uri, error = self.path.resolve().as_uri(), None
        # immutable: a folder where not even the -shm index can be made (then WAL content not yet
        # checkpointed is not seen; a cleanly closed store has none)
        for query in ("?mode=ro", "?mode=ro&immutable=1"):
            try:
                conn = sqlite3.connect(uri + query, uri=True, timeout=timeout, check_same_thread=False,
                                       isolation_level=None)
            except sqlite3.Error as e:
                error = e
                continue
            try:
                conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                break
            except sqlite3.Error as e:
                error = e
                conn.close()
        else:
            raise _explain(error, self.path) from error
        self.db = sqlite_utils.Database(conn)
        try:
            self._refuse_unusable()
        except StoreError:
            self.close()
            raise
        v = self.version
        if v != SCHEMA_VERSION:
            self.close()
            raise StoreError(f"{self.path} has schema {v}, this Cockpit reads {SCHEMA_VERSION}; "
                             "open it once where it can be written, to upgrade it")

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error, AttributeError):  # AttributeError: it never opened
            self.db.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---------- schema ----------
    @property
    def version(self) -> int:
        with self._lock:
            return self.db.execute("PRAGMA user_version").fetchone()[0]

    def data_version(self) -> int:
        """SQLite's change counter: another connection's commit (another process, a worker's Store) changes it,
        this connection's own do not. Cheap enough to poll (Review's list follows a batch with it)."""
        with self._lock:
            return self.db.execute("PRAGMA data_version").fetchone()[0]

    def _refuse_unusable(self) -> None:
        """StoreError (with its damage) for a database of a newer Cockpit or of another program: never write
        Cockpit's tables into one."""
        d = schema_damage(self.db, self.path)
        if d is not None:
            raise damaged(d, "upgrade Cockpit to open it" if d.kind == NEWER else "")

    def _migrate(self) -> None:
        v = self.version
        while v < SCHEMA_VERSION:
            with self._tx():
                v = self.version  # again, under the write lock: another program may have just upgraded it
                if v >= SCHEMA_VERSION:
                    break
                MIGRATIONS[v](self.db)
                v += 1
                self.db.execute(f"PRAGMA user_version = {v}")
            log.info("run store %s migrated to schema %d", self.path, v)

    def rows(self, sql: str, params=()) -> list[dict]:
        """A read, fully fetched under the lock: sqlite-utils wraps each query in a SAVEPOINT,
        which on a connection shared by threads would tangle with another thread's transaction."""
        with self._lock:
            try:
                return list(self.db.query(sql, params))
            except sqlite3.Error as e:
                raise _explain(e, self.path) from e

    def atomic(self):
        """Group several writes (new_run, commit_step, finish_run, ...) into one transaction, on this
        thread: either all are kept or, if anything in the block raises, none."""
        return self._tx()

    @contextlib.contextmanager
    def _tx(self):
        """One write transaction: all of it is kept, or (on any error, a failed COMMIT too) none of it,
        and the connection is left usable; sqlite errors become StoreError."""
        with self._lock:
            if self._depth:  # inside atomic(): the outer transaction commits or rolls back
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise _explain(e, self.path) from e
            self._depth = 1
            try:
                yield
            except BaseException as e:
                self._rollback()
                if isinstance(e, sqlite3.Error):
                    raise _explain(e, self.path) from e
                raise
            finally:
                self._depth = 0
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error as e:  # e.g. busy, disk full, a deferred constraint: the transaction may stay open
                self._rollback()
                raise _explain(e, self.path) from e

    @contextlib.contextmanager
    def waiting(self, seconds: float | None):
        """Wait at most `seconds` for another program's lock inside this block (None: the usual timeout)."""
        with self._lock:
            if seconds is not None:
                self.db.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
            try:
                yield
            finally:
                if seconds is not None:
                    self.db.execute(f"PRAGMA busy_timeout = {self._busy_ms}")

    def _rollback(self) -> None:
        """End the open transaction, if SQLite has not already rolled it back itself (it does on I/O errors);
        a failing ROLLBACK must not hide the error that caused it."""
        if not self.db.conn.in_transaction:
            return
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.Error as e:
            log.warning("rollback failed on %s: %s", self.path, e)

    # ---------- writing ----------
    def new_run(self, new: NewRun) -> str:
        """Insert the run `new` describes, status `new.status` (running); returns its id."""
        run_id = new.run_id or f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
        row = {"id": run_id, "task": new.task, "url": new.url, "task_id": new.task_id, "site": new.site,
               "model": new.model, "base_url": new.base_url or "", "config": json.dumps(new.config or {}),
               "approval_policy": new.approval_policy, "status": new.status, "started": new.started or time.time(),
               "parent_run": new.parent_run, "parent_step": new.parent_step, "source": new.source,
               "demo": int(new.demo), "pid": os.getpid(), "host": socket.gethostname(), "batch": new.batch}
        with self._tx():
            self.db["runs"].insert(row)
        return run_id

    def run_dir(self, run_id: str) -> Path:
        return self.files / run_id

    def step_dir(self, run_id: str, step: int) -> Path:
        return self.run_dir(run_id) / f"step-{step:03d}"

    def step_file(self, run_id: str, step: int, key: str) -> str:
        """Where a step's file goes, relative to the data dir; `key` is a steps column of STEP_FILES."""
        return str((self.step_dir(run_id, step) / STEP_FILES[key]).relative_to(self.root))

    def write_step_files(self, run_id: str, step: int, *, screenshot: bytes | None = None,
                         marked: bytes | None = None, marks: list | None = None) -> dict:
        """Write a step's files; returns their paths relative to the data dir, by steps column."""
        d = self.step_dir(run_id, step)
        try:
            d.mkdir(parents=True, exist_ok=True)
            out = {}
            for key, data in (("screenshot_clean", screenshot), ("screenshot", marked),
                              ("marks_file", None if marks is None else json.dumps(marks).encode())):
                if data is not None:
                    _write_atomic(d / STEP_FILES[key], data)
                    out[key] = self.step_file(run_id, step, key)
            return out
        except OSError as e:
            raise StoreError(f"cannot write step files in {d}: {e.strerror or e}") from e

    def commit_step(self, run_id: str, row: dict, decision: dict | None = None) -> None:
        """Record a finished step (and its approval decision) and update the run's totals."""
        row = {k: (json.dumps(v) if isinstance(v, (dict, list, tuple)) else v) for k, v in row.items()}
        row["run_id"] = run_id
        with self._tx():
            self.db["steps"].insert(row, replace=True)
            if decision:
                d = {k: (json.dumps(v) if isinstance(v, (dict, list, tuple)) else v) for k, v in decision.items()}
                self.db["decisions"].insert(dict(d, run_id=run_id, step=row["step"]))
            self.db.execute(
                "UPDATE runs SET steps = (SELECT COUNT(*) FROM steps WHERE run_id = ?),"
                " prompt_tokens = (SELECT COALESCE(SUM(prompt_tokens), 0) FROM steps WHERE run_id = ?),"
                " completion_tokens = (SELECT COALESCE(SUM(completion_tokens), 0) FROM steps WHERE run_id = ?),"
                " cost = (SELECT SUM(cost) FROM steps WHERE run_id = ?) WHERE id = ?",
                [run_id] * 4 + [run_id])
            if any(k.startswith("plan_") for k in row):  # look-ahead calls (previews, planning), summed apart
                self.db.execute(
                    "UPDATE runs SET (plan_calls, plan_prompt_tokens, plan_completion_tokens, plan_cost) = "
                    "(SELECT COALESCE(SUM(plan_calls), 0), COALESCE(SUM(plan_prompt_tokens), 0),"
                    " COALESCE(SUM(plan_completion_tokens), 0), SUM(plan_cost) FROM steps WHERE run_id = ?)"
                    " WHERE id = ?", [run_id, run_id])

    def finish_run(self, run_id: str, status: str, *, answer: str | None = None, error: str | None = None) -> None:
        with self._tx():
            self.db["runs"].update(run_id, {"status": status, "answer": answer, "error": error,
                                            "finished": time.time()})

    def set_run(self, run_id: str, **fields) -> None:
        with self._tx():
            self.db["runs"].update(run_id, fields)

    def resolve(self, ref: str) -> str:
        """A run id from a full id or a unique prefix; StoreError otherwise."""
        rows = self.rows("SELECT id FROM runs WHERE id = ? OR id LIKE ? ORDER BY id LIMIT 3",
                          [ref, ref.replace("%", "") + "%"])
        exact = [r["id"] for r in rows if r["id"] == ref]
        if exact:
            return exact[0]
        if len(rows) == 1:
            return rows[0]["id"]
        if not rows:
            raise StoreError(f"no run {ref!r} in {self.path} (see `cockpit runs`)")
        raise StoreError(f"{ref!r} matches several runs ({', '.join(r['id'] for r in rows)}, ...); give more of the id")

    def run(self, run_id: str) -> dict:
        rows = self.rows("SELECT * FROM runs WHERE id = ?", [run_id])
        if not rows:
            raise StoreError(f"no run {run_id!r} in {self.path}")
        row = rows[0]
        row["config"] = json.loads(row["config"] or "{}")
        return row

    def steps(self, run_id: str, *, with_request: bool = True, after: int = 0) -> list[dict]:
        """The run's steps in order (those numbered above `after`); `with_request=False` leaves out the (large)
        messages sent."""
        cols = "*" if with_request else ", ".join(c for c in self.db["steps"].columns_dict if c != "request")
        return [_decode_step(r) for r in
                self.rows(f"SELECT {cols} FROM steps WHERE run_id = ? AND step > ? ORDER BY step", [run_id, after])]

    def update_step(self, run_id: str, step: int, **fields) -> None:
        """Add facts learnt after a step was committed (its effect, seen at the next observation)."""
        fields = {k: (json.dumps(v) if isinstance(v, (dict, list, tuple)) else v) for k, v in fields.items()}
        with self._tx():
            self.db["steps"].update((run_id, step), fields)

    def step(self, run_id: str, step: int) -> dict | None:
        rows = self.rows("SELECT * FROM steps WHERE run_id = ? AND step = ?", [run_id, step])
        return _decode_step(rows[0]) if rows else None

    def decisions(self, run_id: str) -> list[dict]:
        return self.rows("SELECT * FROM decisions WHERE run_id = ? ORDER BY id", [run_id])

    def runs(self, *, limit: int = 50, status: str | None = None, search: str | None = None,
             batch: str | None = None) -> list[dict]:
        where, params = where_equal(status=status, batch=batch)
        if search:
            where += (" AND " if where else " WHERE ") + "rowid IN (SELECT rowid FROM runs_fts WHERE runs_fts MATCH ?)"
            params.append(fts_query(search))
        return self.rows(f"SELECT * FROM runs{where} ORDER BY started DESC LIMIT ?", params + [limit])

    def done_tasks(self) -> set[tuple[str, str, str]]:
        """(task id, task, url) of tasks a Cockpit run finished (answered or out of steps): a batch rerun
        skips them. The text and URL are part of the key, so 'task-3' of another plain task file (ids
        from line numbers) or a task edited since runs anew; imported runs (WebVoyager's own) and branches
        of other runs do not count."""
        q = (f"SELECT DISTINCT task_id, task, url FROM runs WHERE task_id != '' AND source = 'cockpit' "
             f"AND parent_run IS NULL "
             f"AND status IN ({','.join('?' * len(DONE))})")
        return {(r["task_id"], r["task"], r["url"]) for r in self.rows(q, list(DONE))}

    def next_step(self, run_id: str) -> int:
        with self._lock:
            row = self.db.execute("SELECT COALESCE(MAX(step), 0) FROM steps WHERE run_id = ?", [run_id]).fetchone()
        return row[0] + 1

    def file(self, rel: str) -> Path:
        return self.root / rel

    def read_file(self, rel: str | None, what: str = "file") -> bytes:
        if not rel:
            raise StoreError(f"this step has no {what}")
        p = self.root / rel
        try:
            return p.read_bytes()
        except OSError as e:
            raise StoreError(f"the {what} {p} is missing or unreadable ({e.strerror or e})") from e


def where_equal(**columns) -> tuple[str, list]:
    """(" WHERE a = ? AND b = ?", [a, b]) for the columns given a value (none: ("", [])); names may be qualified
    with a table alias as a__col (a.col)."""
    given = {k.replace("__", "."): v for k, v in columns.items() if v}
    return (" WHERE " + " AND ".join(f"{k} = ?" for k in given) if given else ""), list(given.values())


def open_for_reading(root: Path | str | None = None) -> Store:
    """A Store for commands that only read (listing, exporting): the usual one, or a read-only one
    when the data folder cannot be written (a read-only copy or mount) but holds a database."""
    try:
        return Store(root)
    except StoreError as e:
        if not getattr(e, "read_only", False) or not ((Path(root) if root else paths.home()) / DB_NAME).is_file():
            raise
        log.info("%s; opening it read-only", e)
        return Store(root, read_only=True)


_JSON_COLUMNS = ("request", "evidence", "decision", "timings", "effect", "flags", "hops", "prediction", "plan",
                 "pointer")


def _decode_step(row: dict) -> dict:
    for k in _JSON_COLUMNS:
        if row.get(k):
            row[k] = json.loads(row[k])
    return row


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
