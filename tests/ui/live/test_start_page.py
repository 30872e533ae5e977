"""How a run starts in the window (#38): leaving demo mode leaves no demo state, the URL field takes what
`cockpit run --url` takes, and a start page that did not load ends the run at once, said in the window.

Real window (offscreen), real Chromium, the scripted model server on 127.0.0.1."""
import pytest

from cockpit.core.demo.policy import DEMO_TASK
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from tests.clitools import free_port
from tests.models import answer_with_title
from tests.ui.windowtools import LONG, records, wait_idle


@pytest.fixture
def scripted_model():
    with ModelServer(answer_with_title) as srv:
        yield srv


@pytest.fixture
def own(window, scripted_model):
    """The window with a model of the person's own (the scripted server), Demo policy unticked."""
    window.settings.model = ModelConfig(base_url=scripted_model.base_url, model="m", max_retries=0)
    return window


def test_unticking_demo_policy_takes_the_demo_task_and_address_away(qtbot, demo_window):
    w, bar = demo_window, demo_window.live.task_bar
    assert bar.task()[:2] == (DEMO_TASK, "demo:index.html")
    w.toolbar.demo_box.setChecked(False)
    assert bar.task()[:2] == ("", "")  # before #38 the demo's task and demo:index.html stayed
    assert w.status.current() == ("Demo policy off: the demo's task and start URL are gone; enter your own task "
                                  "and start URL.")
    bar.set_task("Find a mug", "")  # the person's own task, no address yet
    w.toolbar.demo_box.setChecked(True)
    assert bar.task()[:2] == ("Find a mug", "demo:index.html")  # the demo fills only what is empty
    w.toolbar.demo_box.setChecked(False)
    assert bar.task()[:2] == ("Find a mug", "")
    assert w.status.current() == "Demo policy off: the demo's start URL is gone; enter your own start URL."
    bar.set_task("Find a mug", "https://shop.example/")
    w.toolbar.demo_box.setChecked(True)
    w.toolbar.demo_box.setChecked(False)
    assert bar.task()[:2] == ("Find a mug", "https://shop.example/")  # nothing of theirs is touched
    bar.set_task("Find a mug", "demo:index.html")  # typed by hand, Demo policy off: said before anything starts
    assert not w.start_run()
    assert "demo:index.html is the demo shop's address, for the demo policy" in w.live.error_banner.text()
    assert not w.runs.run_id


def test_a_start_page_that_did_not_load_ends_the_run_before_any_model_call(qtbot, own, scripted_model):
    w = own
    url = f"http://127.0.0.1:{free_port()}/"
    w.live.task_bar.set_task("Find the price", url)
    assert w.start_run()
    wait_idle(qtbot, w)
    assert scripted_model.requests == []
    why = f"the start page did not load: could not open {url}: ERR_CONNECTION_REFUSED"
    assert w.live.error_banner.isVisible() and w.live.error_banner.text() == f"The run failed: {why}"
    assert w.live.view.message() != "Starting the browser…" and "failed before any page was shown" in w.live.view.message()
    assert w.live.banner.fullText() == f"Run {w.runs.run_id} failed"
    run, steps, _ = records(w)
    assert (run["status"], run["error"], steps) == ("failed", why, [])


def test_the_url_field_takes_a_local_html_file_as_cockpit_run_does(qtbot, own, scripted_model, tmp_path):
    w = own
    page = tmp_path / "site" / "mine.html"
    page.parent.mkdir()
    page.write_text("<title>Mine</title><h1>My own page</h1><a href='#x'>a link</a>")
    for bad, said in (("/no/such/page.html", "The start URL: no such file: /no/such/page.html"),
                      (str(page.parent), f"The start URL: {page.parent} is a folder: name an HTML file in it; "
                                         "it holds mine.html")):
        w.live.task_bar.set_task("What is the title?", bad)
        assert not w.start_run()
        assert w.live.error_banner.text() == said and not w.runs.run_id
    w.live.task_bar.set_task("What is the title?", str(page))  # before #38: "invalid argument"
    assert w.start_run()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    run, steps, _ = records(w)
    assert (run["status"], run["answer"]) == ("answered", "Mine") and not w.live.error_banner.isVisible()
    assert run["url"].startswith("http://127.0.0.1:") and run["url"].endswith("/mine.html")  # served, as the CLI does
