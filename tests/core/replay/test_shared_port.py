"""One local folder, one address, from any Cockpit process on the machine (new-user walkthrough: the window and
`cockpit run --tasks` served the same file at two ports, so Compare said "same page? differs" for one page).

Each Cockpit here is a real process holding a ServedFolders, as the window's run and `cockpit run` hold one;
its pages are fetched over HTTP as a browser's requests would be.
"""
import os
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import MARKER, serve_shared
from cockpit.core.replay.localfiles import ServedFolders, file_url, folder_port
from cockpit.core.review.compare import same_page
from cockpit.core.store import Store
from cockpit.core.tasks.task import Task
from tests.clitools import cockpit, free_port

ROOT = Path(__file__).resolve().parents[3]
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

# A Cockpit process serving a local page for a run: prints the page's URL, serves it until its stdin closes.
# A second argument forces the folder's port (two folders whose ports collide).
HOLD = """
import sys
from pathlib import Path
from cockpit.core.replay import localfiles
from cockpit.core.tasks.task import Task
if len(sys.argv) > 2:
    localfiles.folder_port = lambda folder: int(sys.argv[2])
with localfiles.ServedFolders() as local:
    print(local.served(Task("t", "q", localfiles.file_url(Path(sys.argv[1])))).url, flush=True)
    sys.stdin.read()
"""


class Cockpit:
    """A process serving `page`'s folder (at `port` when given), as a run of the window or `cockpit run` does."""

    def __init__(self, page: Path, port: int | None = None):
        args = [sys.executable, "-c", HOLD, str(page)] + ([str(port)] if port else [])
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        self.url = self.proc.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.url

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(15)
        self.proc.stdout.close()


@pytest.fixture
def cockpits():
    started = []

    def start(page, port=None):
        started.append(Cockpit(page, port))
        return started[-1]
    yield start
    for c in started:
        c.stop()


def served_text(url: str) -> str:
    try:
        with OPENER.open(url, timeout=5) as r:
            return r.read().decode()
    except urllib.error.HTTPError as e:
        return f"HTTP {e.code}"


def two_folders(tmp_path) -> tuple[Path, Path]:
    """simple.html in two folders, each saying which it is."""
    made = []
    for name in ("x", "y"):
        (tmp_path / name).mkdir()
        made.append(tmp_path / name / "simple.html")
        made[-1].write_text(f"<title>{name}</title>page {name}")
    return made[0], made[1]


def test_two_processes_serving_one_folder_give_it_one_address_and_either_may_stop(tmp_path, cockpits):
    x, _ = two_folders(tmp_path)
    window, batch = cockpits(x), cockpits(x)  # the window's run, then `cockpit run --tasks` while it goes on
    assert batch.url == window.url == f"http://127.0.0.1:{folder_port(x.parent)}/simple.html"
    assert all(served_text(window.url) == "<title>x</title>page x" for _ in range(10))
    window.stop()  # the window's run ends (or the window closes): the batch's pages still load
    assert all(served_text(batch.url) == "<title>x</title>page x" for _ in range(20))
    assert cockpits(x).url == batch.url  # and another process joins the one left


def test_two_folders_forced_onto_one_port_never_share_it(tmp_path, cockpits):
    x, y = two_folders(tmp_path)
    port = free_port()  # both folders' port (a collision of folder_port's hash)
    a = cockpits(x, port)
    b = cockpits(y, port)
    assert a.url == f"http://127.0.0.1:{port}/simple.html"
    assert urlparse(b.url).port != port and served_text(b.url) == "<title>y</title>page y"
    assert all(served_text(a.url) == "<title>x</title>page x" for _ in range(30))  # never y's page at x's address
    c = cockpits(x, port)  # x again: shares the port with a
    assert c.url == a.url
    a.stop()
    assert all(served_text(c.url) == "<title>x</title>page x" for _ in range(20))


def test_a_port_held_by_another_program_is_not_shared_with_it(tmp_path, monkeypatch):
    x, _ = two_folders(tmp_path)
    with socket.socket() as other:  # another program of this user's, also binding with SO_REUSEPORT
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        with pytest.raises(OSError):
            serve_shared(x.parent, port).stop()
        monkeypatch.setattr("cockpit.core.replay.localfiles.folder_port", lambda folder: port)
        with ServedFolders() as local:
            url = local.served(Task("t", "q", file_url(x))).url
            assert urlparse(url).port != port and served_text(url) == "<title>x</title>page x"


def test_the_marker_names_no_file_or_path(tmp_path):
    x, _ = two_folders(tmp_path)
    with ServedFolders() as local:
        url = local.served(Task("t", "q", file_url(x))).url
        token = served_text(url.replace("/simple.html", MARKER))
    assert token.startswith("cockpit-folder ") and len(token.split()[1]) == 64
    assert str(tmp_path) not in token and "simple" not in token


def test_runs_of_one_local_page_from_two_processes_compare_as_the_same_page(tmp_path):
    x, _ = two_folders(tmp_path)
    first_asked, second_done = threading.Event(), threading.Event()

    def wait_for_second(body):  # the first run waits on its page until the second has run on the same one
        first_asked.set()
        second_done.wait(120)
        return "Thought: read it\nAction: ANSWER; x"
    home = tmp_path / "home"
    with ModelServer(wait_for_second) as slow, ModelServer(["Thought: read it\nAction: ANSWER; x"]) as fast:
        first = subprocess.Popen([sys.executable, "-m", "cockpit", "run", "--task", "Which page, first?", "--url",
                                  str(x), "--base-url", slow.base_url, "--model", "m"], cwd=ROOT, text=True,
                                 env={**os.environ, "COCKPIT_HOME": str(home)}, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        try:
            assert first_asked.wait(120)
            second = cockpit(home, "run", "--task", "Which page, second?", "--url", str(x), "--base-url",
                             fast.base_url, "--model", "m", cwd=ROOT)
        finally:
            second_done.set()
            out, err = first.communicate(timeout=120)
    assert second.returncode == 0 and first.returncode == 0, second.stderr + err
    with Store(home) as store:
        runs = {r["task"]: r for r in store.runs()}
        a, b = (store.steps(runs[f"Which page, {n}?"]["id"])[0] for n in ("first", "second"))
    assert a["url"] == b["url"] and same_page(a, b), (a["url"], b["url"])  # Compare: "same page? yes"
