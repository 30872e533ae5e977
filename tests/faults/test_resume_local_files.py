"""Fault suite, process death on a run started on local HTML files (`cockpit run --url page.html`).

The run's pages were served from their folder on 127.0.0.1 by the process that
died, and its step URLs name that server's port. Resume and branch serve the
folder again at the same port; a folder that is gone, or a port taken since,
is said plainly and leaves the run as it was.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.core.modelserver import ModelServer
from cockpit.core.store import Store
from tests.clitools import cockpit, kill_leftovers, text_of
from tests.faults.test_kill import RESUMED, Model

pytestmark = pytest.mark.fault("kill")
PAGES = Path(__file__).resolve().parent.parent / "core" / "pages"


def local_site(root: Path) -> Path:
    root.mkdir()
    for name in ("agent_start.html", "agent_details.html", "agent_order.html"):
        shutil.copy(PAGES / name, root / name)
    return root


def run_on_file_and_kill(home, srv, model, page: Path, task: str) -> str:
    """`cockpit run --url page` until step 3 waits on the model, then SIGKILL it; the run's id."""
    model.stuck.clear()
    env = dict(os.environ, COCKPIT_HOME=str(home))
    proc = subprocess.Popen([sys.executable, "-m", "cockpit", "run", "--task", task, "--url", str(page),
                             "--base-url", srv.base_url, "--model", "m", "--max-steps", "6"],
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if not model.stuck.wait(90):
            proc.kill()
            pytest.fail("the run never reached step 3: " + proc.stderr.read().decode()[-2000:])
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.stderr.close()
        kill_leftovers(home)
    with Store(home) as store:
        runs = [r for r in store.runs() if r["task"] == task]
    assert len(runs) == 1
    return runs[0]["id"]


def test_a_killed_run_on_local_files_resumes_on_its_pages(tmp_path):
    home = tmp_path / "home"
    site = local_site(tmp_path / "shop")
    model = Model()
    with ModelServer(model) as srv:
        run_id = run_on_file_and_kill(home, srv, model, site / "agent_start.html", "What is the secret number?")
        with Store(home) as store:
            store.mark_interrupted()  # as `cockpit runs` does: the process that ran it is gone
            run = store.run(run_id)
            assert run["status"] == "interrupted" and run["url"].startswith("http://127.0.0.1:")
            assert run["config"]["task_extra"]["served_from"]["folder"] == str(site)
        n_before = len(srv.requests)
        r = cockpit(home, "resume", run_id)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "4217"
        last = text_of(srv.requests[n_before]["messages"][-1])
        assert RESUMED in last and "The page is 'Details'" in last  # the page came back, served again
    kill_leftovers(home)
    with Store(home) as store:
        steps = store.steps(run_id)
        assert steps[2]["url"] == steps[1]["url"] and steps[2]["url"].endswith("/agent_details.html")
        assert store.run(run_id)["status"] == "answered"


def test_a_moved_folder_or_a_taken_port_is_said_and_the_run_stays_resumable(tmp_path):
    home = tmp_path / "home"
    site = local_site(tmp_path / "shop")
    model = Model()
    with ModelServer(model) as srv:
        run_id = run_on_file_and_kill(home, srv, model, site / "agent_start.html", "What is the secret number?")
        with Store(home) as store:
            port = store.run(run_id)["config"]["task_extra"]["served_from"]["port"]
        site.rename(tmp_path / "moved")
        r = cockpit(home, "resume", run_id)
        assert r.returncode == 2 and str(site) in r.stderr and "not there any more" in r.stderr, r.stderr
        (tmp_path / "moved").rename(site)
        with socket.socket() as taken:  # listening there, as another server would be
            taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # the dead run's connections linger
            taken.bind(("127.0.0.1", port))
            taken.listen()
            r = cockpit(home, "resume", run_id)
            assert r.returncode == 2 and f"127.0.0.1:{port}" in r.stderr and "in use" in r.stderr, r.stderr
            branched = cockpit(home, "branch", run_id, "2", "--base-url", srv.base_url, "--model", "m")
            assert branched.returncode != 0 and "in use" in branched.stderr, branched.stderr
        with Store(home) as store:
            assert store.run(run_id)["status"] == "interrupted"  # untouched by the failed attempts
        r = cockpit(home, "resume", run_id)
        assert r.returncode == 0 and r.stdout.strip() == "4217", r.stderr
    kill_leftovers(home)
