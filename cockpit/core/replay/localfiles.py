"""Local HTML files as task start pages: their folders served on 127.0.0.1, and served again to resume.

``cockpit run --url page.html`` (or a task file whose URLs are ``file://``)
never hands Chrome a ``file://`` address: the page's folder is served over
http on 127.0.0.1 while the run lasts (:class:`ServedFolders`). The port is
fixed by the folder (:func:`folder_port`), so the same task has the same URL
from one batch to the next and a rerun skips finished tasks. Cockpit processes
share that port (:func:`cockpit.core.localserver.serve_shared`): the window and
a `cockpit run` serving the same folder at once both serve it there, so their
runs name the same pages; only a port taken by another folder (or by something
else) sends a folder to another port, which the run records and the log says.

The run records where its pages came from (``served_from`` in its task
extra: folder and port). Its step URLs name that port, and the server is gone
once the run's process ends; :func:`served_again` serves the folder at the
same port while a run is resumed or branched, so the pages it reopens or
replays are there again, sharing the port with any other Cockpit serving the
folder there. A demo run's shop (``cockpit demo`` and the window serve it at its
port, `demo_site_port()`, shared the same way) is served there again likewise; a
shop another Cockpit serves there from another copy of the files is used as it is.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import logging
import threading
import urllib.request
import zlib
from pathlib import Path
from urllib.parse import unquote, urlparse

from cockpit.core import resources
from cockpit.core.demo.policy import demo_site_port
from cockpit.core.errors import CockpitError
from cockpit.core.localserver import LocalSite, serve_shared

log = logging.getLogger(__name__)

#: The key of a run's task extra that says where its pages were served from.
SERVED_FROM = "served_from"


def folder_port(folder: Path) -> int:
    """The port `folder` is served on when free: 40000-59999, fixed by the folder's path."""
    return 40000 + zlib.crc32(str(folder).encode()) % 20000


def file_url(path: Path) -> str:
    return Path(path).resolve().as_uri()


class ServedFolders:
    """Serves the folders of ``file://`` task URLs on 127.0.0.1, or `host` (one server per folder), while tasks run."""

    def __init__(self, host: str = "127.0.0.1"):
        self.sites: dict[Path, LocalSite] = {}
        self.host = host

    def served(self, task):
        """`task` (a :class:`cockpit.core.tasks.task.Task`) with a ``file://`` URL replaced by its served one."""
        if not task.url.startswith("file://"):
            return task
        path = Path(unquote(urlparse(task.url).path))
        if path.parent not in self.sites:
            self.sites[path.parent] = self._serve(path.parent)
        site = self.sites[path.parent]
        extra = dict(task.extra, **{SERVED_FROM: {"folder": str(path.parent), "port": site.port}})
        return dataclasses.replace(task, url=site.url(path.name), extra=extra)

    def _serve(self, folder: Path) -> LocalSite:
        """`folder` served at its port (shared with other Cockpit processes serving it there), else at any free
        port: its runs then have other URLs (finished tasks are not recognised, Compare sees other pages)."""
        port = folder_port(folder)
        try:
            return serve_shared(folder, port, host=self.host)
        except OSError as e:
            site = LocalSite(folder, host=self.host).start()
            log.warning("%s is served at port %d, not its own %d: %s", folder, site.port, port, e.strerror or e)
            return site

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


def start_address(run: dict) -> str:
    """`run`'s start address as a person gave it: the local file a run started on (not the address its folder was
    served at while it ran, which is gone with that run's process), else the run's URL."""
    info, url = served_from(run), run.get("url") or ""
    if info is None:
        return url
    name = unquote(urlparse(url).path).lstrip("/")
    return str(Path(info["folder"]) / name) if name else url


def demo_port(run: dict) -> int | None:
    """The demo shop's port for a demo run whose start page was the demo shop at that port, else None."""
    if not run.get("demo"):
        return None
    try:
        u = urlparse(run.get("url") or "")
        port = u.port
    except ValueError:
        return None
    shop = demo_site_port()
    return shop if u.hostname == "127.0.0.1" and port == shop else None


@dataclasses.dataclass
class _Held:
    folder: Path
    site: LocalSite
    users: int = 1


_serving: dict[int, _Held] = {}  # port -> what served_again serves there: it nests (a branch replays, then runs)
_closing: dict[int, threading.Event] = {}  # port -> set once the site served there has stopped
_serving_lock = threading.Lock()


@contextlib.contextmanager
def served_again(run: dict):
    """While the block runs, the folder `run`'s pages were served from, at the same port (nothing for web runs).

    A demo run (``demo`` set, its start page on the demo shop's port) gets the demo shop there.
    Nests: a block inside another for the same folder shares its server; another site serving the same
    folder there (this process's or another Cockpit's) keeps serving it beside this block's own.
    Raises CockpitError, saying what to do, when the folder is gone or the port is taken.
    """
    info = served_from(run)
    if info is not None:
        folder, port = Path(info["folder"]), int(info["port"])
        if not folder.is_dir():
            raise CockpitError(f"run {run['id']} started on a local file in {folder}, which is not there any "
                               "more; put the files back there to go on with it")
        with _held(run, folder, port, demo=False) as site:
            yield site
        return
    port = demo_port(run)
    if port is None:
        yield None
        return
    with resources.path("demo_site") as root, _held(run, root, port, demo=True) as site:
        yield site


@contextlib.contextmanager
def _held(run: dict, folder: Path, port: int, *, demo: bool):
    held = _acquire(run, folder, port, demo)
    if held is None:  # served by someone else in this process (or, for the demo shop, another Cockpit)
        yield LocalSite.at(port)
        return
    try:
        yield held.site
    finally:
        with _serving_lock:
            held.users -= 1
            last = held.users == 0 and _serving.get(port) is held
            if last:
                del _serving[port]
                done = _closing[port] = threading.Event()
        if last:  # stopped outside the lock: shutdown waits out the server's poll
            try:
                held.site.stop()
            finally:
                with _serving_lock:
                    _closing.pop(port, None)
                done.set()


def _acquire(run: dict, folder: Path, port: int, demo: bool) -> _Held | None:
    """What served_again holds at `port` for `folder` (one more user), or None when a site it does not
    own serves the same folder there (the demo shop). CockpitError when the port serves something else."""
    for _ in range(3):
        with _serving_lock:
            closing = _closing.get(port)
            if closing is None:
                held = _serving.get(port)
                if held is not None:
                    if not _same(held.folder, folder):
                        raise CockpitError(_other_folder(run, folder, port, held.folder, demo))
                    held.users += 1
                    return held
                other = LocalSite.at(port)
                if other is not None and not _same(other.root, folder):
                    raise CockpitError(_other_folder(run, folder, port, other.root, demo))
                try:  # its own server, sharing the port with any other Cockpit serving the folder there
                    held = _serving[port] = _Held(folder, serve_shared(folder, port))
                    return held
                except OSError as e:
                    if other is not None:  # this process serves the same folder there (the window's shop)
                        return None
                    error = e
        if closing is not None:  # a block for this port is just ending: wait for its server to stop
            closing.wait(10)
            continue
        if demo and _serves_demo_shop(folder, port):  # another Cockpit (a window, `cockpit demo`) serves it
            return None
        raise CockpitError(_port_taken(run, folder, port, error, demo))
    raise CockpitError(f"127.0.0.1:{port} did not come free for run {run['id']}'s pages; try again")


def _same(a: Path, b: Path) -> bool:
    return Path(a).resolve() == Path(b).resolve()


def _other_folder(run: dict, folder: Path, port: int, other: Path, demo: bool) -> str:
    what = "the demo shop" if demo else str(folder)
    return (f"run {run['id']}'s pages were served from {what} at 127.0.0.1:{port}, and this Cockpit "
            f"process serves another folder there now ({other}); let what uses that folder finish "
            "and try again")


def _port_taken(run: dict, folder: Path, port: int, e: OSError, demo: bool) -> str:
    why = e.strerror or str(e)
    if demo:
        return (f"run {run['id']} is a demo run whose shop was served at 127.0.0.1:{port}, and that port is "
                f"in use now by something other than Cockpit's demo shop ({why}); stop what uses it and "
                "try again")
    return (f"run {run['id']}'s pages were served from {folder} at 127.0.0.1:{port}, and that port is in "
            f"use now ({why}); stop what uses it and try again")


def _serves_demo_shop(root: Path, port: int) -> bool:
    """Whether what listens at `port` serves this demo shop (its index.html, byte for byte)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://127.0.0.1:{port}/index.html", timeout=3) as r:
            return r.status == 200 and r.read(1 << 20) == (root / "index.html").read_bytes()
    except (OSError, ValueError):
        return False


def with_run_files(fn):
    """Decorates a function of `ctx` (a RunContext, whose store is used) and `run_id` (resume, branch,
    replay): while it runs, the run's local files are served again (:func:`served_again`)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        given = signature.bind(*args, **kwargs).arguments
        with served_again(given["ctx"].store.run(given["run_id"])):
            return fn(*args, **kwargs)
    return wrapper
