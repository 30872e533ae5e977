"""A run started on a local HTML file, taken up again in the window (walkthrough 5): its pages were served from
their folder while it ran, at an address gone with that process. Branching or replaying it must put the file in the
Live address field, not that address (the next Run failed with ERR_CONNECTION_REFUSED)."""
import shutil

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from tests import PAGES
from tests.clitools import cockpit, ok
from tests.ui.windowtools import LONG, wait_idle


def test_replaying_a_run_on_a_local_file_leaves_the_file_in_the_address_field(qtbot, window_factory, tmp_path):
    folder = tmp_path / "my pages"
    folder.mkdir()
    page = folder / "agent_start.html"
    shutil.copy(PAGES / "agent_start.html", page)
    with ModelServer(["Thought: I see it.\nAction: Scroll [WINDOW]; down", "Thought: done.\nAction: ANSWER; 4217"]) \
            as srv:
        ok(cockpit(tmp_path / "home", "run", "--task", "What is the secret number?", "--url", str(page),
                   "--base-url", srv.base_url, "--model", "m", "--approval", "allow"))
    with Store(tmp_path / "home") as s:
        (run,) = s.runs()
    assert run["url"].startswith("http://127.0.0.1:")  # served while it ran

    w = window_factory()  # the same data folder (tmp_path / "home")
    assert w.start_replay(run["id"], speed=0)
    qtbot.waitUntil(lambda: w.bridge.state == "replaying", timeout=LONG)
    wait_idle(qtbot, w)
    assert w.live.banner.fullText().startswith("replay: replayed "), w.live.banner.fullText()
    assert w.live.task_bar.url_edit.text() == str(page)
