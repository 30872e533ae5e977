"""The task bar's "Allowed domains" field: it fences a run started from the window as `--allow-domain` does.

Real parts: the window (offscreen), real Chromium, the real store, the scripted model server, and the
fixture pages served on 127.0.0.1 recording every request's Host (localhost is another host to navguard).
"""
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QLabel

from cockpit.core.agent import events as ev
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from tests.models import assistant_turns, mark_for
from tests.ui.windowtools import LONG

REFUSED = "localhost is not one of the domains this run may visit"


def roaming_model(away: str):
    """Goto `away` (on localhost), then click the page's link to localhost, then answer."""
    def respond(body):
        n = assistant_turns(body)
        if n == 0:
            return f"Thought: the other site has it.\nAction: Goto [{away}]"
        if n == 1:
            return f"Thought: follow the link there.\nAction: Click [{mark_for(body, 'Other host')}]"
        return "Thought: I stay here.\nAction: ANSWER; stayed"
    return respond


def run_from_window(qtbot, w, srv) -> tuple[dict, list[dict], str]:
    """Run the task bar's task; the run's record, its steps, and the status bar message as the run started."""
    w.toolbar.demo_box.setChecked(False)
    w.toolbar.policy.setCurrentText("never")
    w.settings.model = ModelConfig(base_url=srv.base_url, model="m", max_retries=0)
    at_start = []
    w.bridge.event.connect(lambda e: at_start.append(w.status.current())
                           if isinstance(e, ev.RunStarted) else None)  # after the window handled it
    assert w.start_run()
    qtbot.waitUntil(lambda: not w.runs.running, timeout=LONG)
    with Store(w.store_root) as s:
        return s.run(w.runs.run_id), s.steps(w.runs.run_id), at_start[0]


def localhost_requests(recording_pages):
    return [p for h, p in recording_pages.seen if h.split(":")[0] == "localhost"]


@pytest.mark.fault("hostile")
def test_a_run_started_with_allowed_domains_stays_on_them(qtbot, window, recording_pages):
    w = window
    port = recording_pages.server_address[1]
    start = f"http://127.0.0.1:{port}/hostile_links.html"
    w.live.task_bar.set_task("Find the page about the other site", start)
    qtbot.keyClicks(w.live.task_bar.domains_edit, "127.0.0.1, shop.example")
    with ModelServer(roaming_model(f"http://localhost:{port}/hostile_away.html?via=goto")) as srv:
        run, steps, at_start = run_from_window(qtbot, w, srv)
    assert not w.live.error_banner.isVisible(), w.live.error_banner.text()
    assert (run["status"], run["answer"]) == ("answered", "stayed")
    assert [s["status"] for s in steps] == ["error", "error", "answered"]
    assert REFUSED + " (127.0.0.1, shop.example)" in steps[0]["error"]
    assert REFUSED in steps[1]["error"]
    assert localhost_requests(recording_pages) == [], "the run opened a page on a host outside its allowed domains"
    assert all(s["url"].startswith(f"http://127.0.0.1:{port}/") for s in steps)
    # What the user sees: the refusal in the step log, and the fence named when the run started.
    shown = w.live.log_panel.items[1].text(3)
    assert shown.startswith("error: Goto") and "was refused: " + REFUSED in shown
    assert "this run may only visit 127.0.0.1, shop.example" in at_start
    # The stored run lists the domains, as for `cockpit run --allow-domain`.
    assert run["config"]["agent"]["allowed_domains"] == ["127.0.0.1", "shop.example"]
    assert run["config"]["navigation"]["allowed_domains"] == ["127.0.0.1", "shop.example"]
    assert w.live.task_bar.domains_edit.text() == "127.0.0.1, shop.example"  # kept for the next run


@pytest.mark.fault("input")
@pytest.mark.parametrize("typed, bad", [("exa mple..com", "'mple..com' is not a domain name"),
                                         ("shop.example, ftp://", "'ftp://' is not a domain name")])
def test_a_bad_domain_shows_an_error_and_starts_nothing(qtbot, window, site, typed, bad):
    w = window
    w.live.task_bar.set_task("Anything", site.url("agent_start.html"))
    w.live.task_bar.domains_edit.setText(typed)
    assert not w.start_run()
    assert w.live.error_banner.isVisible() and bad in w.live.error_banner.text()
    assert w.live.error_banner.text().startswith("allowed domains:")
    assert bad in w.status.current()
    assert not w.runs.running and not w.bridge.busy and w.runs.run_id == ""
    assert w.store.runs() == []
    assert w.live.task_bar.domains_edit.text() == typed  # nothing lost: the user fixes it in place
    assert w.toolbar.act_run.isEnabled() and w.live.task_bar.isEnabled()


def write_tasks(path, url: str):
    path.write_text("\n".join(json.dumps(t) for t in (
        {"id": "fenced", "task": "Find the page about the other site", "url": url,
         "allowed_domains": ["Shop.Example", "127.0.0.1"]},
        {"id": "open", "task": "Read the page", "url": url},
    )) + "\n")


def test_picking_a_task_fills_the_field_from_its_allowed_domains(qtbot, window, tmp_path):
    w = window
    w.resize(1280, 800)
    w.live.task_bar.domains_edit.setText("typed.example")
    tasks = tmp_path / "tasks.jsonl"
    write_tasks(tasks, "http://127.0.0.1:9/start.html")
    assert w.live.task_bar.load_file(tasks) == 2
    assert w.live.task_bar.domains_edit.text() == "shop.example, 127.0.0.1"  # the first task is picked
    assert w.live.task_bar.domains() == ["shop.example", "127.0.0.1"]
    w.live.task_bar._on_pick(1)
    assert w.live.task_bar.task()[2] == "open" and w.live.task_bar.domains_edit.text() == ""
    assert w.live.task_bar.domains() == []
    w.live.task_bar.picker.setCurrentIndex(0)
    w.live.task_bar.picker.activated.emit(0)  # as a click in the picker does
    assert w.live.task_bar.domains_edit.text() == "shop.example, 127.0.0.1"

    # One row at 1280 px, the picker shown: every field visible and the task still has room.
    qtbot.waitUntil(lambda: w.live.task_bar.picker.isVisible())
    bar = w.live.task_bar
    for wid in (bar.task_edit, bar.url_edit, bar.domains_edit, bar.picker, bar.open_btn):
        assert wid.isVisible() and wid.width() >= min(wid.sizeHint().width(), 140)
        assert wid.geometry().right() <= bar.width()
    assert bar.task_edit.width() >= 300 and bar.url_edit.width() >= 180 and bar.domains_edit.width() >= 180
    assert bar.domains_edit.y() == bar.task_edit.y()

    # The label's mnemonic (Alt+D) is the window's only D, and it puts the cursor in the field.
    letters = [t[t.index("&") + 1].lower() for t in
               [x.text() for x in w.findChildren(QLabel)] + [x.text() for x in w.findChildren(QAbstractButton)]
               if "&" in t and not t.count("&&")]
    assert letters.count("d") == 1
    w.activateWindow()
    bar.task_edit.setFocus()
    qtbot.keyClick(w, Qt.Key_D, Qt.AltModifier)
    qtbot.waitUntil(lambda: bar.domains_edit.hasFocus(), timeout=2000)
    assert "subdomains" in bar.domains_edit.toolTip().lower() and "start url" in bar.domains_edit.toolTip().lower()


@pytest.mark.fault("hostile")
def test_the_field_not_the_task_file_decides_where_the_run_may_go(qtbot, window, recording_pages, tmp_path):
    """A task whose list allows localhost, the field edited to leave it out: the run is kept off localhost
    (the task's list is not added back), and the record says what applied."""
    w = window
    port = recording_pages.server_address[1]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "roam", "task": "Find the page about the other site",
                                 "url": f"http://127.0.0.1:{port}/hostile_links.html",
                                 "allowed_domains": ["localhost"], "eval": {"answer": "stayed"}}) + "\n")
    assert w.live.task_bar.load_file(tasks) == 1
    assert w.live.task_bar.domains_edit.text() == "localhost"
    w.live.task_bar.domains_edit.clear()
    qtbot.keyClicks(w.live.task_bar.domains_edit, "shop.example")
    with ModelServer(roaming_model(f"http://localhost:{port}/hostile_away.html?via=task")) as srv:
        run, steps, at_start = run_from_window(qtbot, w, srv)
    assert "may only visit shop.example, 127.0.0.1" in at_start
    assert [s["status"] for s in steps] == ["error", "error", "answered"], [s["error"] for s in steps]
    assert REFUSED + " (shop.example, 127.0.0.1)" in steps[0]["error"]
    assert localhost_requests(recording_pages) == []
    assert run["task_id"] == "roam"
    assert run["config"]["navigation"]["allowed_domains"] == ["shop.example"]
    assert run["config"]["agent"]["allowed_domains"] == ["shop.example"]
    assert run["config"]["task_extra"] == {"eval": {"answer": "stayed"}}  # the rest of the task still goes along
