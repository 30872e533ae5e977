"""Local HTML files as task start pages: their folders served on 127.0.0.1, and served again to resume.

``cockpit run --url page.html`` (or a task file whose URLs are ``file://``)
never hands Chrome a ``file://`` address: the page's folder is served over
http on 127.0.0.1 while the run lasts (:class:`ServedFolders`). The port is
fixed by the folder (:func:`folder_port`), so the same task has the same URL
from one batch to the next and a rerun skips finished tasks.

The run records where its pages came from (``served_from`` in its task
extra: folder and port). Its step URLs name that port, and the server is gone
once the run's process ends; :func:`served_again` serves the folder at the
same port while a run is resumed or branched, so the pages it reopens or
replays are there again.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import threading
import zlib
from pathlib import Path
from urllib.parse import unquote, urlparse

from .errors import CockpitError
from .localserver import LocalSite

#: The key of a run's task extra that says where its pages were served from.
SERVED_FROM = "served_from"


def folder_port(folder: Path) -> int:
    """The port `folder` is served on when free: 40000-59999, fixed by the folder's path."""
    return 40000 + zlib.crc32(str(folder).encode()) % 20000


def file_url(path: Path) -> str:
    return Path(path).resolve().as_uri()


class ServedFolders:
    """Serves the folders of ``file://`` task URLs on 127.0.0.1 (one server per folder) while tasks run."""

    def __init__(self):
        self.sites: dict[Path, LocalSite] = {}

    def served(self, task):
        """`task` (a :class:`cockpit.core.tasks.Task`) with a ``file://`` URL replaced by its served one."""
        if not task.url.startswith("file://"):
            return task
        path = Path(unquote(urlparse(task.url).path))
        if path.parent not in self.sites:
            try:
                self.sites[path.parent] = LocalSite(path.parent, port=folder_port(path.parent)).start()
            except OSError:  # that port is taken: any free one (finished tasks are then not recognised)
                self.sites[path.parent] = LocalSite(path.parent).start()
        site = self.sites[path.parent]
        extra = dict(task.extra, **{SERVED_FROM: {"folder": str(path.parent), "port": site.httpd.server_address[1]}})
        return dataclasses.replace(task, url=site.url(path.name), extra=extra)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for site in self.sites.values():
            site.stop()
        return False


def served_from(run: dict) -> dict | None:
    """{"folder", "port"} of a run started on a local file, else None."""
    info = ((run.get("config") or {}).get("task_extra") or {}).get(SERVED_FROM)
    return info if isinstance(info, dict) and info.get("folder") and info.get("port") else None


_serving: dict[int, list] = {}  # port -> [folder, site, users]: served_again nests (a branch replays, then runs)
_serving_lock = threading.Lock()


@contextlib.contextmanager
def served_again(run: dict):
    """While the block runs, the folder `run`'s pages were served from, at the same port (nothing for web runs).

    Nests: a block inside another for the same folder shares its server.
    Raises CockpitError, saying what to do, when the folder is gone or the port is taken.
    """
    info = served_from(run)
    if info is None:
        yield None
        return
    folder, port = Path(info["folder"]), int(info["port"])
    if not folder.is_dir():
        raise CockpitError(f"run {run['id']} started on a local file in {folder}, which is not there any more; "
                           "put the files back there to go on with it")
    with _serving_lock:
        held = _serving.get(port)
        if held is not None and held[0] == folder:
            held[2] += 1
        else:
            try:
                held = _serving[port] = [folder, LocalSite(folder, port=port).start(), 1]
            except OSError as e:
                raise CockpitError(f"run {run['id']}'s pages were served from {folder} at 127.0.0.1:{port}, and "
                                   f"that port is in use now ({e.strerror or e}); stop what uses it (another "
                                   "cockpit run on the same folder?) and try again") from None
    try:
        yield held[1]
    finally:
        with _serving_lock:
            held[2] -= 1
            if held[2] == 0:
                _serving.pop(port, None)
                held[1].stop()


def with_run_files(fn):
    """Decorates a function of `store` and `run_id` (resume, branch, replay): while it runs, the run's
    local files are served again (:func:`served_again`)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        given = signature.bind(*args, **kwargs).arguments
        with served_again(given["store"].run(given["run_id"])):
            return fn(*args, **kwargs)
    return wrapper
