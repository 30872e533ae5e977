"""Runs whose process is gone: a run left 'running' by a process that no longer exists is 'interrupted';
one may be set running again by the process that resumes it, or closed by the user. A run knows its
process by pid and host name."""
from __future__ import annotations

import os
import socket
import time

from cockpit.core.store.db import Store


def mark_interrupted(store: Store, *, wait: float | None = None) -> int:
    """Runs left 'running' by processes that no longer exist become 'interrupted'.

    `wait`: give up after this many seconds if another program holds the database (StoreError),
    instead of the store's usual timeout; a read-only store changes nothing."""
    if store.read_only:
        return 0
    host = socket.gethostname()
    dead = [r["id"] for r in store.rows("SELECT id, pid, host FROM runs WHERE status = 'running'")
            if r["host"] == host and not alive(r["pid"])]
    if dead:
        with store.waiting(wait), store.atomic():
            for rid in dead:
                store.db["runs"].update(rid, {"status": "interrupted",
                                             "error": "the process running it ended before it finished"})
    return len(dead)

def reopen_run(store: Store, run_id: str, *, allowed: tuple = ("interrupted", "failed"), **fields) -> bool:
    """Set an ended run (one of `allowed`) running again in this process (resume); False when
    its status is not one of them any more (another process got there first)."""
    row = dict(fields, status="running", pid=os.getpid(), host=socket.gethostname(), answer=None,
               error=None, finished=None)
    sets = ", ".join(f"[{k}] = ?" for k in row)
    with store.atomic():
        cur = store.db.execute(f"UPDATE runs SET {sets} WHERE id = ? AND status IN "
                              f"({','.join('?' * len(allowed))})", [*row.values(), run_id, *allowed])
        return cur.rowcount == 1

def close_run(store: Store, run_id: str) -> bool:
    """An interrupted run the user gives up on becomes 'closed' (its steps stay); False otherwise."""
    with store.atomic():
        cur = store.db.execute("UPDATE runs SET status = 'closed', finished = ? WHERE id = ? AND "
                              "status = 'interrupted'", [time.time(), run_id])
        return cur.rowcount == 1

# ---------- reading ----------


def alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
