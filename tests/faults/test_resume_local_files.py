"""Fault suite, process death on a run started on local HTML files (`cockpit run --url page.html`).

The run's pages were served from their folder on 127.0.0.1 by the process that
died, and its step URLs name that server's port. Resume and branch serve the
folder again at the same port; a folder that is gone, or a port taken since,
is said plainly and leaves the run as it was.
"""
import shutil
import socket
from pathlib import Path

import pytest

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store, liveness
from tests import PAGES
from tests.clitools import cockpit, kill_leftovers, text_of
from tests.faults.test_kill import RESUMED, Model, run_and_kill

pytestmark = pytest.mark.fault("kill")


def local_site(root: Path) -> Path:
    root.mkdir()
    for name in ("agent_start.html", "agent_details.html", "agent_order.html"):
        shutil.copy(PAGES / name, root / name)
    return root


@pytest.fixture
def killed(tmp_path):
    """A run of `cockpit run --url shop/agent_start.html`, SIGKILLed at step 3: (home, folder, server, run id).
    The model server goes on serving for the test's resumes."""
    home, site, model = tmp_path / "home", local_site(tmp_path / "shop"), Model()
    with ModelServer(model) as srv:
        run_and_kill(home, None, srv, model, "What is the secret number?", url=str(site / "agent_start.html"))
        with Store(home) as store:
            liveness.mark_interrupted(store)  # as `cockpit runs` does: the process that ran it is gone
            (run,) = store.runs()
        yield home, site, srv, run["id"]
    kill_leftovers(home)


def test_a_killed_run_on_local_files_resumes_on_its_pages(killed):
    home, site, srv, run_id = killed
    with Store(home) as store:
        run = store.run(run_id)
        assert run["status"] == "interrupted" and run["url"].startswith("http://127.0.0.1:")
        assert run["config"]["task_extra"]["served_from"]["folder"] == str(site)
    n_before = len(srv.requests)
    r = cockpit(home, "resume", run_id)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "4217"
    last = text_of(srv.requests[n_before]["messages"][-1])
    assert RESUMED in last and "The page is 'Details'" in last  # the page came back, served again
    with Store(home) as store:
        steps = store.steps(run_id)
        assert steps[2]["url"] == steps[1]["url"] and steps[2]["url"].endswith("/agent_details.html")
        assert store.run(run_id)["status"] == "answered"


def test_a_moved_folder_or_a_taken_port_is_said_and_the_run_stays_resumable(killed, tmp_path):
    home, site, srv, run_id = killed
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
